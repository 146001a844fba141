# issue 20 item 12: tshape help [COMMAND] works as --help does; an unknown
# COMMAND suggests the closest names.
tshape help | head -3
tshape help size
tshape help sise; echo "exit $?"
tshape help a b; echo "exit $?"
