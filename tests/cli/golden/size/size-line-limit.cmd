(printf '(2,3)\n'; head -c 1048577 /dev/zero | tr '\0' 7; printf '\n(4,)\n'; head -c 1048576 /dev/zero | tr '\0' ' '; printf '\n(5,)') | tshape size
