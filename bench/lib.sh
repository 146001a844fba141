# lib.sh - helpers for the benchmark scripts (sourced).
#
# Every script compares tshape with its yardstick in one run, prints each
# ratio beside its goal through `goal`, and ends with `goals_done`, which
# exits 1 when a goal was missed (so `make bench` fails). The machine is
# shared: times are medians, and ratios come from paired runs (the two
# commands in turn, round by round), which hold when the speed drifts.

# median_of N CMD...: runs CMD N times (stdout to /dev/null) and prints the
# median wall time in seconds.
median_of() {
    n=$1; shift
    i=0
    while [ $i -lt "$n" ]; do
        t0=$(date +%s.%N)
        "$@" >/dev/null
        t1=$(date +%s.%N)
        echo "$t1 - $t0" | bc -l
        i=$((i + 1))
    done | sort -g | awk '{ v[NR] = $1 } END { printf "%.4f\n", v[int((NR + 1) / 2)] }'
}
ratio() { printf '%.1f' "$(echo "$1 / $2" | bc -l)"; }
ratio2() { printf '%.2f' "$(echo "$1 / $2" | bc -l)"; }

# paired RUNS CMD_A... :: CMD_B...: runs A and B in turn RUNS times after
# one warm-up round (bench/spawntime.c: posix_spawn + wait4, no shell inside
# the timed span; both must exit 0; CMD_A's arguments on one line) and
# prints "A_s B_s B/A A_cpu_s B_cpu_s": the median wall times in seconds,
# the median over rounds of B's time divided by A's, and the median CPU
# times (user + system) in seconds.
paired() {
    _n=$1; shift
    _b=${BENCH_BUILD:-build/bench}
    mkdir -p "$_b"
    ${CC:-cc} -std=c11 -O2 -Wall -Wextra -o "$_b/spawntime" bench/spawntime.c
    "$_b/spawntime" "$_n" 1 "$@" > "$_b/paired.out" || return 1
    awk 'NR == 2 { a = $1 / 1000; ac = $4 / 1000 }
         NR == 3 { b = $1 / 1000; bc = $4 / 1000; r = $5; sub(/x$/, "", r) }
         END { printf "%.4f %.4f %s %.4f %.4f\n", a, b, r, ac, bc }' "$_b/paired.out"
}

# goal LABEL VALUE OP TARGET: prints "goal: LABEL: VALUE (OP TARGET) met" or
# "... MISSED" (OP is one of <= >= < >) and counts the misses.
bench_missed=0
goal() {
    if awk -v v="$2" -v t="$4" -v op="$3" 'BEGIN {
            ok = op == "<=" ? v <= t : op == ">=" ? v >= t : op == "<" ? v < t : v > t
            exit !ok }'; then
        _v=met
    else
        _v=MISSED
        bench_missed=$((bench_missed + 1))
    fi
    printf 'goal: %-52s %8s (goal %s %s) %s\n' "$1" "$2" "$3" "$4" "$_v"
}

# goals_done: the script's last word: exit 1 when a goal was missed.
goals_done() {
    if [ "$bench_missed" -gt 0 ]; then
        echo "$bench_missed goal(s) missed"
        exit 1
    fi
    echo "all goals met"
    exit 0
}

stat_of() { # KEY CMD...: the largest "KEY" of /usr/bin/time -v over 3 runs
    key=$1; shift
    m=0
    for _ in 1 2 3; do
        r=$(/usr/bin/time -v "$@" 2>&1 >/dev/null | sed -n "s/.*$key: //p")
        [ "${r:-0}" -gt "$m" ] && m=$r
    done
    echo "$m"
}
