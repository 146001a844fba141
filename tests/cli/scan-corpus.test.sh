#!/bin/sh
# scan-corpus.test.sh - issue 21: tshape scan and tshape info on the corpora
# of tests/fixtures/scan/ (gen_attacks.py, gen_scan_clean.py) and the five
# defects, each from a small generated file.
#   - attacks/: every file gives the exit status and names the global or
#     finding expected.tsv says; tshape info never exits 0 on a dangerous
#     one; and nothing ran: the payloads would create TSHAPE_SCAN_PWNED in
#     the current folder, which must not exist afterwards;
#   - clean/ (torch.save, torch.jit.save, NumPy): exit 0, no record of class
#     unknown or dangerous;
#   - routine/ (Namespace, NumPy scalars and RNG state): info lists every
#     tensor torch.load returns, and the bytes at each data_offset have the
#     SHA-256 torch gave (expected.json);
#   - every --json record of scan matches man/tshape.1 JSON RECORDS, and
#     --sarif is a SARIF 2.1.0 log whose results name their rules;
#   - defects: a plain-pickle pytorch_model.bin in a folder (info and diff
#     name it or report it, never an empty success), 512 MiB of BININT1 in a
#     deflated data.pkl (the value stack limit, at once), TUPLE1 x 1,000,000
#     (the depth limit, at once), dotted dangerous names, and a storage
#     member of an unknown zip method (named, not "deflated").
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 2
py=/usr/bin/python3
[ -x "$py" ] || { echo "scan-corpus.test.sh: no $py, skipped"; exit 77; }
: "${TSHAPE:=build/tshape}"
case $TSHAPE in /*) ;; *) TSHAPE=$root/$TSHAPE;; esac
fail=0
bad() { echo "scan-corpus.test.sh: $*"; fail=1; }
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
A=$root/tests/fixtures/scan/attacks
tab=$(printf '\t')

# ---- attacks, run from a folder where a payload that ran would leave a file
mkdir "$tmp/cwd"
(
    cd "$tmp/cwd" || exit 2
    while IFS="$tab" read -r f st text; do
        case $f in \#*|'') continue;; esac
        out=$("$TSHAPE" scan "$A/$f" 2>&1)
        rc=$?
        [ "$rc" = "$st" ] || echo "FAIL attack $f: scan exit $rc, expected $st"
        printf '%s' "$out" | grep -qF -- "$text" || echo "FAIL attack $f: no '$text' in: $out"
        # info reads the file torch.load reads and refuses what is dangerous
        "$TSHAPE" info "$A/$f" >/dev/null 2>&1
        irc=$?
        case $f in
            # not dangerous for info: a BUILD on a module is inert here; an
            # object array's pickle is never read; the duplicate and second
            # folder read the clean data.pkl that torch reads first
            build_on_module.pkl|object_array.npy|object_array.npz|zip_duplicate.pt|\
            zip_second_folder.pt) ;;
            *) [ "$irc" = 2 ] || echo "FAIL attack $f: info exit $irc, expected 2";;
        esac
        "$TSHAPE" --json scan "$A/$f" > /dev/null 2>&1
        "$TSHAPE" scan --sarif "$A/$f" > /dev/null 2>&1
    done < "$A/expected.tsv"
    "$TSHAPE" scan "$A" > /dev/null 2>&1
    [ $? = 1 ] || echo "FAIL attack folder: scan exit not 1"
    if [ -e TSHAPE_SCAN_PWNED ]; then echo "FAIL: a payload ran: TSHAPE_SCAN_PWNED exists"; fi
) > "$tmp/attacks.log"
if grep -q FAIL "$tmp/attacks.log"; then cat "$tmp/attacks.log"; fail=1; fi
n=$(grep -vc '^#' "$A/expected.tsv")
[ "$n" -ge 45 ] || bad "only $n attack files"

# ---- the clean corpus
"$TSHAPE" --json scan tests/fixtures/scan/clean > "$tmp/clean.json" 2> "$tmp/clean.err"
rc=$?
[ $rc = 0 ] || { bad "clean corpus: exit $rc"; cat "$tmp/clean.err"; }
"$py" - "$tmp/clean.json" <<'PY' || fail=1
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
files = [r for r in recs if r["type"] == "verdict"]
flagged = [r for r in recs if r.get("class") in ("unknown", "dangerous")]
torch_files = [r for r in files if r["container"] in ("torch.save zip", "torch.save legacy",
                                                      "TorchScript")]
if len(files) < 35 or len(torch_files) < 30:
    sys.exit("clean corpus: %d files, %d torch files" % (len(files), len(torch_files)))
if flagged:
    sys.exit("clean corpus: flagged: %s" % flagged[:3])
if any(r["error"] for r in files):
    sys.exit("clean corpus: errors")
PY

# ---- routine checkpoints: every tensor torch returns, bytes at data_offset
for f in tests/fixtures/scan/routine/*.pt; do
    "$TSHAPE" info --json "$f" || bad "info $f failed"
done > "$tmp/routine.json"
"$py" - "$tmp/routine.json" tests/fixtures/scan/routine/expected.json <<'PY' || fail=1
import hashlib, json, os, sys
got = {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    got.setdefault(os.path.basename(r["file"]), {})[r["name"]] = r
exp = json.load(open(sys.argv[2]))["files"]
bad = 0
for f, tensors in exp.items():
    data = open(os.path.join(os.path.dirname(sys.argv[2]), f), "rb").read()
    for name, t in tensors.items():
        r = got.get(f, {}).get(name)
        if not r:
            print("routine: %s: tensor %s missing" % (f, name)); bad += 1; continue
        if r["dtype"] != t["dtype"] or r["shape"] != t["shape"]:
            print("routine: %s: %s is %s %s, torch says %s %s" % (
                f, name, r["dtype"], r["shape"], t["dtype"], t["shape"])); bad += 1
        if r["data_offset"] is None:
            print("routine: %s: %s has no data_offset" % (f, name)); bad += 1; continue
        h = hashlib.sha256(data[r["data_offset"]:r["data_offset"] + r["nbytes"]]).hexdigest()
        if h != t["sha256"]:
            print("routine: %s: %s: bytes at %d differ from torch's" % (
                f, name, r["data_offset"])); bad += 1
n = sum(len(t) for t in exp.values())
if n < 40:
    print("routine: only %d tensors" % n); bad += 1
sys.exit(1 if bad else 0)
PY

# ---- torch 1.13's weights_only answers (gen_scan_clean.py ran torch.load
# (weights_only=True) on each file) against tshape's
"$TSHAPE" --json scan tests/fixtures/scan/clean tests/fixtures/scan/routine \
    > "$tmp/wo.json" 2>/dev/null
"$py" - "$tmp/wo.json" tests/fixtures/scan/routine/weights_only.json <<'PY' || fail=1
import json, sys
verdicts = {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["type"] == "verdict":
        verdicts[r["file"][len("tests/fixtures/"):]] = r["weights_only"]
exp = json.load(open(sys.argv[2]))["loads"]
bad = 0
for f, loads in exp.items():
    wo = verdicts.get(f)
    mine = wo["torch_1_13"]["verdict"] if wo else None
    if loads != (mine in ("accepted", "torch.jit.load")):
        print("weights_only: %s: torch 1.13 %s it, tshape says %s" % (
            f, "loads" if loads else "refuses", mine)); bad += 1
if len(exp) < 40 or sum(exp.values()) < 10:
    print("weights_only: only %d files" % len(exp)); bad += 1
sys.exit(1 if bad else 0)
PY

# ---- a folder of more than 64 files is scanned on several threads: the
# same records, in path order, as file by file
"$TSHAPE" --json scan tests/fixtures/scan > "$tmp/threads.json" 2>/dev/null
find tests/fixtures/scan -type f ! -name '.*' | LC_ALL=C sort | while read -r f; do
    "$TSHAPE" --json scan "$f" 2>/dev/null
done > "$tmp/one-by-one.json"
[ "$(grep -c . "$tmp/threads.json")" -gt 200 ] || bad "threads: too few records"
cmp -s "$tmp/threads.json" "$tmp/one-by-one.json" ||
    bad "a folder's records differ from its files' one by one:" \
        "$(diff "$tmp/threads.json" "$tmp/one-by-one.json" | head -5)"

# ---- JSON records and SARIF
{ "$TSHAPE" --json scan tests/fixtures/scan; "$TSHAPE" --json scan tests/fixtures/pytorch; } \
    2>/dev/null > "$tmp/all.json"
"$py" tests/cli/json_records.py --lines man/tshape.1 < "$tmp/all.json" > "$tmp/records.log" ||
    { head -20 "$tmp/records.log"; fail=1; }
"$TSHAPE" scan --sarif tests/fixtures/scan/attacks tests/fixtures/scan/clean \
    > "$tmp/sarif.json" 2>/dev/null
"$py" - "$tmp/sarif.json" <<'PY' || fail=1
import json, sys
log = json.load(open(sys.argv[1]))
assert log["version"] == "2.1.0" and "sarif-2.1.0" in log["$schema"], "version"
run, = log["runs"]
rules = run["tool"]["driver"]["rules"]
ids = [r["id"] for r in rules]
assert run["tool"]["driver"]["name"] == "tshape"
uris = {a["location"]["uri"] for a in run["artifacts"]}
assert len(uris) > 80, len(uris)
assert run["results"], "no results"
for r in run["results"]:
    assert r["ruleId"] == ids[r["ruleIndex"]], r
    assert r["level"] in ("error", "warning", "note", "none"), r
    assert r["message"]["text"], r
    loc = r["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"]["uri"] in uris, loc
    if "region" in loc:
        assert loc["region"]["byteOffset"] >= 0
errors = [r for r in run["results"] if r["level"] == "error"]
assert any("os.system" in r["message"]["text"] for r in errors)
assert not any("/clean/" in r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
               and r["level"] != "note" for r in run["results"]), "clean file flagged"
PY

# ---- defect 1: a plain-pickle pytorch_model.bin in a folder
mkdir -p "$tmp/m1" "$tmp/m2" "$tmp/m3"
"$py" -c "
import pickle, sys
pickle.dump({'epoch': 3}, open(sys.argv[1] + '/pytorch_model.bin', 'wb'), protocol=2)
open(sys.argv[1] + '/config.json', 'w').write('{}')
open(sys.argv[2] + '/pytorch_model.bin', 'wb').write(open('$A/pytorch_model.bin', 'rb').read())
open(sys.argv[3] + '/pytorch_model.bin', 'wb').write(b'not a model at all')
" "$tmp/m1" "$tmp/m2" "$tmp/m3"
out=$("$TSHAPE" info "$tmp/m1" 2>&1)
[ $? = 0 ] && printf '%s' "$out" | grep -q "pytorch_model.bin: no arrays" ||
    bad "defect 1: info of a folder whose model holds no arrays: $out"
for d in m2 m3; do
    out=$("$TSHAPE" info "$tmp/$d" 2>&1)
    [ $? = 2 ] && printf '%s' "$out" | grep -q "pytorch_model.bin" ||
        bad "defect 1: info $d: $out"
    out=$("$TSHAPE" diff "$tmp/$d" "$tmp/m1" 2>&1)
    [ $? = 2 ] && printf '%s' "$out" | grep -q "pytorch_model.bin" ||
        bad "defect 1: diff $d: $out"
done

# ---- defect 2: 512 MiB of BININT1 in a deflated data.pkl (522 KB of zip)
"$py" - "$tmp/bomb.pt" <<'PY'
import struct, sys, zlib
c = zlib.compressobj(9, zlib.DEFLATED, -15)
comp, crc, n = [c.compress(b"\x80\x02")], zlib.crc32(b"\x80\x02"), 2
chunk = b"K\x00" * (1 << 20)
for _ in range(256):
    comp.append(c.compress(chunk)); crc = zlib.crc32(chunk, crc); n += len(chunk)
comp.append(c.flush())
data = b"".join(comp)
name = b"bomb/data.pkl"
local = struct.pack("<IHHHHHIIIHH", 0x04034b50, 20, 0, 8, 0, 0, crc, len(data), n,
                    len(name), 0) + name + data
cd = struct.pack("<IHHHHHHIIIHHHHHII", 0x02014b50, 20, 20, 0, 8, 0, 0, crc, len(data), n,
                 len(name), 0, 0, 0, 0, 0, 0) + name
open(sys.argv[1], "wb").write(local + cd + struct.pack("<IHHHHIIH", 0x06054b50, 0, 0, 1, 1,
                                                       len(cd), len(local), 0))
PY
out=$("$TSHAPE" info "$tmp/bomb.pt" 2>&1)
printf '%s' "$out" | grep -q "value stack grows beyond 1048576 entries" ||
    bad "defect 2: $out"
out=$("$TSHAPE" scan "$tmp/bomb.pt" 2>&1)
[ $? = 2 ] && printf '%s' "$out" | grep -q "value stack" || bad "defect 2 (scan): $out"

# ---- defect 3: TUPLE1 x 1,000,000
"$py" -c "import sys; open(sys.argv[1], 'wb').write(b'\x80\x02K\x00' + b'\x85' * 1000000 + b'.')" \
    "$tmp/tuple1.pkl"
out=$("$TSHAPE" info "$tmp/tuple1.pkl" 2>&1)
printf '%s' "$out" | grep -q "pickle byte 1004: values nested more than 1000 deep" ||
    bad "defect 3: $out"

# ---- defect 4: dotted dangerous names
for f in dotted_torch_os_system load_from_bytes fx_reduce_graph_module timeit; do
    out=$("$TSHAPE" info "$A/$f.pkl" 2>&1)
    printf '%s' "$out" | grep -q "is dangerous" || bad "defect 4: $f: $out"
done

# ---- defect 5: a storage member of an unknown zip method
out=$("$TSHAPE" info tests/fixtures/scan/defects/bzip2_storage.pt 2>&1)
printf '%s' "$out" | grep -q "compressed with zip method 12 (bzip2), which tshape cannot read" ||
    bad "defect 5: $out"
printf '%s' "$out" | grep -q "is deflated" && bad "defect 5: called deflated: $out"

exit $fail
