d=$(mktemp -d) && trap 'rm -rf "$d"' EXIT && ln -s "$PWD/tests/fixtures" "$d/fx" && cd "$d" || exit 2
mkdir m && tshape convert --max-shard-size 40B fx/pytorch/adam.pt m/model.safetensors >/dev/null && rm m/model.safetensors.index.json && tshape convert --force --max-shard-size 40B m m/model.safetensors; rc=$?; ls m; exit $rc
