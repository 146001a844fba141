d=$(mktemp -d) && trap 'rm -rf "$d"' EXIT && ln -s "$PWD/tests/fixtures" "$d/fx" && cd "$d" || exit 2
tshape convert --cast bfloat16 fx/values/f4.npy bf.safetensors && tshape convert bf.safetensors o.npz; tshape convert --cast float32 bf.safetensors o.npz && tshape show o.npz f4
