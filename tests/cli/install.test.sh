#!/bin/sh
# slow: builds the shared library and the examples, installs three times
# install.test.sh - `make install` into a DESTDIR, then use the installed
# tree as a user would: every file in place (soname links, header, tshape.pc,
# man pages and completion when the repository has them), pkg-config gives
# working flags, each examples/c/*.c builds against the installed library
# (shared and static) and prints exactly what it should; then `make
# uninstall` leaves no installed file behind.
# The main install uses PREFIX=/opt/tshape-test, not the default; two more
# (PREFIX=/usr with a multiarch LIBDIR, then the default PREFIX) check that
# each tshape.pc carries the directories given to that `make install`
# (issue 9, defect 6: it kept the PREFIX of the build that generated it).
#
# Run by tests/cli/run.sh from the repository root with `tshape` on PATH; the
# build directory under test is the one that holds that tshape (build/,
# build-asan/, ...). Exit 0 pass, 77 skip, 1 fail.
set -u
fail() { echo "install.test.sh: $*" >&2; exit 1; }

bin=$(command -v tshape) || { echo "install.test.sh: no tshape on PATH" >&2; exit 77; }
bin=$(readlink -f "$bin")
B=$(dirname "$bin")
root=$(pwd)
[ -f "$root/Makefile" ] && [ -f "$root/include/tshape.h" ] || fail "run from the repository root"
case $B in
    "$root"/*) B=${B#"$root"/} ;;
    *) echo "install.test.sh: $bin is not in a build directory of $root, skipped" >&2; exit 77 ;;
esac
for t in pkg-config readelf; do
    command -v $t >/dev/null 2>&1 || { echo "install.test.sh: $t missing, skipped" >&2; exit 77; }
done
CC=${CC:-cc}
VERSION=$(sed -n 's/^#define TS_VERSION_STRING "\(.*\)"/\1/p' include/tshape.h)
MAJOR=${VERSION%%.*}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dest=$tmp/dest
prefix=/opt/tshape-test
p=$dest$prefix

# ---- install ---------------------------------------------------------------
# `all` is up to date when the suite runs; building it here would only add
# the shared library and tshape.pc, which `make check` does not need.
if ! make -C "$root" B="$B" DESTDIR="$dest" PREFIX="$prefix" install > "$tmp/install.log" 2>&1; then
    cat "$tmp/install.log" >&2
    fail "make install failed"
fi

# A sanitizer build's library needs the same runtime in every program that
# links it (make asan, make ubsan).
san=
if nm "$p/lib/libtshape.a" 2>/dev/null | grep -q ' U __asan_'; then
    san="$san -fsanitize=address"
fi
if nm "$p/lib/libtshape.a" 2>/dev/null | grep -q ' U __ubsan_handle'; then
    san="$san -fsanitize=undefined"
fi

expect_file() { [ -f "$1" ] && [ ! -L "$1" ] || fail "not installed: ${1#$dest}"; }
expect_link() { # LINK TARGET
    [ -L "$1" ] || fail "not a symlink: ${1#$dest}"
    [ "$(readlink "$1")" = "$2" ] || fail "${1#$dest} points to $(readlink "$1"), expected $2"
}
expect_file "$p/bin/tshape"
[ -x "$p/bin/tshape" ] || fail "bin/tshape is not executable"
expect_file "$p/lib/libtshape.a"
expect_file "$p/lib/libtshape.so.$VERSION"
expect_link "$p/lib/libtshape.so.$MAJOR" "libtshape.so.$VERSION"
expect_link "$p/lib/libtshape.so" "libtshape.so.$VERSION"
soname=$(readelf -d "$p/lib/libtshape.so.$VERSION" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = "libtshape.so.$MAJOR" ] || fail "SONAME is '$soname', expected libtshape.so.$MAJOR"
expect_file "$p/include/tshape.h"
cmp -s "$p/include/tshape.h" include/tshape.h || fail "installed tshape.h differs from include/tshape.h"
expect_file "$p/lib/pkgconfig/tshape.pc"
expect_file "$p/share/man/man1/tshape.1"
if [ -f man/libtshape.3 ]; then expect_file "$p/share/man/man3/libtshape.3"; fi
if [ -f completions/tshape.bash ]; then
    expect_file "$p/share/bash-completion/completions/tshape"
    cmp -s "$p/share/bash-completion/completions/tshape" completions/tshape.bash ||
        fail "installed completion differs from completions/tshape.bash"
fi
[ "$("$p/bin/tshape" --version)" = "tshape $VERSION" ] || fail "installed tshape --version is wrong"

# ---- pkg-config ------------------------------------------------------------
# expect_pc FILE PREFIX LIBDIR INCLUDEDIR: FILE is tshape.pc.in with exactly
# these directories (those under PREFIX written relative to ${prefix}) and
# the version, and pkg-config reads the directories back.
[ "$(sed -n '1,3p' tshape.pc.in | tr '\n' ' ')" = 'prefix=@PREFIX@ libdir=@LIBDIR@ includedir=@INCLUDEDIR@ ' ] ||
    fail "tshape.pc.in no longer starts with the prefix, libdir and includedir lines"
expect_pc() {
    expect_file "$1"
    {
        echo "prefix=$2"
        echo "libdir=$3" | sed "s|=$2/|=\${prefix}/|"
        echo "includedir=$4" | sed "s|=$2/|=\${prefix}/|"
        sed -e '1,3d' -e "s|@VERSION@|$VERSION|" tshape.pc.in
    } > "$tmp/expected.pc"
    diff "$tmp/expected.pc" "$1" >&2 || fail "${1#$tmp/} differs from the expected file (above)"
    for v in prefix:"$2" libdir:"$3" includedir:"$4"; do
        got=$(PKG_CONFIG_PATH=$(dirname "$1") pkg-config --variable="${v%%:*}" tshape)
        [ "$got" = "${v#*:}" ] || fail "pkg-config --variable=${v%%:*} gave '$got', expected '${v#*:}'"
    done
}
expect_pc "$p/lib/pkgconfig/tshape.pc" "$prefix" "$prefix/lib" "$prefix/include"
# Read in place, tshape.pc names the final paths...
# shellcheck disable=SC2046 # split and joined again: one space between flags
flags=$(echo $(PKG_CONFIG_PATH=$p/lib/pkgconfig pkg-config --cflags --libs tshape))
[ "$flags" = "-I$prefix/include -L$prefix/lib -ltshape" ] ||
    fail "pkg-config --cflags --libs gave '$flags', expected '-I$prefix/include -L$prefix/lib -ltshape'"
# ...which the sysroot variable prefixes with DESTDIR, as for a cross-build:
# the flags the examples below are built with.
pc() { PKG_CONFIG_PATH=$p/lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$dest pkg-config "$@" tshape; }
[ "$(pc --modversion)" = "$VERSION" ] || fail "pkg-config --modversion is '$(pc --modversion)'"
cflags=$(pc --cflags) || fail "pkg-config --cflags failed"
libs=$(pc --libs) || fail "pkg-config --libs failed"
case " $cflags " in *" -I$p/include "*) ;; *) fail "pkg-config --cflags gave '$cflags'";; esac
case " $libs " in *" -L$p/lib "*"-ltshape "*) ;; *) fail "pkg-config --libs gave '$libs'";; esac
static_libs=$(pc --static --libs) || fail "pkg-config --static --libs failed"

# ---- build and run the examples -------------------------------------------
# Input files written here, byte by byte from the format specs, so the
# expected output does not depend on fixtures other tests own.
npy_header() { # DICT: an npy 1.0 header padded with spaces to 128 bytes
    pad=$((128 - 10 - ${#1} - 1))
    printf '\223NUMPY\001\000\166\000%s%*s\n' "$1" "$pad" ''
}
{
    npy_header "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }"
    # 0.5 1 1.5 2 2.5 3 as little-endian float32
    printf '\000\000\000\077\000\000\200\077\000\000\300\077\000\000\000\100\000\000\040\100\000\000\100\100'
} > "$tmp/c.npy"
{
    npy_header "{'descr': '<f8', 'fortran_order': True, 'shape': (2, 3), }"
    printf '\000\000\000\000\000\000\320\077' # 0.25
    printf '%040d' 0 | tr 0 '\000'
} > "$tmp/f.npy"
{
    h='{"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}'
    printf '\070\000\000\000\000\000\000\000%s  ' "$h" # 54 + 2 spaces = 56
    printf '\000\000\200\077\000\000\000\100'        # 1.0 2.0
} > "$tmp/t.safetensors"
[ "$(wc -c < "$tmp/c.npy")" = 152 ] && [ "$(wc -c < "$tmp/f.npy")" = 176 ] &&
    [ "$(wc -c < "$tmp/t.safetensors")" = 72 ] || fail "test inputs have the wrong size"

cat > "$tmp/shape_demo.expected" <<'EOF'
shape   (2,3,4,5)
list    [2, 3, 4, 5]
ndim    4
size    120
flat2d  (24,5)
flat3d  (2,3,20) around axis 1
saved   36 bytes, loads back equal
EOF
cat > "$tmp/inspect.expected" <<'EOF'
c.npy: npy 1.0, 1 array
  -            (2,3)        float32    data at byte 128
f.npy: npy 1.0, 1 array
  -            (2,3)        float64    data at byte 128
t.safetensors: safetensors, 1 array
  w            (2,)         float32    data at byte 64
EOF
cat > "$tmp/dlpack_view.expected" <<'EOF'
-: dtype (2,32,1) device (1,0) shape (2,3) strides (3,1) byte_offset 128 first 0.5
-: dtype (2,64,1) device (1,0) shape (2,3) strides (1,2) byte_offset 128 first 0.25
w: dtype (2,32,1) device (1,0) shape (2,) strides (1,) byte_offset 64 first 1
EOF

run_example() { # NAME EXE: runs the example on its inputs, in $tmp
    case $1 in
        shape_demo) (cd "$tmp" && LD_LIBRARY_PATH=$p/lib "$2") ;;
        inspect) (cd "$tmp" && LD_LIBRARY_PATH=$p/lib "$2" c.npy f.npy t.safetensors) ;;
        dlpack_view)
            (cd "$tmp" && for f in c.npy f.npy t.safetensors; do
                LD_LIBRARY_PATH=$p/lib "$2" "$f" || exit 1
            done) ;;
        *) (cd "$tmp" && LD_LIBRARY_PATH=$p/lib "$2") ;;
    esac
}

n=0
for src in examples/c/*.c; do
    [ -f "$src" ] || continue
    name=$(basename "$src" .c)
    # shared: -ltshape resolves to the installed libtshape.so
    # shellcheck disable=SC2086
    $CC -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror $san $cflags "$src" \
        -o "$tmp/$name" $libs 2> "$tmp/cc.log" || { cat "$tmp/cc.log" >&2; fail "$src does not build"; }
    LD_LIBRARY_PATH=$p/lib ldd "$tmp/$name" | grep -q "$p/lib/libtshape.so.$MAJOR" ||
        fail "$name is not linked with the installed libtshape.so.$MAJOR"
    # static: the installed archive plus the dependencies tshape.pc lists
    # shellcheck disable=SC2086
    $CC -std=c11 -D_POSIX_C_SOURCE=200809L $san $cflags "$src" -o "$tmp/$name.static" \
        "$p/lib/libtshape.a" $(echo " $static_libs " | sed 's/ -ltshape / /') -lm \
        2> "$tmp/cc.log" || { cat "$tmp/cc.log" >&2; fail "$src does not link statically"; }
    for exe in "$tmp/$name" "$tmp/$name.static"; do
        run_example "$name" "$exe" > "$tmp/out" 2> "$tmp/err" || {
            cat "$tmp/err" >&2
            fail "${exe#$tmp/} failed"
        }
        if [ -f "$tmp/$name.expected" ]; then
            diff "$tmp/$name.expected" "$tmp/out" >&2 || fail "${exe#$tmp/}: unexpected output"
        else
            fail "no expected output for examples/c/$name.c: add it to install.test.sh"
        fi
        [ -s "$tmp/err" ] && { cat "$tmp/err" >&2; fail "${exe#$tmp/} wrote to stderr"; }
    done
    n=$((n + 1))
done
[ $n -gt 0 ] || fail "no examples/c/*.c"

# ---- uninstall -------------------------------------------------------------
if ! make -C "$root" B="$B" DESTDIR="$dest" PREFIX="$prefix" uninstall > "$tmp/uninstall.log" 2>&1; then
    cat "$tmp/uninstall.log" >&2
    fail "make uninstall failed"
fi
left=$(find "$dest" ! -type d)
[ -z "$left" ] || fail "left after make uninstall: $(echo "$left" | sed "s|$dest||g" | tr '\n' ' ')"

# ---- tshape.pc follows each install's directories --------------------------
# Installed after the one above from the same build directory: a tshape.pc
# generated once at build time would still say /opt/tshape-test.
n_pc=1
for conf in "/usr /usr/lib/x86_64-linux-gnu" default; do
    d=$tmp/dest$n_pc
    n_pc=$((n_pc + 1))
    if [ "$conf" = default ]; then
        set -- # the Makefile's PREFIX
        pre=/usr/local lib=/usr/local/lib
    else
        pre=${conf% *} lib=${conf#* }
        set -- PREFIX="$pre" LIBDIR="$lib"
    fi
    make -C "$root" B="$B" DESTDIR="$d" "$@" install > "$tmp/install.log" 2>&1 ||
        { cat "$tmp/install.log" >&2; fail "make install $* failed"; }
    expect_file "$d$lib/libtshape.so.$VERSION"
    expect_pc "$d$lib/pkgconfig/tshape.pc" "$pre" "$lib" "$pre/include"
    make -C "$root" B="$B" DESTDIR="$d" "$@" uninstall > "$tmp/uninstall.log" 2>&1 ||
        { cat "$tmp/uninstall.log" >&2; fail "make uninstall $* failed"; }
    left=$(find "$d" ! -type d)
    [ -z "$left" ] || fail "left after make uninstall $*: $(echo "$left" | sed "s|$d||g" | tr '\n' ' ')"
done
echo "install.test.sh: installed, built $n examples (shared and static) against it, uninstalled; tshape.pc right for $n_pc prefixes"
exit 0
