d=$(mktemp -d) && trap 'rm -rf "$d"' EXIT && ln -s "$PWD/tests/fixtures" "$d/fx" && cd "$d" || exit 2
tshape convert fx/values/c256_be.npy c.npz && tshape diff --values --equal-nan fx/values/c256_be.npy c.npz
tshape convert fx/values/c256_be.npy c.safetensors; echo "exit $?"
tshape convert --cast complex64 fx/values/c256_be.npy c.safetensors && tshape show c.safetensors
tshape convert --cast float64 --to npy-dir fx/values/f128.npy f && tshape show f/f128.npy
