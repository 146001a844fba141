d=$(mktemp -d) && trap 'rm -rf "$d"' EXIT && cp tests/fixtures/keras/sharded/model.weights.json tests/fixtures/keras/sharded/model_00000.weights.h5 "$d" || exit 2
tshape verify --deep tests/fixtures/keras/sharded/model.weights.json; tshape verify "$d/model.weights.json" | sed "s#$d#DIR#g"
printf '{"weight_map": {"/vars": "../x.weights.h5"}}' > "$d/bad.weights.json"; tshape info "$d/bad.weights.json" 2>&1 | sed "s#$d#DIR#g"
