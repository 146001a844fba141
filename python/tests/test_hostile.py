"""Hostile files raise tshape.Error, never crash the interpreter: every
fixture and corpus file (damaged ones, fuzz crash inputs) and truncations
and byte changes of some, opened and loaded in a child interpreter, which
must exit normally whatever the files hold."""
import os
import subprocess
import sys

from conftest import ROOT, corpus_files, fixture_files

CHILD = r'''
import sys, warnings
import tshape
warnings.simplefilter("ignore")
ok = bad = 0
for line in sys.stdin:
    path = line.rstrip("\n")
    print(path, flush=True)        # the culprit, if the next one kills us
    try:
        with tshape.open(path) as m:
            [a.to_dict() for a in m]
            m.metadata
            m.summary(group=True)
        tshape.load(path)
        tshape.load(path, mmap=False, dequantize=True)
        tshape.stats(path, errors="collect")
        ok += 1
    except tshape.Error as e:
        assert e.message and "\n" not in e.message, repr(e.message)
        bad += 1
    except KeyError:
        bad += 1
print("done %d %d" % (ok, bad))
'''


def run_child(paths, timeout=600):
    env = dict(os.environ)
    p = subprocess.run([sys.executable, "-c", CHILD], input="\n".join(paths) + "\n",
                       capture_output=True, text=True, cwd=ROOT, env=env, timeout=timeout)
    last = p.stdout.splitlines()[-1] if p.stdout else ""
    assert p.returncode == 0, "child died (status %d) on %s: %s" % (
        p.returncode, last, p.stderr[-2000:])
    assert last.startswith("done "), last
    ok, bad = map(int, last.split()[1:])
    return ok, bad


def test_every_file_fails_cleanly():
    files = fixture_files() + corpus_files()
    ok, bad = run_child(files)
    assert ok + bad == len(files)
    assert ok > 200 and bad > 50


def variants(path, out_dir, n_bytes=24):
    """Truncations and single-byte changes of a file, written to out_dir."""
    with open(path, "rb") as f:
        data = f.read()
    base = os.path.basename(path)
    out = []
    cuts = sorted(set([0, 1, 8, 16, len(data) // 2, len(data) - 1] +
                      [len(data) * k // 13 for k in range(13)]))
    for c in cuts:
        if 0 <= c < len(data):
            p = os.path.join(out_dir, "cut%d-%s" % (c, base))
            with open(p, "wb") as f:
                f.write(data[:c])
            out.append(p)
    seed = sum(base.encode()) or 1
    for k in range(n_bytes):
        seed = (seed * 1103515245 + 12345) % 2**31
        at = seed % min(len(data), 4096) if data else 0
        if not data:
            break
        b = bytearray(data)
        b[at] ^= 0xFF if k % 2 else 0x01 << (k % 8)
        p = os.path.join(out_dir, "flip%d-%d-%s" % (k, at, base))
        with open(p, "wb") as f:
            f.write(bytes(b))
        out.append(p)
    return out


def test_damaged_variants_fail_cleanly(tmp_path):
    sources = ["examples/checkpoint.npz", "examples/model.safetensors",
               "examples/resnet-0000.params", "tests/fixtures/values/quant.gguf",
               "tests/fixtures/pytorch/adam.pt", "tests/fixtures/pytorch/channels_last.pt",
               "tests/fixtures/values/deflated.npz", "tests/fixtures/hdf5/empty.h5"]
    files = []
    for s in sources:
        files += variants(os.path.join(ROOT, s), str(tmp_path))
    ok, bad = run_child(files)
    assert ok + bad == len(files) and bad > len(files) // 4
