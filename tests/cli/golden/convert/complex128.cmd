d=$(mktemp -d) && trap 'rm -rf "$d"' EXIT && ln -s "$PWD/tests/fixtures" "$d/fx" && cd "$d" || exit 2
tshape convert fx/values/c16_be.npy o.safetensors; tshape convert --cast complex64 fx/values/c16_be.npy o.safetensors && tshape show o.safetensors
