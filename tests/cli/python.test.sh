#!/bin/sh
# slow: the Python module's pytest suite twice (about 15 s), a venv install
# python.test.sh - the tshape Python module (python/, issue 27):
#   1. its pytest suite (python/tests) against the build under test directly:
#      PYTHONPATH=python, TSHAPE_LIBRARY=<build>/libtshape.so.0;
#   2. the README's install: `/usr/bin/python3 -m venv --system-site-packages
#      V && V/bin/pip install ./python` in a temporary folder, offline
#      (PIP_NO_INDEX=1: nothing may be downloaded), then `import tshape` from
#      the venv, outside the source tree, loads the copy of libtshape that
#      pip installed with it, and the suite runs again with the venv's
#      Python.
# Run by tests/cli/run.sh from the repository root with `tshape` on PATH;
# the build directory under test is the one that holds that tshape. A
# sanitizer build's library cannot be loaded by a Python that is not built
# with the sanitizer: the suite then runs with the sanitizer's runtime
# preloaded (LD_PRELOAD, leak detection off: Python frees nothing at exit).
# Exit 0 pass, 77 skip (no python3-pytest or python3-venv), 1 fail.
set -u
fail() { echo "python.test.sh: $*" >&2; exit 1; }
skip() { echo "python.test.sh: $*, skipped" >&2; exit 77; }

py=/usr/bin/python3
[ -x "$py" ] || skip "no /usr/bin/python3"
"$py" -c 'import pytest, numpy' 2>/dev/null || skip "no python3-pytest or python3-numpy"
bin=$(command -v tshape) || fail "no tshape on PATH"
bin=$(readlink -f "$bin")
B=$(dirname "$bin")
root=$(pwd)
[ -f "$root/python/setup.py" ] || fail "run from the repository root"
VERSION=$(sed -n 's/^#define TS_VERSION_STRING "\(.*\)"/\1/p' include/tshape.h)
lib=$B/libtshape.so.$VERSION
[ -f "$lib" ] || make -s B="${B#"$root"/}" "${B#"$root"/}/libtshape.so.$VERSION" ||
    fail "cannot build $lib"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# A sanitizer build: its runtime must come first in the process.
preload=
for rt in asan ubsan; do
    if nm -D "$lib" 2>/dev/null | grep -q "__${rt}_"; then
        so=$(${CC:-cc} -print-file-name=lib$rt.so 2>/dev/null)
        [ -f "$so" ] || so=$(gcc -print-file-name=lib$rt.so 2>/dev/null)
        [ -f "$so" ] || skip "the library is built with $rt and lib$rt.so is not found"
        preload="$preload${preload:+:}$so"
    fi
done

run_suite() { # PYTHON [ENV...]: the whole suite, from the repository root
    p=$1; shift
    out=$tmp/pytest.out
    env "$@" ${preload:+LD_PRELOAD="$preload"} ASAN_OPTIONS=detect_leaks=0 \
        TSHAPE="$bin" "$p" -m pytest -q -p no:cacheprovider python/tests >"$out" 2>&1
    rc=$?
    tail -1 "$out"
    [ $rc = 0 ] || { tail -40 "$out" >&2; fail "pytest failed ($p)"; }
}

# 0. no unused import or undefined name (when pyflakes is installed)
if "$py" -m pyflakes --version >/dev/null 2>&1; then
    "$py" -m pyflakes python/tshape python/tests python/setup.py bench/python.py ||
        fail "pyflakes"
fi

# 1. the source tree against the build under test
echo "python.test.sh: against $lib"
run_suite "$py" PYTHONPATH="$root/python" TSHAPE_LIBRARY="$lib"

# 2. installed into a venv as the README says, offline
[ -n "$preload" ] && { echo "python.test.sh: venv install not checked with a sanitizer build"; exit 0; }
"$py" -c 'import venv, ensurepip' 2>/dev/null || skip "no python3-venv"
"$py" -m venv --system-site-packages "$tmp/V" >"$tmp/venv.out" 2>&1 ||
    { cat "$tmp/venv.out" >&2; fail "venv failed"; }
PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1 "$tmp/V/bin/pip" install -q ./python \
    >"$tmp/pip.out" 2>&1 || { cat "$tmp/pip.out" >&2; fail "pip install ./python failed"; }
rm -rf python/build python/tshape.egg-info
got=$(cd "$tmp" && env -u TSHAPE_LIBRARY "$tmp/V/bin/python" -c '
import tshape, os
print(os.path.relpath(tshape.__file__, os.environ["VIRTUAL_ENV"] if "VIRTUAL_ENV" in os.environ else "/"))
print(tshape.library_path())
print(tshape.size((3, 224, 224)))' 2>&1) || fail "import tshape from the venv: $got"
echo "$got" | sed -n 2p | grep -q "^$tmp/V/lib/.*/site-packages/tshape/libtshape.so.0\$" ||
    fail "the venv's tshape does not load its own library: $got"
[ "$(echo "$got" | sed -n 3p)" = 150528 ] || fail "tshape.size: $got"
echo "python.test.sh: installed in a venv offline: $(echo "$got" | sed -n 2p | sed "s|$tmp|TMP|")"
run_suite "$tmp/V/bin/python" -u TSHAPE_LIBRARY -u PYTHONPATH
