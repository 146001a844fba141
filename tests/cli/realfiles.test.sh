#!/bin/sh
# slow: fetches npm packages once (about 60 MB), then reads 25 real models
# realfiles.test.sh - real TFLite and TensorFlow.js models, as MediaPipe's
# and @vladmandic's npm packages ship them (tests/realfiles/fetch.sh pins
# them and caches them outside the repository), against the reference
# readers: tests/tflite/crosscheck.py for every .tflite file,
# tests/tfjs/crosscheck.py for every model.json and weights manifest. Skipped (77)
# when the packages cannot be fetched.
cd "$(dirname "$0")/../.." || exit 2
if ! command -v flatc >/dev/null 2>&1 ||
    ! /usr/bin/python3 -c 'import flatbuffers, numpy' 2>/dev/null; then
    echo "realfiles: no flatc or python3-flatbuffers (apt-get install flatbuffers-compiler python3-flatbuffers): skipped"
    exit 77
fi
cache=$(sh tests/realfiles/fetch.sh) || exit $?
bin=${TSHAPE:-$(command -v tshape)}
set -- "$cache"/mediapipe-*/package/*.tflite
[ -f "$1" ] || { echo "realfiles: no .tflite file in $cache"; exit 1; }
/usr/bin/python3 tests/tflite/crosscheck.py "$bin" "$@" || exit 1
# TensorFlow.js: graph models (model.json) and manifests with shards
set -- "$cache"/vladmandic-human-*/package/models/*.json "$cache"/vladmandic-face-api-*/package/model/*.json
models=
for f in "$@"; do
    case $f in */models.json) ;; *) models="$models $f";; esac
done
[ -n "$models" ] || { echo "realfiles: no TF.js model in $cache"; exit 1; }
# shellcheck disable=SC2086
/usr/bin/python3 tests/tfjs/crosscheck.py "$bin" $models || exit 1
