#!/bin/sh
# deps.sh PACKAGE... - installs the Debian packages that are missing, with
# apt-get (through sudo when not root). Used by quickstart.sh and test.sh.
missing=
for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
        missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ]; then sudo=; else sudo=sudo; fi
echo "Installing:$missing" >&2
$sudo apt-get update -qq &&
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
