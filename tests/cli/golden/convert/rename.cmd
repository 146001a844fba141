d=$(mktemp -d) && trap 'rm -rf "$d"' EXIT && ln -s "$PWD/tests/fixtures" "$d/fx" && cd "$d" || exit 2
printf "embed_tokens.weight emb\n" > map && tshape convert --strip-prefix model. --rename map --exclude "lm_head*" fx/pytorch/hf_tied.bin o.safetensors 2>/dev/null && tshape info --summary o.safetensors
