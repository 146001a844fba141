d=$(mktemp -d) && trap 'rm -rf "$d"' EXIT && ln -s "$PWD/tests/fixtures" "$d/fx" && cd "$d" || exit 2
tshape convert --max-shard-size 40B fx/pytorch/adam.pt model.safetensors && ls && cat model.safetensors.index.json && tshape diff fx/pytorch/adam.pt .
