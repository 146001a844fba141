#!/bin/sh
# packages.sh - the Debian packages (issue 27): builds tshape, libtshape0,
# libtshape-dev and python3-tshape with `dpkg-buildpackage -us -uc -b` from a
# copy of the tracked files (so `debian/rules clean` never touches this
# tree's build folders), checks them with lintian at its default level (any
# E: or W: fails; each override in debian/*.lintian-overrides says why),
# installs them with `apt-get install ./*.deb`, and smoke-tests what was
# installed: the tshape program (info, --json, the man page, the
# completion), a C program built with pkg-config against the installed
# library, and the installed Python module (from a folder outside the source
# tree, so it must load the system's libtshape.so.0) on the example files,
# comparing its records with the installed program's. Then the packages are
# removed again (KEEP=1 keeps them).
#
# scripts/test.sh runs it last; it takes 2-4 minutes on 2 cores (the build
# without its own test run: the suite has run by then).
# Output: the .deb files in $OUT (default: a temporary folder, removed).
set -eu
cd "$(dirname "$0")/.."
root=$(pwd)
sh scripts/deps.sh gcc make pkg-config libc6-dev libjansson-dev zlib1g-dev libzip-dev \
    libxxhash-dev libcurl4-openssl-dev libseccomp-dev libexpat1-dev dpkg-dev debhelper dh-python python3-all \
    python3-setuptools python3-numpy lintian fakeroot
if [ "$(id -u)" = 0 ]; then sudo=; else sudo=sudo; fi
say() { echo "packages.sh: $*"; }
fail() { echo "packages.sh: $*" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
src=$work/tshape
mkdir -p "$src"
git ls-files -z | xargs -0 tar -cf - | tar -xf - -C "$src"
say "building in $src"
(cd "$src" && DEB_BUILD_OPTIONS="nocheck parallel=$(nproc)" \
    dpkg-buildpackage -us -uc -b >"$work/build.log" 2>&1) ||
    { tail -40 "$work/build.log" >&2; fail "dpkg-buildpackage failed (log above)"; }
debs=$(ls "$work"/*.deb | grep -v -- '-dbgsym_')
for d in $debs; do say "built $(basename "$d") ($(wc -c < "$d") bytes)"; done
[ "$(echo "$debs" | wc -l)" = 4 ] || fail "expected 4 packages, got: $debs"

# lintian at its default level: errors and warnings fail
lintian --suppress-tags running-with-root-privileges "$work"/*.changes >"$work/lintian.out" 2>&1 ||
    true
if grep -q '^[EW]:' "$work/lintian.out"; then
    cat "$work/lintian.out" >&2
    fail "lintian reports errors or warnings"
fi
say "lintian: no errors or warnings ($(grep -c '^[IN]:' "$work/lintian.out" || true) infos)"

# install them as a user would
pkgs="tshape libtshape0 libtshape-dev python3-tshape"
cleanup() {
    [ "${KEEP:-0}" = 1 ] ||
        $sudo env DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq $pkgs >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work/inst"
cp $debs "$work/inst/"
(cd "$work/inst" && $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
    --no-install-recommends ./*.deb >"$work/apt.log" 2>&1) ||
    { cat "$work/apt.log" >&2; fail "apt-get install ./*.deb failed"; }
say "installed: $(dpkg-query -W -f='${Package} ${Version}, ' $pkgs)"

# the program
cd "$work"
[ "$(command -v tshape)" = /usr/bin/tshape ] || fail "tshape is not /usr/bin/tshape"
/usr/bin/tshape --version | grep -q "^tshape " || fail "tshape --version"
/usr/bin/tshape info --summary "$root/examples/checkpoint.npz" >info.out 2>&1 ||
    fail "tshape info: $(cat info.out)"
grep -q 'conv1.weight	float32	(8,3,3,3)' info.out || fail "tshape info: $(cat info.out)"
[ "$(/usr/bin/tshape size '(3,224,224)')" = 150528 ] || fail "tshape size"
man -w tshape >/dev/null 2>&1 || [ -f /usr/share/man/man1/tshape.1.gz ] || fail "no man page"
[ -f /usr/share/man/man3/libtshape.3.gz ] || fail "no libtshape(3)"
[ -f /usr/share/bash-completion/completions/tshape ] || fail "no bash completion"
say "tshape: info, size, man pages and completion in place"

# a C program against the installed library, through pkg-config
cc -o shape_demo "$root/examples/c/shape_demo.c" $(pkg-config --cflags --libs tshape) ||
    fail "examples/c/shape_demo.c does not build against the installed library"
./shape_demo "(2,3,4,5)" | grep -q '^size    120$' || fail "shape_demo"
ldd shape_demo | grep -q '/libtshape.so.0 ' || fail "shape_demo is not linked to libtshape.so.0"
say "libtshape-dev: shape_demo built with pkg-config runs against libtshape.so.0"

# the Python module, installed: it loads the system's library
env -u TSHAPE_LIBRARY -u PYTHONPATH /usr/bin/python3 - "$root" <<'PY' || fail "python3-tshape"
import json, os, subprocess, sys, warnings
import tshape
root = sys.argv[1]
assert tshape.__file__.startswith("/usr/lib/python3/dist-packages/tshape/"), tshape.__file__
assert tshape.library_path() == "libtshape.so.0", tshape.library_path()
for name in ("checkpoint.npz", "model.safetensors", "resnet-0000.params", "image.npy"):
    path = os.path.join(root, "examples", name)
    out = subprocess.run(["/usr/bin/tshape", "--json", "info", path], capture_output=True,
                         text=True, check=True).stdout
    with tshape.open(path) as m:
        assert [a.to_dict() for a in m] == [json.loads(l) for l in out.splitlines()], name
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tshape.DtypeNote)
        arrays = tshape.load(path)
    assert len(arrays) == len(out.splitlines()), name
assert tshape.broadcast((8, 1, 6), (7, 1)) == (8, 7, 6)
print("packages.sh: python3-tshape: records equal the installed tshape's on examples/, "
      "load and shapes work (library %s)" % tshape.library_version())
PY
if [ -n "${OUT:-}" ]; then mkdir -p "$OUT" && cp $debs "$OUT/" && say "packages in $OUT"; fi
say "4 packages built, lintian-clean, installed and working"
