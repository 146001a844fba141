d=$(mktemp -d) && trap 'rm -rf "$d"' EXIT && ln -s "$PWD/tests/fixtures" "$d/fx" && cd "$d" && mkdir out one || exit 2
tshape convert --max-shard-size 300B fx/folders/llama out && ls out && tshape diff --values fx/folders/llama out && cmp fx/folders/llama/tokenizer.json out/tokenizer.json
tshape convert fx/folders/llama out; echo "exit $?"
tshape convert fx/folders/llama/model.safetensors.index.json one && ls one
tshape convert fx/folders/llama no/such/model.safetensors; echo "exit $?"
tshape convert fx/folders/llama no/such/; echo "exit $?"
ls
