d=$(mktemp -d) && trap 'rm -rf "$d"' EXIT && ln -s "$PWD/tests/fixtures" "$d/fx" && cd "$d" || exit 2
tshape convert --to npy-dir --exclude obj fx/npy/mixed.npz d; ls -A; tshape convert --to npy-dir --exclude obj --exclude "sub/*" fx/npy/mixed.npz d && ls d
