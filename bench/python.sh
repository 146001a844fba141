#!/bin/sh
# python.sh - the Python module (bench/python.py) against NumPy, torch.load
# and safetensors-style code: a 1,000-file folder, a 400 MB torch.save
# checkpoint and the same weights as safetensors. Writes the data it needs
# with bench/model.sh's and bench/pytorch.sh's generators (run them first,
# or let this run them), then times inside one Python process.
set -e
cd "$(dirname "$0")/.."
tshape=${TSHAPE:-build/tshape}
B=$(dirname "$tshape")
VERSION=$(sed -n 's/^#define TS_VERSION_STRING "\(.*\)"/\1/p' include/tshape.h)
[ -f "$B/libtshape.so.$VERSION" ] || make -s "$B/libtshape.so.$VERSION"
[ -d bench/data/many ] || TSHAPE=$tshape sh bench/model.sh >/dev/null
[ -f bench/data/torch_400mb.pt ] || ! /usr/bin/python3 -c 'import torch' 2>/dev/null ||
    TSHAPE=$tshape sh bench/pytorch.sh >/dev/null
PYTHONPATH=python TSHAPE_LIBRARY="$B/libtshape.so.0" /usr/bin/python3 bench/python.py
