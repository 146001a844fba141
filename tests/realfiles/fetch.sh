#!/bin/sh
# fetch.sh - the real TFLite and TensorFlow.js models the tests compare with
# reference readers: files nobody here wrote, as their npm packages ship
# them, fetched with `npm pack` at pinned versions and unpacked into a cache
# outside the repository: $TSHAPE_TEST_CACHE, else
# ${XDG_CACHE_HOME:-$HOME/.cache}/tshape-test. Each package is fetched once.
#
#   @mediapipe/face_detection, selfie_segmentation, hands   .tflite (float16
#                                   weights, a sparse model)
#   @vladmandic/face-api 0.8.1      weights manifests + shards (tensors cross
#                                   shard boundaries; uint8 quantisation)
#   @vladmandic/human 3.3.6         graph models (model.json: float16 and
#                                   uint8 quantisation)
#
# Prints the cache folder on stdout. Exit 0, or 77 (with the reason on
# stderr) when npm is missing or the registry cannot be reached.
set -u
cache=${TSHAPE_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tshape-test}
packages="@mediapipe/face_detection@0.4.1657300184
@mediapipe/selfie_segmentation@0.1.1675465747
@mediapipe/hands@0.4.1675469240
@vladmandic/face-api@0.8.1
@vladmandic/human@3.3.6"
mkdir -p "$cache" || { echo "fetch.sh: cannot create $cache" >&2; exit 77; }
for p in $packages; do
    dir=$cache/$(echo "$p" | sed -e 's|^@||' -e 's|/|-|' -e 's|@|-|')
    [ -f "$dir/.complete" ] && continue
    command -v npm >/dev/null 2>&1 || { echo "fetch.sh: no npm to fetch $p: skipped" >&2; exit 77; }
    tmp=$(mktemp -d "$cache/.fetch.XXXXXX") || exit 77
    if ! (cd "$tmp" && timeout 600 npm pack --silent "$p" > name 2> err); then
        echo "fetch.sh: npm pack $p failed (offline?): $(tail -1 "$tmp/err"): skipped" >&2
        rm -rf "$tmp"
        exit 77
    fi
    rm -rf "$dir"
    mkdir -p "$dir" && tar xzf "$tmp/$(tail -1 "$tmp/name")" -C "$dir" &&
        touch "$dir/.complete" || { rm -rf "$tmp" "$dir"; echo "fetch.sh: cannot unpack $p" >&2; exit 77; }
    rm -rf "$tmp"
done
echo "$cache"
