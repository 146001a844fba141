#!/bin/sh
# quickstart.sh - installs what the build needs, builds tshape, inspects the
# example files and runs one shape pipeline. The README's first command.
set -e
cd "$(dirname "$0")/.."
sh scripts/deps.sh gcc make pkg-config libc6-dev libjansson-dev zlib1g-dev
make -s -j2
echo '$ tshape info --summary examples/*.npy examples/*.npz examples/*.safetensors examples/*.params'
./build/tshape info --summary examples/*.npy examples/*.npz examples/*.safetensors examples/*.params
echo
echo '$ tshape info examples/image.npy'
./build/tshape info examples/image.npy
echo "\$ printf '(3, 224, 224)\\\\n(64,3,7,7)\\\\n[1000]\\\\n' | tshape size"
printf '(3, 224, 224)\n(64,3,7,7)\n[1000]\n' | ./build/tshape size
