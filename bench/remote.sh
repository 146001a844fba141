#!/bin/sh
# remote.sh - tshape on URLs over a loopback nginx: requests and bytes per
# format for 1 GiB files, against huggingface_hub's way of reading a
# safetensors header in Python, and a 100-shard model remote vs local
# (bench/remote.py says how; it writes about 3 GiB in a temporary folder).
cd "$(dirname "$0")/.." || exit 2
exec /usr/bin/python3 bench/remote.py "${TSHAPE:-build/tshape}"
