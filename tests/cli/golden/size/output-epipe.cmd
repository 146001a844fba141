(yes '(2,3)' | head -200000 | tshape size; echo "tshape exit $?" >&2) | head -1
