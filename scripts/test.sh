#!/bin/sh
# test.sh - installs what the tests need, then runs the whole suite: unit
# suites and CLI golden tests (make check), then the same under AddressSanitizer
# and UndefinedBehaviorSanitizer (make sanitize), after a warning-free build of
# the library, the program and the test programs with clang (-Werror; the
# other builds use gcc); last, the Debian packages are built, installed and
# smoke-tested (scripts/packages.sh). The README's second command; .ci/run
# runs exactly this.
set -e
cd "$(dirname "$0")/.."
sh scripts/deps.sh gcc g++ make pkg-config libc6-dev libjansson-dev zlib1g-dev libzip-dev libxxhash-dev libseccomp-dev libexpat1-dev liburing-dev check \
    python3-numpy clang libclang-rt-14-dev libdlpack-dev libhdf5-103-1 libcurl4-openssl-dev \
    nginx-light openssl flatbuffers-compiler python3-flatbuffers strace libzstd1 libblosc1 libdeflate0 libisal2 \
    python3-pytest python3-venv python3-pip python3-setuptools python3-wheel
make -s -j2 CC=clang B=build-clang WERROR=-Werror all build-clang/run_tests build-clang/tsvalues
make -s -j2 check
make -s sanitize
sh scripts/packages.sh
