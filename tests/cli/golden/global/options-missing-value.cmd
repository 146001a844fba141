# issue 9 defect 2: an option without its value says so (exit 2), for long,
# abbreviated and short forms, and when "--" follows
tshape info --format; echo "exit $?"; tshape info --form; echo "exit $?"; tshape info -f; echo "exit $?"; tshape info --format -- examples/image.npy; echo "exit $?"; tshape ravel '(2,3)' '(1,1)' --order; echo "exit $?"
