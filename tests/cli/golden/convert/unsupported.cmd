d=$(mktemp -d) && trap 'rm -rf "$d"' EXIT && ln -s "$PWD/tests/fixtures" "$d/fx" && cd "$d" || exit 2
tshape convert fx/values/diff/a.npz a.safetensors; echo "exit $?"
tshape convert fx/hdf5/empty.h5 e.npz; echo "exit $?"
tshape convert --skip-unsupported fx/values/diff/a.npz a.safetensors; echo "exit $?"
tshape convert --skip-unsupported fx/hdf5/empty.h5 e.npz; echo "exit $?"
tshape convert --skip-unsupported fx/values/quant.gguf q.npz 2>&1 | tail -2
tshape convert --skip-unsupported fx/values/sparse.params s.safetensors; echo "exit $?"
ls
