d=$(mktemp -d) && trap 'rm -rf "$d"' EXIT && ln -s "$PWD/tests/fixtures" "$d/fx" && cd "$d" || exit 2
tshape convert -p arg:conv -p arg: -p aux: fx/model/diff/model.params o.npz && tshape info --summary o.npz
