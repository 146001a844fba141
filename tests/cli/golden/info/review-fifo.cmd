d=$(mktemp -d) && mkfifo "$d/fifo" && (cd "$d" && timeout 5 tshape info fifo; echo "exit $?"); rm -rf "$d"
