#!/bin/sh
# slow: streams 600 MB of JSON through a pipe, reads a 45 MB safetensors header
# hostile-memory.test.sh - memory and time that a small or sparse file
# controls stay bounded (issue 16). Each case builds its hostile input in a
# temporary folder (sparse where the file is large), runs tshape once, and
# checks its peak resident memory (the child's ru_maxrss) and wall time:
#   - GGUF, one 100 MiB string value, `info --metadata`: human output cuts
#     the value (< 16 MiB resident, < 2 s); `--json` streams it whole
#     (resident below the 100 MiB the value maps plus 32 MiB, 629145761
#     bytes of output with the empty-file record).
#   - standard input: a 300 MB line for `size` (< 16 MiB, < 5 s, one error
#     and an empty output line), 1.1 GiB through a pipe for `info -` (refused
#     at its 1 GiB limit: < 1088 MiB resident).
#   - safetensors, a valid 45 MB header of 367k tensors: `info --summary`
#     stays under 4x the header plus 16 MiB (it took 20x);
#   - MXNet .params of 10M empty records (40 MB): refused at the array
#     count (the 2^20 cap of LIMITS) with the limit named, < 16 MiB (it took
#     3.4 GB); 2^20 of them, the cap, stop at the records' memory bound
#     (4 bytes per byte of the file + 16 MiB) in < 48 MiB (they took 302);
#   - diff --values (and --metrics) of two sparse 256 MiB .npy files, read
#     through maps (< 64 MiB resident), with pread, and `stats` of one
#     mapped (< 32 MiB).
# Exit 0 pass, 77 skip (no python3), 1 fail.
set -u
py=/usr/bin/python3
[ -x $py ] || py=$(command -v python3) || { echo "hostile-memory: no python3, skipped"; exit 77; }
# A sanitizer build's shadow memory and speed are its own: the bounds are
# scaled for it.
scale=1
grep -q __asan_init "$(readlink -f "$(command -v tshape)")" 2>/dev/null && scale=8
exec $py - "$(command -v tshape)" "$scale" <<'PY'
import os, resource, struct, subprocess, sys, tempfile, time
tshape = sys.argv[1]
scale = int(sys.argv[2])
failures = 0

def run(args, max_rss_mib, max_s, expect_bytes=None, expect_rc=0, expect_err=None,
        stdin_pipe=None):
    """stdin_pipe: a file fed through a pipe (cat), so tshape cannot map it."""
    global failures
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    t = time.monotonic()
    cat = None
    if stdin_pipe:
        cat = subprocess.Popen(["cat", stdin_pipe], stdout=subprocess.PIPE)
    p = subprocess.Popen([tshape] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         stdin=cat.stdout if cat else subprocess.DEVNULL)
    if cat:
        cat.stdout.close()
    n = 0
    while True:
        chunk = p.stdout.read(1 << 20)
        if not chunk:
            break
        n += len(chunk)
    err = p.stderr.read()
    rc = p.wait()
    if cat:
        cat.kill()
        cat.wait()
    dt = time.monotonic() - t
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    # ru_maxrss of the children is the largest so far: only a new peak counts.
    problems = []
    if rc != expect_rc:
        problems.append(f"exit {rc}: {err.decode(errors='replace').strip()}")
    if expect_err is not None and expect_err not in err.decode(errors='replace'):
        problems.append(f"stderr lacks {expect_err!r}: {err.decode(errors='replace').strip()}")
    if rss > max_rss_mib * scale and rss > before / 1024:
        problems.append(f"{rss:.0f} MiB resident > {max_rss_mib * scale}")
    if dt > max_s * scale:
        problems.append(f"{dt:.1f} s > {max_s * scale}")
    if expect_bytes is not None and n != expect_bytes:
        problems.append(f"{n} bytes of output, expected {expect_bytes}")
    status = "FAIL" if problems else "ok"
    print(f"hostile-memory: {status} tshape {' '.join(args[:-1])}: {rss:.0f} MiB, {dt:.2f} s, "
          f"{n} bytes" + ("; " + "; ".join(problems) if problems else ""))
    failures += bool(problems)

with tempfile.TemporaryDirectory() as d:
    # Values of two 256 MiB arrays compared through maps of the files (what
    # diff --values does by default): their pages leave the resident set as
    # they are read (< 32 MiB, < 64 with --metrics, where holding them took
    # 512 MiB). First, while the children's peak is still small.
    npys = []
    for name in ("a.npy", "b.npy"):
        npys.append(os.path.join(d, name))
        header = "{'descr': '<f4', 'fortran_order': False, 'shape': (67108864,), }"
        header += " " * (117 - len(header)) + "\n"
        with open(npys[-1], "wb") as f:
            f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", 118) + header.encode())
            f.truncate(128 + (256 << 20))  # sparse: 2^26 zeros
    run(["diff", "--values"] + npys, 32, 60)
    # metrics release a mapped file's pages every 8 chunks of 1 MiB a side
    run(["diff", "--values", "--metrics"] + npys, 64, 60)
    # read with pread: buffers of a chunk, not of the whole (1-d) array,
    # which took 515 MiB
    os.environ["TSHAPE_IO"] = "pread"
    run(["diff", "--values", "--metrics"] + npys, 32, 60)
    # stats of a mapped file: its pages released step by step (it held
    # the whole 256 MiB)
    os.environ["TSHAPE_IO"] = "map"
    run(["stats", npys[0]], 32, 60)
    del os.environ["TSHAPE_IO"]
    for p in npys:
        os.unlink(p)

    big = os.path.join(d, "string.gguf")
    n = 100 << 20
    with open(big, "wb") as f:
        f.write(b"GGUF" + struct.pack("<IQQ", 3, 0, 1))
        f.write(struct.pack("<Q", 3) + b"big" + struct.pack("<IQ", 8, n))
        f.truncate(f.tell() + n)          # sparse: 100 MiB of zero bytes
    run(["info", "--metadata", big], 16, 2)
    # Each zero byte is the 6-byte escape \u0000; the quotes, the key and
    # the record's frame make up the rest, with the record of a file that
    # holds no arrays before it.
    frame = len('{"file":"%s","metadata":{"big":""}}\n' % big)
    frame += len('{"file":"%s","format":"gguf","version":"3","arrays":0,"metadata_keys":1}\n'
                 % big)
    run(["--json", "info", "--metadata", big], 100 + 32, 30, 6 * n + frame)
    # A valid safetensors header of about 45 MB, made by another process so
    # this one stays small (a child's peak counts its parent's size at fork).
    st = os.path.join(d, "header.safetensors")
    gen = '''
import struct, sys
path, target = sys.argv[1], int(sys.argv[2])
parts, off, n, size = [], 0, 0, 2
while size < target:
    l, e = divmod(n, 4096)
    name = "model.layers.%d.mlp.experts.%d.%s.weight" % (l, e // 3, ("gate", "up", "down")[e % 3])
    s = '"%s":{"dtype":"BF16","shape":[64,64],"data_offsets":[%d,%d]}' % (name, off, off + 8192)
    parts.append(s)
    size += len(s) + 1
    off += 8192
    n += 1
text = ("{" + ",".join(parts) + "}").encode()
text += b" " * (-len(text) % 8)
with open(path, "wb") as f:
    f.write(struct.pack("<Q", len(text)) + text)
    f.truncate(8 + len(text) + off)
print(n, len(text))
'''
    out = subprocess.run([sys.executable, "-c", gen, st, "45000000"], check=True,
                         stdout=subprocess.PIPE).stdout.split()
    hdr_mib = int(out[1]) / 2**20
    run(["info", "--summary", st], int(4 * hdr_mib + 16), 20, expect_bytes=None)
    os.unlink(st)

    # MXNet: legacy empty records are 4 zero bytes; no names (a zero u64).
    mx = os.path.join(d, "empty.params")
    for n, rc, rss, secs, msg in (
            (10 * 1000 * 1000, 2, 16, 2, "file declares 10000000 arrays at byte 16, more than "
                                          "the 1048576 tshape reads from one file"),
            (1 << 20, 2, 48, 20, "arrays in a file of 4194336 bytes: their records would "
                                 "take more than 4 bytes per byte of the file + 16 MiB")):
        with open(mx, "wb") as f:
            f.write(struct.pack("<QQQ", 0x112, 0, n))
            f.truncate(24 + 4 * n + 8)
        run(["info", "--summary", mx], rss, secs, expect_rc=rc, expect_err=msg)

    # Standard input: one 300 MB line (the line limit is 1 MiB; the rest is
    # read and dropped in linear time), and 1.1 GiB for `info -` (its limit
    # is 1 GiB: refused at the limit, not grown without bound).
    zeros = os.path.join(d, "zeros")
    with open(zeros, "wb") as f:
        f.truncate(300 * 1000 * 1000)
    run(["size", "-"], 16, 5, 1, stdin_pipe=zeros, expect_rc=2)
    with open(zeros, "wb") as f:
        f.truncate((1 << 30) + (100 << 20))
    run(["info", "-"], 1024 + 64, 30, 0, stdin_pipe=zeros, expect_rc=2)
sys.exit(1 if failures else 0)
PY
