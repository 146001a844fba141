d=$(mktemp -d) && trap 'rm -rf "$d"' EXIT && ln -s "$PWD/tests/fixtures" "$d/fx" && cd "$d" || exit 2
tshape --json convert --cast float32 fx/pytorch/hf_tied.bin o.npz && tshape info --summary o.npz
