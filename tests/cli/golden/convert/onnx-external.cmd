d=$(mktemp -d) && trap 'rm -rf "$d"' EXIT && ln -s "$PWD/tests/fixtures" "$d/fx" && cd "$d" || exit 2
tshape convert fx/onnx/good_external.onnx o.safetensors && tshape show o.safetensors b && ls -A
