#!/usr/bin/python3
"""remote.py TSHAPE - tshape info on URLs over loopback (a real nginx,
tests/httpd.py), against what a user would do instead, in one run:

1. 1 GiB files of each format (safetensors, GGUF with a 32,000-token
   vocabulary, a torch.save zip, an npz, an ONNX model with inline weights;
   zeros, sparse where the format allows): requests and bytes per
   `tshape info URL` (the access log's count), against the goals of the
   issue: safetensors 1 request for a header under 100 kB, GGUF <= 3,
   PyTorch zip <= 4, npz <= 3, ONNX <= 1% of the file.
2. The same safetensors header read the way huggingface_hub's
   get_safetensors_metadata does (100,000 bytes, a second exact request when
   the header is longer, json.loads) with Python's urllib: time and bytes.
3. A 100-shard safetensors model: `info --summary` of its index URL against
   the same on the local folder (goal: at most 2x the local time plus two
   round trips), and against the Python loop over the shards.

Times are medians of 7 runs (each a whole process, interpreter start
included for Python). Exits 1 when a goal is missed.
"""
import json
import os
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
import httpd  # noqa: E402
import remote_files as rf  # noqa: E402

TSHAPE = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build/tshape")
GiB = 1 << 30
RUNS = 7

PY_META = r'''
import json, struct, sys, urllib.request
def get(url, a, b):
    r = urllib.request.urlopen(urllib.request.Request(url, headers={"Range": "bytes=%d-%d" % (a, b)}))
    return r.read()
for url in sys.argv[1:]:
    head = get(url, 0, 99999)
    n = struct.unpack("<Q", head[:8])[0]
    text = head[8:8 + n] if 8 + n <= len(head) else get(url, 8, 8 + n - 1)
    meta = json.loads(text)
    print(url, sum(1 for k in meta if k != "__metadata__"))
'''


def median_time(cmd, env=None):
    times = []
    for _ in range(RUNS):
        t0 = time.perf_counter()
        p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
        times.append(time.perf_counter() - t0)
        if p.returncode != 0:
            raise RuntimeError("%s failed: %s" % (cmd, p.stderr.decode()))
    return statistics.median(times)


def counted(ngx, cmd):
    ngx.truncate()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True)
    lines = ngx.log()
    return len(lines), sum(int(l[-1]) for l in lines)


def write_files(d):
    rf.safetensors(os.path.join(d, "model.safetensors"),
                   [("layer.%d.weight" % i, "F32", [4096, 4096], 64 << 20) for i in range(16)],
                   pad_to=None)
    # a GGUF of 1 GiB: the vocabulary of remote_files, a big tensor
    rf.vocab_gguf(os.path.join(d, "model.gguf"))
    with open(os.path.join(d, "model.gguf"), "r+b") as f:
        f.truncate(GiB)
    rf.torch_zip(os.path.join(d, "model.pt"),
                 [("layer.%d.weight" % i, [4096, 4096]) for i in range(16)])
    rf.npz(os.path.join(d, "model.npz"), [("a%d" % i, [4096, 4096]) for i in range(16)])
    rf.onnx_model(os.path.join(d, "model.onnx"), [("w%d" % i, [4096, 4096]) for i in range(16)])
    shards = os.path.join(d, "shards")
    os.makedirs(shards)
    weight_map = {}
    for s in range(100):
        name = "model-%05d-of-00100.safetensors" % (s + 1)
        tensors = [("model.layers.%d.%s.weight" % (s, k), "BF16", [4096, 4096], 32 << 20)
                   for k in ("q_proj", "k_proj", "v_proj", "o_proj")]
        rf.safetensors(os.path.join(shards, name), tensors)
        for t in tensors:
            weight_map[t[0]] = name
    with open(os.path.join(shards, "model.safetensors.index.json"), "w") as f:
        json.dump({"metadata": {}, "weight_map": weight_map}, f)


def main():
    if not httpd.available():
        print("remote.py: nginx is not installed (apt-get install nginx-light)")
        return 2
    tmp = tempfile.mkdtemp(prefix="tshape-bench-remote-")
    www = os.path.join(tmp, "www")
    os.makedirs(www)
    missed = []
    try:
        write_files(www)
        ngx = httpd.Nginx(www, tmp).start()
        url = ngx.url()
        print("1. tshape info on a URL, per format (1 GiB files, loopback nginx)")
        print("%-20s %9s %12s %9s %8s %10s %10s" % ("file", "requests", "bytes", "of file",
                                                    "goal", "remote s", "local s"))
        goals = {"model.safetensors": ("requests", 1), "model.gguf": ("requests", 3),
                 "model.pt": ("requests", 4), "model.npz": ("requests", 3),
                 "model.onnx": ("share", 0.01)}
        for name, (kind, most) in goals.items():
            path = os.path.join(www, name)
            size = os.path.getsize(path)
            k, b = counted(ngx, [TSHAPE, "info", url + "/" + name])
            tr = median_time([TSHAPE, "info", url + "/" + name])
            tl = median_time([TSHAPE, "info", path])
            share = b / size
            ok = k <= most if kind == "requests" else share <= most
            goal = ("<=%d req" % most) if kind == "requests" else ("<=%g%%" % (100 * most))
            print("%-20s %9d %12d %8.4f%% %8s %10.4f %10.4f%s" % (
                name, k, b, 100 * share, goal, tr, tl, "" if ok else "  MISSED"))
            if not ok:
                missed.append(name)

        print()
        print("2. a safetensors header: tshape vs huggingface_hub's way in Python (urllib)")
        st = url + "/model.safetensors"
        kt, bt = counted(ngx, [TSHAPE, "info", st])
        kp, bp = counted(ngx, ["/usr/bin/python3", "-c", PY_META, st])
        tt = median_time([TSHAPE, "info", st])
        tp = median_time(["/usr/bin/python3", "-c", PY_META, st])
        print("tshape info:      %.4f s, %d request(s), %d bytes" % (tt, kt, bt))
        print("python urllib:    %.4f s, %d request(s), %d bytes" % (tp, kp, bp))
        print("ratio: tshape %.1fx faster" % (tp / tt))
        if tt >= tp:
            missed.append("faster than Python")

        print()
        print("3. a 100-shard safetensors model (index + 100 shards of 128 MiB, 400 tensors)")
        idx = url + "/shards/model.safetensors.index.json"
        kr, br = counted(ngx, [TSHAPE, "info", "--summary", idx])
        tr = median_time([TSHAPE, "info", "--summary", idx])
        tl = median_time([TSHAPE, "info", "--summary", os.path.join(www, "shards")])
        shard_urls = ["%s/shards/model-%05d-of-00100.safetensors" % (url, s + 1)
                      for s in range(100)]
        kp, bp = counted(ngx, ["/usr/bin/python3", "-c", PY_META] + shard_urls)
        tp = median_time(["/usr/bin/python3", "-c", PY_META] + shard_urls)
        # a round trip: a 1-byte range request, timed inside one process
        rtt = median_time(["curl", "-s", "-o", "/dev/null", "-r", "0-0",
                           url + "/shards/model.safetensors.index.json"])
        print("tshape info --summary URL:   %.4f s, %d requests, %d bytes" % (tr, kr, br))
        print("tshape info --summary DIR:   %.4f s (local)" % tl)
        print("python urllib over shards:   %.4f s, %d requests, %d bytes" % (tp, kp, bp))
        print("remote / local: %.2fx (goal <= 2x + 2 round trips of %.4f s: %.4f s)" % (
            tr / tl, rtt, 2 * tl + 2 * rtt))
        print("python / tshape: %.1fx" % (tp / tr))
        if tr > 2 * tl + 2 * rtt:
            missed.append("100 shards within 2x local")
        ngx.stop()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if missed:
        print("goals missed:", ", ".join(missed))
        return 1
    print("all goals met")
    return 0


if __name__ == "__main__":
    sys.exit(main())
