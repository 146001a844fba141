d=$(mktemp -d) && trap 'rm -rf "$d"' EXIT && ln -s "$PWD/tests/fixtures" "$d/fx" && cd "$d" || exit 2
head -c 100 fx/values/f4.npy > t.npy && tshape convert t.npy o.safetensors; rc=$?; ls -A; exit $rc
