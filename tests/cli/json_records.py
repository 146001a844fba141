#!/usr/bin/python3
"""json_records.py - checks `tshape info --json` (and `tshape diff --json` on
the pairs of DIFF_RUNS) against the schema written in
man/tshape.1, section JSON RECORDS (the manual is the one statement of it).

    json_records.py TSHAPE MANPAGE FILE...
    json_records.py --lines MANPAGE < RECORDS

For each FILE it runs `info --json`, `info --json --summary` and
`info --json --metadata` (raw TShape files, which are never detected, with
--format tshape32 and tshape64) and checks every output line: a JSON
object of one record kind, with exactly that kind's keys in the manual's
order, each of the type the manual gives. A run that succeeds (exit 0)
must print at least one record. Standard library only."""
import json
import re
import subprocess
import sys

TYPES = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "integers": lambda v: isinstance(v, list) and all(
        isinstance(x, int) and not isinstance(x, bool) for x in v),
    "boolean": lambda v: isinstance(v, bool),
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "null": lambda v: v is None,
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
}

# `tshape --json diff` runs whose records are checked too (pairs of fixtures:
# every kind of difference, with and without --values).
DIFF_RUNS = [
    ["--values", "tests/fixtures/values/diff/a.npz", "tests/fixtures/values/diff/b.npz"],
    ["--values", "--rtol", "0", "tests/fixtures/values/diff/a.npz",
     "tests/fixtures/values/diff/b.npz"],
    ["-p", "arg:", "-p", "aux:", "tests/fixtures/model/diff/model.params",
     "tests/fixtures/model/diff/changed.npz"],
    ["--values", "-p", "arg:", "-p", "aux:", "tests/fixtures/model/diff/model.params",
     "tests/fixtures/model/diff/changed.npz"],
    ["--values", "tests/fixtures/model/hf", "tests/fixtures/model/hf-bin"],
    ["--values", "tests/fixtures/hdf5/empty.h5", "tests/fixtures/hdf5/empty.npz"],
    ["--metadata", "tests/fixtures/model/diffmeta/epoch2.pt",
     "tests/fixtures/model/diffmeta/epoch3.pt"],
    ["--metadata", "tests/fixtures/model/diffmeta/shards", "tests/fixtures/model/diffmeta/shards2"],
    ["--values", "tests/fixtures/qdiff/hf", "tests/fixtures/qdiff/q8_0.gguf"],
    ["--values", "tests/fixtures/onnxmap/net.pt", "tests/fixtures/onnxmap/net-eval.onnx"],
    ["--values", "tests/fixtures/onnxmap/dedup.onnx", "tests/fixtures/onnxmap/dedup.pt"],
    ["--values", "--rename", "tests/fixtures/onnxmap/keras-rename.txt",
     "tests/fixtures/onnxmap/keras.h5", "tests/fixtures/onnxmap/keras-torch.pt"],
]

# `tshape --json info` runs of the model summary record (folders, --group,
# --tensors, --top on a single file, a checkpoint with optimizer state).
MODEL_RUNS = [
    ["--summary", "tests/fixtures/model/hf"],
    ["--summary", "--group", "--tensors", "tests/fixtures/model/hf"],
    ["--summary", "tests/fixtures/model/missing"],
    ["--top", "3", "--group", "tests/fixtures/pytorch/adam.pt"],
]


def unroff(s):
    return (s.replace("\\(aq", "'").replace("\\(dq", '"').replace("\\-", "-")
            .replace("\\e", "\\"))


def read_schema(man):
    """[(title, discriminator, [(dotted key, [types])])] in manual order."""
    text = open(man, encoding="utf-8").read()
    m = re.search(r"^\.SH JSON RECORDS\n(.*?)^\.SH ", text, re.S | re.M)
    if not m:
        sys.exit("json_records.py: no JSON RECORDS section in " + man)
    kinds = []
    lines = m.group(1).split("\n")
    for i, line in enumerate(lines):
        h = re.match(r'^\.SS "(.*) \(key (\w+)[^)]*\)"$', line)
        if h:
            kinds.append((unroff(h.group(1)), h.group(2), []))
            continue
        if line == ".TP" and i + 2 < len(lines) and lines[i + 1].startswith(".B "):
            key = unroff(lines[i + 1][3:].strip())
            types = lines[i + 2].split(":", 1)[0].split(" or ")
            bad = [t for t in types if t not in TYPES]
            if bad or not kinds:
                sys.exit("json_records.py: %s: key %s: unknown type %s" % (man, key, bad))
            kinds[-1][2].append((key, types))
    if len(kinds) < 6:
        sys.exit("json_records.py: expected 6 record kinds in %s, found %d" % (man, len(kinds)))
    return kinds


def values(rec, path):
    """The values at a dotted path; '*' stands for every member of an object."""
    cur = [rec]
    for part in path.split("."):
        nxt = []
        for c in cur:
            if not isinstance(c, dict):
                continue
            if part == "*":
                nxt.extend(c.values())
            elif part in c:
                nxt.append(c[part])
            else:
                nxt.append(KeyError(part))
        cur = nxt
    return cur


def check(rec, kinds):
    """None, or what is wrong with the record."""
    if not isinstance(rec, dict):
        return "not an object"
    for title, disc, keys in kinds:
        if disc in rec:
            break
    else:
        return "of no record kind (keys %s)" % list(rec)
    top = [k for k, _ in keys if "." not in k]
    if list(rec) != top:
        return "%s: keys %s, expected %s" % (title, list(rec), top)
    for key, types in keys:
        for v in values(rec, key):
            if isinstance(v, KeyError):
                return "%s: no key %s" % (title, key)
            if v == "" and "null" in types:
                return "%s: %s is \"\", where the manual says null stands for none" % (
                    title, key)
            if not any(TYPES[t](v) for t in types):
                return "%s: %s is %s, expected %s" % (title, key, json.dumps(v)[:60],
                                                     " or ".join(types))
    # An object whose members the manual lists has exactly those, in order.
    parents = []
    for key, _ in keys:
        if "." in key and key.rsplit(".", 1)[0] not in parents:
            parents.append(key.rsplit(".", 1)[0])
    for parent in parents:
        members = [k.rsplit(".", 1)[1] for k, _ in keys
                   if "." in k and k.rsplit(".", 1)[0] == parent]
        if members == ["*"]:
            continue
        for obj in values(rec, parent):
            if isinstance(obj, dict) and list(obj) != members:
                return "%s: %s has keys %s, expected %s" % (title, parent, list(obj), members)
    return None


def check_lines(man):
    """--lines MANPAGE: every line of standard input (the output of another
    command's --json, such as convert) is a record of the schema."""
    kinds = read_schema(man)
    bad = n = 0
    for n, line in enumerate(sys.stdin, 1):
        try:
            why = check(json.loads(line), kinds)
        except ValueError as e:
            why = "not JSON: %s" % e
        if why:
            print("FAIL line %d: %s" % (n, why))
            bad += 1
    print("json-records: %d records on stdin, %d failures" % (n, bad))
    return 1 if bad or n == 0 else 0



def check_run(cmd, kinds, must_print):
    """Runs cmd and checks each output line against the record kinds; a
    run whose exit status satisfies must_print(rc) must print a record.
    Returns (records, failures)."""
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    lines = p.stdout.decode("utf-8", "replace").splitlines()
    bad = 0
    if must_print(p.returncode) and not lines:
        print("FAIL %s: no record" % " ".join(cmd[1:]))
        bad += 1
    for n, line in enumerate(lines, 1):
        try:
            why = check(json.loads(line), kinds)
        except ValueError as e:
            why = "not JSON: %s" % e
        if why:
            print("FAIL %s: line %d: %s" % (" ".join(cmd[1:]), n, why))
            bad += 1
    return len(lines), bad

def main():
    if sys.argv[1] == "--lines":
        return check_lines(sys.argv[2])
    tshape, man, files = sys.argv[1], sys.argv[2], sys.argv[3:]
    kinds = read_schema(man)
    bad = runs = records = 0
    for path in files:
        forced = [["-f", "tshape32"], ["-f", "tshape64"]] if path.endswith(".tshape") else [[]]
        for force in forced:
            for mode in ([], ["--summary"], ["--metadata"]):
                n, b = check_run([tshape, "info", "--json"] + mode + force + ["--", path],
                                 kinds, lambda rc: rc == 0)
                runs, records, bad = runs + 1, records + n, bad + b
    for args in MODEL_RUNS:
        n, b = check_run([tshape, "--json", "info"] + args, kinds, lambda rc: True)
        runs, records, bad = runs + 1, records + n, bad + b
    for args in DIFF_RUNS:
        n, b = check_run([tshape, "--json", "diff"] + args, kinds, lambda rc: True)
        runs, records, bad = runs + 1, records + n, bad + b
    print("json-records: %d files, %d runs, %d records checked against %d record kinds, "
          "%d failures" % (len(files), runs, records, len(kinds), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
