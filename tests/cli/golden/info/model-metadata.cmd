tshape info --metadata tests/fixtures/folders/llama | sed -n "/: metadata/,\$p" && tshape info --metadata --filter nothing tests/fixtures/folders/unrelated/
