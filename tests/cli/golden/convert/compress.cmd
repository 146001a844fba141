d=$(mktemp -d) && trap 'rm -rf "$d"' EXIT && ln -s "$PWD/tests/fixtures" "$d/fx" && cd "$d" || exit 2
tshape convert --compress fx/values/deflated.npz o.npz && tshape diff fx/values/deflated.npz o.npz && tshape info o.npz | grep -c "deflated member"
