d=$(mktemp -d) && trap 'rm -rf "$d"' EXIT && ln -s "$PWD/tests/fixtures" "$d/fx" && cd "$d" || exit 2
tshape convert fx/values/quant.gguf o.safetensors; tshape convert --dequantize=float16 --exclude q2_k --filter "q4*" fx/values/quant.gguf o.safetensors && tshape info --summary o.safetensors
