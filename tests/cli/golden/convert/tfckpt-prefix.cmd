d=$(mktemp -d) && trap 'rm -rf "$d"' EXIT && ln -s "$PWD/tests/fixtures" "$d/fx" && cd "$d" || exit 2
tshape convert fx/tfckpt/sharded/model.ckpt o.safetensors && tshape diff --values fx/tfckpt/sharded/model.ckpt o.safetensors
