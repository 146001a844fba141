# issue 15: --summary tells parameters from buffers (PyTorch BatchNorm
# running_mean/running_var/num_batches_tracked, Keras moving_*, MXNet aux:)
# so the parameter count is the framework's: 8 elements in 3 parameters here.
d=$(mktemp -d) || exit 2
h='{"bn.weight":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"bn.bias":{"dtype":"F32","shape":[2],"data_offsets":[8,16]},"bn.running_mean":{"dtype":"F32","shape":[2],"data_offsets":[16,24]},"bn.running_var":{"dtype":"F32","shape":[2],"data_offsets":[24,32]},"bn.num_batches_tracked":{"dtype":"I64","shape":[],"data_offsets":[32,40]},"dense/kernel:0":{"dtype":"F32","shape":[2,2],"data_offsets":[40,56]},"bn2/moving_mean:0":{"dtype":"F32","shape":[2],"data_offsets":[56,64]}}'
printf "$(printf '\\%03o' $(( ${#h} % 256 )) $(( ${#h} / 256 )))\000\000\000\000\000\000%s" "$h" > "$d/bn.safetensors"
head -c 64 /dev/zero >> "$d/bn.safetensors"
(cd "$d" && tshape info --summary bn.safetensors && tshape info --summary --json bn.safetensors)
tshape info --summary --filter "*bn*" examples/resnet-0000.params
rc=$?; rm -rf "$d"; exit $rc
