d=$(mktemp -d) && trap 'rm -rf "$d"' EXIT && ln -s "$PWD/tests/fixtures" "$d/fx" && cd "$d" || exit 2
tshape convert --filter 'conv1.*' --filter 'fc16.*' --filter k.data fx/coreml/nn.mlmodel o.safetensors && tshape info --summary o.safetensors && tshape diff --filter 'conv1.*' --filter 'fc16.*' --filter k.data fx/coreml/nn.mlmodel o.safetensors
tshape convert --filter '*_blob' fx/coreml/model.mlpackage o.npz && tshape stats o.npz
