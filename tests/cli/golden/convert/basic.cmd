d=$(mktemp -d) && trap 'rm -rf "$d"' EXIT && ln -s "$PWD/tests/fixtures" "$d/fx" && cd "$d" || exit 2
tshape convert fx/values/f8_fortran.npy o.safetensors && tshape info --summary o.safetensors
