#!/bin/sh
# quickstart.sh - installs what the build needs, builds tshape, inspects the
# example files and runs one shape pipeline, then says where tshape is and
# how to put it on PATH. The README's first command.
#   sh scripts/quickstart.sh           all of it
#   sh scripts/quickstart.sh --where   only the closing note (where tshape is)
set -e
cd "$(dirname "$0")/.."

# The closing note: the examples call `tshape`, but the build leaves it in
# build/, which is not on PATH (issue 15 defect 7).
where() {
    echo "tshape is built at $(pwd)/build/tshape; it is not installed."
    if command -v tshape >/dev/null 2>&1; then
        echo "(\`tshape\` on your PATH is $(command -v tshape), another copy.)"
    fi
    echo "To call it as \`tshape\`, install it under your home directory:"
    echo "    make install PREFIX=\$HOME/.local"
    case ":$PATH:" in
    *":$HOME/.local/bin:"*) echo "(\$HOME/.local/bin is already on your PATH.)" ;;
    *) echo "and add \$HOME/.local/bin to PATH:  export PATH=\"\$HOME/.local/bin:\$PATH\"" ;;
    esac
    echo "or system-wide: sudo make install (PREFIX=/usr/local); or run ./build/tshape."
}
if [ "${1:-}" = "--where" ]; then
    where
    exit 0
fi

sh scripts/deps.sh gcc make pkg-config libc6-dev libjansson-dev zlib1g-dev libzip-dev libxxhash-dev libcurl4-openssl-dev libseccomp-dev libexpat1-dev liburing-dev
make -s -j2
echo '$ tshape info --summary examples/*.npy examples/*.npz examples/*.safetensors examples/*.params'
./build/tshape info --summary examples/*.npy examples/*.npz examples/*.safetensors examples/*.params
echo
echo '$ tshape info examples/image.npy'
./build/tshape info examples/image.npy
echo "\$ printf '(3, 224, 224)\\\\n(64,3,7,7)\\\\n[1000]\\\\n' | tshape size"
printf '(3, 224, 224)\n(64,3,7,7)\n[1000]\n' | ./build/tshape size
echo
where
