#!/bin/sh
# json-records.test.sh - issue 15 defect 5: `tshape info --json` (and with
# --summary, --metadata) of every fixture and every file of ../shared/corpus
# (when present), and of `tshape convert --json`, matches the record schema
# of man/tshape.1 (JSON RECORDS):
# the same keys for every record of a kind, of the documented types, and at
# least one record for each file that opens. Skipped (77) without python3.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 2
py=/usr/bin/python3
[ -x "$py" ] || { echo "json-records.test.sh: no $py, skipped"; exit 77; }
: "${TSHAPE:=build/tshape}"
case $TSHAPE in /*) ;; *) TSHAPE=$root/$TSHAPE;; esac
corpus=$root/../shared/corpus
list=$(mktemp) || exit 2
trap 'rm -f "$list"' EXIT
find tests/fixtures examples -type f ! -name '*.py' | LC_ALL=C sort > "$list"
# model folders: their --metadata record (issue 20 item 18)
printf "%s\n" tests/fixtures/folders/llama tests/fixtures/model/hf >> "$list"
[ -d "$corpus" ] && find "$corpus" -type f ! -name '*.py' ! -name '*.json' ! -name '*.txt' | LC_ALL=C sort >> "$list"
# One process for all files (names are free of newlines here).
tr '\n' '\0' < "$list" | xargs -0 "$py" tests/cli/json_records.py "$TSHAPE" man/tshape.1 || exit 1
# The convert record (issue 14): with and without shared storages.
out=$(mktemp -d) || exit 2
trap 'rm -f "$list"; rm -rf "$out"' EXIT
{ "$TSHAPE" --json convert tests/fixtures/pytorch/hf_tied.bin "$out/a.safetensors" &&
  "$TSHAPE" --json convert --no-verify tests/fixtures/values/f4.npy "$out/b.npz"; } 2>/dev/null |
    "$py" tests/cli/json_records.py --lines man/tshape.1 || exit 1
# The verify records (issue 25): every fixture of an incident, deep.
for p in tests/fixtures/verify/* tests/fixtures/model/hf-bin; do
    "$TSHAPE" --json verify --deep "$p"
done 2>/dev/null | "$py" tests/cli/json_records.py --lines man/tshape.1 || exit 1
# The id record (issue 25).
"$TSHAPE" --json id --values tests/fixtures/model/hf examples/checkpoint.npz tests/fixtures/model/missing \
    2>/dev/null | "$py" tests/cli/json_records.py --lines man/tshape.1
