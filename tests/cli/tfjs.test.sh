#!/bin/sh
# tfjs.test.sh - every fact `tshape info --metadata` and `stats` report about
# the TensorFlow.js fixtures (tests/fixtures/gen_tfjs.py) agrees with the
# reference of tests/tfjs/crosscheck.py. The real models are in
# realfiles.test.sh.
cd "$(dirname "$0")/../.." || exit 2
/usr/bin/python3 -c 'import numpy' 2>/dev/null || { echo "tfjs: no python3-numpy: skipped"; exit 77; }
bin=${TSHAPE:-$(command -v tshape)}
exec /usr/bin/python3 tests/tfjs/crosscheck.py "$bin" tests/fixtures/tfjs/graph/model.json \
    tests/fixtures/tfjs/layers/model.json tests/fixtures/tfjs/strings/model.json \
    tests/fixtures/tfjs/manifest/m-weights_manifest.json
