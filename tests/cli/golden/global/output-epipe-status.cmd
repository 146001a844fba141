# issue 9 defect 4: when stdout is a closed pipe the exit status still says
# that an input line was bad (2), and the closed pipe itself gives no
# message. The reader exits before tshape writes (the sleep), so the write
# meets EPIPE.
d=$(mktemp -d); printf '(2,3)\nbad\n' > "$d/in"
(sleep 0.5; tshape size < "$d/in" 2>"$d/err"; echo "bad line: exit $?" > "$d/rc") | true; cat "$d/rc" "$d/err"
(sleep 0.5; tshape size '(2,3)' '(2,x)' 2>"$d/err"; echo "bad operand: exit $?" > "$d/rc") | true; cat "$d/rc" "$d/err"
(sleep 0.5; tshape size '(2,3)' 2>"$d/err"; echo "all good: exit $?" > "$d/rc") | true; cat "$d/rc" "$d/err"
rm -rf "$d"
