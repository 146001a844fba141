d=$(mktemp -d) && tshape convert --max-shard-size 1 tests/fixtures/hdf5/keras2.h5 "$d/o.safetensors" 2>&1 | sed "s|$d|DIR|"; ls "$d"; rm -rf "$d"
