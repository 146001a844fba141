d=$(mktemp -d) && trap 'rm -rf "$d"' EXIT && ln -s "$PWD/tests/fixtures" "$d/fx" && cd "$d" || exit 2
tshape convert fx/model/hf m.safetensors && tshape diff fx/model/hf m.safetensors && tshape convert fx/model/hf-bin/pytorch_model.bin.index.json b.safetensors && tshape diff fx/model/hf-bin b.safetensors && tshape show m.safetensors model.norm.weight && tshape show b.safetensors model.norm.weight
