#!/bin/sh
# tflite.test.sh - every fact `tshape info --all --metadata` and `stats`
# report about the TFLite fixtures (tests/fixtures/gen_tflite.py) agrees
# with the reference reader flatc generates from tests/tflite/reference.fbs
# (tests/tflite/crosscheck.py). The real models are in realfiles.test.sh.
cd "$(dirname "$0")/../.." || exit 2
if ! command -v flatc >/dev/null 2>&1 ||
    ! /usr/bin/python3 -c 'import flatbuffers, numpy' 2>/dev/null; then
    echo "tflite: no flatc or python3-flatbuffers (apt-get install flatbuffers-compiler python3-flatbuffers): skipped"
    exit 77
fi
bin=${TSHAPE:-$(command -v tshape)}
exec /usr/bin/python3 tests/tflite/crosscheck.py "$bin" $(ls tests/fixtures/tflite/*.tflite | grep -v /bad_)
