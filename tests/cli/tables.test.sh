#!/bin/sh
# tables.test.sh - the command and option tables (src/cli/commands.def and
# each command's cli_option table, as `tshape --complete-list` prints them)
# are the one source of the command list; this test fails when another
# copy disagrees with them:
#   - completions/tshape.bash must be what scripts/gen-completion.sh writes;
#   - man/tshape.1 must have a .SS section (under COMMANDS) for every
#     command and no other, every option of a command (long and short form)
#     in its section, and every global option under OPTIONS.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 2
tshape=$(command -v tshape) || { echo "tables.test.sh: no tshape on PATH"; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

if ! "$tshape" --complete-list > "$tmp/list"; then
    echo "FAIL tables.test.sh: tshape --complete-list failed (a table repeats an option?)"
    exit 1
fi

if ! sh scripts/gen-completion.sh "$tshape" > "$tmp/completion" 2>&1 ||
    ! cmp -s "$tmp/completion" completions/tshape.bash; then
    echo "FAIL tables.test.sh: completions/tshape.bash disagrees with the tables; run"
    echo "     sh scripts/gen-completion.sh build/tshape > completions/tshape.bash"
    diff completions/tshape.bash "$tmp/completion" | head -10
    fail=1
fi

# The man page: the text of each command's section (consecutive .SS lines
# share one), and of OPTIONS. Roff writes '-' as '\-'.
awk -F'\t' -v man=man/tshape.1 '
    function roff(s) { gsub(/-/, "\\-", s); return s }
    # 1 when text holds the short option "-c" on its own (not inside --long).
    function has_short(text, c,    pat, i, rest, next_ch) {
        pat = "\\-" c
        rest = text
        while ((i = index(rest, pat)) > 0) {
            next_ch = substr(rest, i + length(pat), 1)
            if (next_ch !~ /[A-Za-z0-9]/ && substr(rest, i - 2, 2) != "\\-") return 1
            rest = substr(rest, i + length(pat))
        }
        return 0
    }
    BEGIN {
        while ((getline line < man) > 0) {
            if (line ~ /^\.SH /) {
                section = line; sub(/^\.SH +/, "", section); gsub(/"/, "", section)
                ngroup = 0; prev_ss = 0
                continue
            }
            if (section == "COMMANDS" && line ~ /^\.SS /) {
                if (!prev_ss) ngroup = 0
                prev_ss = 1
                if (line ~ /^\.SS +"/) continue      # a family heading
                # "parse\-shape": the name runs to the first space
                name = line; sub(/^\.SS +/, "", name); sub(/ .*/, "", name); gsub(/\\-/, "-", name)
                group[++ngroup] = name
                documented[name] = 1
                text[name] = text[name] line "\n"
                continue
            }
            prev_ss = 0
            for (g = 1; g <= ngroup; g++) text[group[g]] = text[group[g]] line "\n"
            if (section == "OPTIONS") options_text = options_text line "\n"
        }
    }
    $1 == "command" {
        known[$2] = 1
        if (!($2 in documented)) { print "FAIL tables.test.sh: man/tshape.1 has no .SS section for command " $2; bad = 1 }
    }
    $1 == "option" && ($2 in documented) {
        if (index(text[$2], "\\-\\-" roff(substr($3, 3))) == 0) {
            print "FAIL tables.test.sh: man/tshape.1 section " $2 " does not mention " $3; bad = 1
        }
        if ($4 != "" && !has_short(text[$2], substr($4, 2))) {
            print "FAIL tables.test.sh: man/tshape.1 section " $2 " does not mention " $4; bad = 1
        }
    }
    $1 == "global" {
        if (index(options_text, "\\-\\-" roff(substr($2, 3))) == 0 || !has_short(options_text, substr($3, 2))) {
            print "FAIL tables.test.sh: man/tshape.1 OPTIONS does not mention " $3 ", " $2; bad = 1
        }
    }
    END {
        for (name in documented)
            if (!(name in known)) { print "FAIL tables.test.sh: man/tshape.1 documents unknown command " name; bad = 1 }
        exit bad
    }' "$tmp/list" || fail=1

commands=$(awk -F'\t' '$1 == "command"' "$tmp/list" | wc -l)
options=$(awk -F'\t' '$1 == "option"' "$tmp/list" | wc -l)
if [ $fail = 0 ]; then
    echo "tables.test.sh: $commands commands and $options options agree with man/tshape.1 and completions/tshape.bash"
fi
exit $fail
