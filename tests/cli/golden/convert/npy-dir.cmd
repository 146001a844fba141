d=$(mktemp -d) && trap 'rm -rf "$d"' EXIT && ln -s "$PWD/tests/fixtures" "$d/fx" && cd "$d" || exit 2
tshape convert --to npy-dir --exclude obj fx/npy/mixed.npz d && find d | LC_ALL=C sort && tshape info -r --summary d && tshape convert --exclude obj fx/npy/mixed.npz m.npz >/dev/null && tshape diff -r --values m.npz d
