d=$(mktemp -d) && tshape convert --exclude strings tests/fixtures/hdf5/crash_compact.h5 "$d/out.safetensors" 2>&1 | sed "s|$d|DIR|"; ls "$d"; rm -rf "$d"
