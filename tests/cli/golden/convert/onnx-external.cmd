d=$(mktemp -d) && trap 'rm -rf "$d"' EXIT && ln -s "$PWD/tests/fixtures" "$d/fx" && cd "$d" || exit 2
tshape convert fx/onnx/good_external.onnx o.safetensors && tshape show o.safetensors b && ls -A
tshape convert fx/onnx/good_external.onnx o.npz && tshape diff --values fx/onnx/good_external.onnx o.npz
tshape convert --to npy-dir fx/onnx/good_external.onnx n && tshape show n/a.npy
