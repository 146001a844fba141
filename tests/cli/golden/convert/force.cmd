d=$(mktemp -d) && trap 'rm -rf "$d"' EXIT && ln -s "$PWD/tests/fixtures" "$d/fx" && cd "$d" || exit 2
tshape convert fx/values/f4.npy o.safetensors >/dev/null && tshape convert --force fx/values/i8.npy o.safetensors && ls -A
