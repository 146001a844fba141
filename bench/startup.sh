#!/bin/sh
# startup.sh [RUNS] - what one call of tshape costs a script, against
# /bin/true: `tshape size '(3,4,5)'`, `tshape --version` and `tshape ndim 3`
# read no file, so their time is the process start-up. Goal (issue 28):
# at most 1.2x /bin/true, as the median of paired runs; exits 1 when missed.
#
# Every command runs RUNS times (default 2000), interleaved with the others
# in the same rounds (bench/spawntime.c: posix_spawn + wait4, no shell), and
# is reported as the median wall time per call and the median over rounds of
# its time divided by /bin/true's in the same round.
#
# Where the time goes, from three empty programs (`int main(void) { return
# 0; }`) run in the same rounds: linked statically (no dynamic loader), with
# libc only (as /bin/true), and with the shared libraries tshape itself needs
# (its DT_NEEDED entries, so the figure follows the build). Their
# differences give the cost of the dynamic loader for libc and for tshape's
# libraries; what tshape takes beyond the last one is its own work. Then the
# loader's own statistics (LD_DEBUG=statistics: cycles and relocations).
# shellcheck disable=SC2046 # $(row ...) and $(ldstats ...) are split on purpose
set -e
cd "$(dirname "$0")/.."
. bench/lib.sh
runs=${1:-2000}
case $runs in '' | *[!0-9]*) echo "usage: bench/startup.sh [RUNS]" >&2; exit 2;; esac
tshape=${TSHAPE:-build/tshape}
[ -x "$tshape" ] || { echo "startup.sh: $tshape is not built (make)" >&2; exit 2; }
CC=${CC:-cc}
d=${BENCH_BUILD:-build/bench}
mkdir -p "$d"

# ---- the timer and the empty programs ----------------------------------------
$CC -std=c11 -O2 -Wall -Wextra -o "$d/spawntime" bench/spawntime.c
printf 'int main(void) { return 0; }\n' > "$d/empty.c"
needed=$(readelf -d "$tshape" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
libs=
for so in $needed; do
    case $so in libc.so.*) ;; *) libs="$libs -l:$so";; esac
done
$CC -O2 -o "$d/empty-libc" "$d/empty.c"
# shellcheck disable=SC2086
$CC -O2 -o "$d/empty-tshape-libs" "$d/empty.c" -Wl,--no-as-needed $libs -Wl,--as-needed
static=
if $CC -O2 -static -o "$d/empty-static" "$d/empty.c" 2>/dev/null; then
    static="$d/empty-static ::"
fi

echo "startup: $runs interleaved runs of each command; tshape is $tshape"
echo "tshape needs:$(echo " $needed" | tr '\n' ' ')($(LD_TRACE_LOADED_OBJECTS=1 "$tshape" | grep -c '=>') shared objects loaded in all)"
echo
# shellcheck disable=SC2086
"$d/spawntime" "$runs" 50 /bin/true :: $static "$d/empty-libc" :: "$d/empty-tshape-libs" :: \
    "$tshape" size '(3,4,5)' :: "$tshape" --version :: "$tshape" ndim 3 | tee "$d/startup.out"

# ---- summary -----------------------------------------------------------------
row() { # LABEL-PREFIX: "median-ms ratio p10-ms p90-ms" of the first row whose command starts so
    awk -v p="$1" 'NR > 1 { c = $0; for (i = 1; i <= 7; i++) sub(/^ *[^ ]+/, "", c); sub(/^ +/, "", c)
                   if (index(c, p) == 1) { r = $5; sub(/x$/, "", r); print $1, r, $2, $3; exit } }' \
        "$d/startup.out"
}
set -- $(row /bin/true); t_true=$1 true_p10=$3 true_p90=$4
set -- $(row "$d/empty-libc"); r_libc=$2
set -- $(row "$d/empty-tshape-libs"); r_libs=$2
set -- $(row "$tshape size"); r_size=$2
set -- $(row "$tshape --version"); r_version=$2
set -- $(row "$tshape ndim"); r_ndim=$2
echo
goal "tshape size '(3,4,5)' / /bin/true (paired median)" "$r_size" "<=" 1.2
goal "tshape --version / /bin/true (paired median)" "$r_version" "<=" 1.2
goal "tshape ndim 3 / /bin/true (paired median)" "$r_ndim" "<=" 1.2
echo "an empty program linked with tshape's libraries: ${r_libs}x /bin/true"

# The parts are differences of the paired ratios (steadier than differences
# of medians on a busy machine), in /bin/true's median time and in ms.
part() { # TEXT RATIO [RATIO]: prints RATIO - RATIO as a multiple of /bin/true and in ms
    awk -v t="$1" -v a="$2" -v b="${3:-0}" -v u="$t_true" \
        'BEGIN { printf "  %-56s %6.2fx %7.3f ms\n", t, a - b, (a - b) * u }'
}
echo
echo "where the time of tshape size goes (/bin/true = 1.00x = $t_true ms):"
if [ -n "$static" ]; then
    set -- $(row "$d/empty-static"); r_static=$2
    part "exec of a static empty program (no dynamic loader)" "$r_static"
    part "dynamic loader with libc only (as /bin/true)" "$r_libc" "$r_static"
else
    part "an empty program with libc (no static libc to compare)" "$r_libc"
fi
part "loading tshape's other libraries and their dependencies" "$r_libs" "$r_libc"
part "tshape's own work (relocations, constructors, main)" "$r_size" "$r_libs"
part "total" "$r_size"
awk -v a="$true_p10" -v b="$true_p90" 'BEGIN { if (b > 1.5 * a)
    printf "note: the machine was busy (/bin/true p90 %.2fx its p10): rerun for steadier times\n", b / a }'

# ---- the dynamic loader's statistics -------------------------------------------
# glibc prints cycles (rdtsc), not seconds, and counts only the loader's own
# steps: the kernel's work of mapping the libraries and faulting their pages
# in shows in the wall times above, not here. Medians of 21 runs.
ldstats() { # COMMAND...: "total-cycles relocation-cycles load-cycles relocations relative"
    i=0
    while [ $i -lt 21 ]; do
        LD_DEBUG=statistics "$@" 2>&1 >/dev/null | awk '
            /total startup time in dynamic loader/ { t = $(NF - 1) }
            /time needed for relocation/ { r = $(NF - 2) }
            /time needed to load objects/ { l = $(NF - 2) }
            /number of relocations:/ { n = $NF }
            /number of relative relocations/ { rel = $NF }
            END { print t, r, l, n, rel }'
        i=$((i + 1))
    done | sort -n | sed -n 11p
}
echo
echo "LD_DEBUG=statistics (median of 21 runs; cycles):"
printf '  %-28s %14s %14s %14s %12s %10s\n' command "loader total" relocation "loading objs" relocations relative
for c in "/bin/true" "$tshape size (3,4,5)" "$d/empty-tshape-libs"; do
    # shellcheck disable=SC2086
    set -- $(ldstats $c)
    printf '  %-28s %14s %14s %14s %12s %10s\n' "$c" "$1" "$2" "$3" "$4" "$5"
done
goals_done
