d=$(mktemp -d) && trap 'rm -rf "$d"' EXIT && ln -s "$PWD/tests/fixtures" "$d/fx" && cd "$d" || exit 2
tshape convert fx/keras/nested.keras n.safetensors && tshape diff --values fx/keras/nested.keras n.safetensors
tshape convert fx/keras/deflated.keras d.npz && tshape diff --values fx/keras/deflated.keras d.npz
