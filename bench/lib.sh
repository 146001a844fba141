# lib.sh - helpers for the benchmark scripts (sourced).
# best_of N CMD...: runs CMD N times (stdout to /dev/null) and prints the best
# wall time in seconds.
best_of() {
    n=$1; shift
    best=
    i=0
    while [ $i -lt "$n" ]; do
        t0=$(date +%s.%N)
        "$@" >/dev/null
        t1=$(date +%s.%N)
        t=$(echo "$t1 - $t0" | bc -l)
        if [ -z "$best" ] || [ "$(echo "$t < $best" | bc -l)" = 1 ]; then best=$t; fi
        i=$((i + 1))
    done
    printf '%.4f\n' "$best"
}
ratio() { printf '%.1f' "$(echo "$1 / $2" | bc -l)"; }
stat_of() { # KEY CMD...: the largest "KEY" of /usr/bin/time -v over 3 runs
    key=$1; shift
    m=0
    for _ in 1 2 3; do
        r=$(/usr/bin/time -v "$@" 2>&1 >/dev/null | sed -n "s/.*$key: //p")
        [ "${r:-0}" -gt "$m" ] && m=$r
    done
    echo "$m"
}
