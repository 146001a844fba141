# issue 15 defect 1: a valid file without arrays (an empty .npz, a GGUF
# vocabulary, a safetensors header that is {} or only __metadata__) gives a
# record saying so, in text and JSON, so one record per file is always there.
d=$(mktemp -d) || exit 2
printf '\002\000\000\000\000\000\000\000{}' > "$d/e.safetensors"
h='{"__metadata__":{"format":"pt","a":"b"}}'
printf '\050\000\000\000\000\000\000\000%s' "$h" > "$d/m.safetensors"
cd tests/fixtures
tshape info npy/empty.npz gguf/good_no_tensors.gguf mxnet/empty.params "$d/e.safetensors" "$d/m.safetensors" | sed "s|$d|D|"
tshape info --json npy/empty.npz gguf/good_no_tensors.gguf "$d/e.safetensors" "$d/m.safetensors" | sed "s|$d|D|"
tshape info --summary npy/empty.npz ../../examples/image.npy
tshape info --summary --json npy/empty.npz ../../examples/image.npy
rc=$?; rm -rf "$d"; exit $rc
