#!/bin/sh
# family.test.sh - what info --summary says a checkpoint is (kind,
# architecture family, layers, hidden size, vocabulary, heads: the
# identity object of the model summary record) for one small state dict per
# family of src/formats/family.c, written by tests/fixtures/gen_family.py
# with the module names of each library's modeling code: every field equal
# to expected.tsv. Exit 0 pass, 1 fail, 77 skipped (no python3).
cd "$(dirname "$0")/../.." || exit 2
py=/usr/bin/python3
[ -x $py ] || { echo "family: no $py, skipped"; exit 77; }
bin=${TSHAPE:-$(command -v tshape)}
d=tests/fixtures/family
fail=0 n=0
while IFS="$(printf '\t')" read -r file kind family layers hidden vocab heads kv; do
    case $file in '#'*) continue;; esac
    n=$((n + 1))
    got=$("$bin" --json info --summary --top 0 "$d/$file.safetensors" | $py -c '
import json, sys
i = json.loads(sys.stdin.readline())["identity"]
v = lambda x: -1 if x is None else x
print("\t".join(str(x) for x in (i["kind"], i["family"] or "-", v(i["layers"]), v(i["hidden"]),
                                 v(i["vocab"]), v(i["heads"]), v(i["kv_heads"]))))')
    want=$(printf '%s\t%s\t%s\t%s\t%s\t%s\t%s' "$kind" "$family" "$layers" "$hidden" "$vocab" "$heads" "$kv")
    if [ "$got" != "$want" ]; then
        echo "FAIL family $file: got '$got', expected '$want'"
        fail=$((fail + 1))
    fi
done < $d/expected.tsv
echo "family: $n files, $fail failed"
[ $fail = 0 ] && [ $n -gt 0 ]
