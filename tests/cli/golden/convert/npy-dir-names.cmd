d=$(mktemp -d) && trap 'rm -rf "$d"' EXIT && ln -s "$PWD/tests/fixtures" "$d/fx" && cd "$d" || exit 2
tshape convert --to npy-dir fx/folders/names.safetensors n && find n -type f | LC_ALL=C sort
tshape info n >/dev/null
tshape stats -r n | cut -f1,2,5,6
tshape diff -r --values fx/folders/names.safetensors n
tshape convert --to npy-dir fx/folders/escape.safetensors e; echo "exit $?"; ls
tshape convert --force --to npy-dir fx/folders/names.safetensors n && touch n/dense/notes.txt && tshape convert --force --to npy-dir fx/folders/names.safetensors n; echo "exit $?"; ls n/dense
