#!/usr/bin/python3
"""remote_check.py TSHAPE - tshape on URLs, against real servers started here.

nginx (Debian nginx-light) on 127.0.0.1 serves the examples, the fixtures,
the shared corpus and the files tests/remote_files.py writes, with an
access log of "$request $http_range $status $body_bytes_sent" that is the
witness of every request and byte; one server has max_ranges 0 (Range
ignored), one speaks TLS with a certificate made here, one location answers
302 as the Hugging Face Hub does, and one tree is shaped as the Hub's
(ORG/NAME/resolve/main/...). A small server of this script's own stands for
S3: it checks AWS Signature Version 4 (its check is first proven on the
example of the AWS documentation), answers a multi-range request with the
whole object as S3 does, and answers 503 once per file on /flaky/.

Checks: every remote report equals the local report of the same file; the
requests and bytes per format; the errors (404, a server that ignores Range,
an untrusted certificate, a fetch budget, a missing shard) are one line and
exit 2; hf:// and s3:// URLs; retries; statistics, values, diff and convert
of remote files. Exit 0 when all pass, 1 otherwise.
"""
import hashlib
import hmac
import http.server
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading

import httpd

TSHAPE = os.path.abspath(sys.argv[1])
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
CORPUS = os.path.abspath(os.path.join(ROOT, "..", "shared", "corpus"))

failures = []
checks = 0


def check(cond, what):
    global checks
    checks += 1
    if not cond:
        failures.append(what)
        print("FAIL", what)


def run(args, env=None, timeout=120):
    e = dict(os.environ)
    for k in ("HF_ENDPOINT", "HF_TOKEN", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY",
              "AWS_SESSION_TOKEN", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3", "AWS_REGION",
              "SSL_CERT_FILE", "CURL_CA_BUNDLE", "TSHAPE_IO"):
        e.pop(k, None)
    e.update(env or {})
    p = subprocess.run([TSHAPE] + args, capture_output=True, env=e, timeout=timeout, cwd=ROOT)
    return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")


# ---- S3 stand-in with SigV4 verification ------------------------------------

def sigv4_signature(secret, method, path, query, headers, signed, amzdate, scope):
    canon_headers = "".join("%s:%s\n" % (h, " ".join(headers[h].split())) for h in signed)
    payload = headers.get("x-amz-content-sha256", hashlib.sha256(b"").hexdigest())
    creq = "\n".join([method, path, query, canon_headers, ";".join(signed), payload])
    sts = "\n".join(["AWS4-HMAC-SHA256", amzdate, scope,
                     hashlib.sha256(creq.encode()).hexdigest()])
    date, region, service, term = scope.split("/")
    k = ("AWS4" + secret).encode()
    for part in (date, region, service, term):
        k = hmac.new(k, part.encode(), hashlib.sha256).digest()
    return hmac.new(k, sts.encode(), hashlib.sha256).hexdigest()


def sigv4_selftest():
    """The GET Object example of the AWS documentation ("Signature
    Calculations for the Authorization Header: Transferring Payload in a
    Single Chunk"); the verifier must give its signature."""
    headers = {"host": "examplebucket.s3.amazonaws.com", "range": "bytes=0-9",
               "x-amz-content-sha256": hashlib.sha256(b"").hexdigest(),
               "x-amz-date": "20130524T000000Z"}
    sig = sigv4_signature("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "GET", "/test.txt", "",
                          headers, ["host", "range", "x-amz-content-sha256", "x-amz-date"],
                          "20130524T000000Z", "20130524/us-east-1/s3/aws4_request")
    return sig == "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"


S3_KEY, S3_SECRET = "AKIDTSHAPETEST", "tshape/test/secret+key"


class S3Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    www = None
    stats = None

    def log_message(self, *a):
        pass

    def fail(self, code, why):
        body = why.encode()
        self.send_response(code)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def verified(self):
        auth = self.headers.get("Authorization", "")
        m = re.match(r"AWS4-HMAC-SHA256 Credential=([^/]+)/([^,]+), *SignedHeaders=([^,]+), "
                     r"*Signature=([0-9a-f]+)", auth)
        if not m:
            return False
        key, scope, signed, sig = m.groups()
        if key != S3_KEY:
            return False
        headers = {k.lower(): v for k, v in self.headers.items()}
        signed = signed.split(";")
        if any(h not in headers for h in signed):
            return False
        path, _, query = self.path.partition("?")
        want = sigv4_signature(S3_SECRET, "GET", path, query, headers, signed,
                               headers.get("x-amz-date", ""), scope)
        ok = hmac.compare_digest(want, sig)
        if ok:
            self.stats["signed"] += 1
        return ok

    def do_GET(self):
        path = self.path.split("?")[0]
        parts = path.lstrip("/").split("/", 1)
        if len(parts) != 2:
            return self.fail(404, "no such key")
        bucket, key = parts
        if bucket == "private" and not self.verified():
            return self.fail(403, "SignatureDoesNotMatch")
        if bucket == "flaky":
            with self.stats["lock"]:
                first = key not in self.stats["flaked"]
                self.stats["flaked"].add(key)
            if first:
                self.send_response(503)
                self.send_header("Retry-After", "1")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
        fp = os.path.join(self.www, key)
        if not os.path.isfile(fp):
            return self.fail(404, "NoSuchKey")
        size = os.path.getsize(fp)
        rng = self.headers.get("Range")
        with self.stats["lock"]:
            self.stats["requests"] += 1
        with open(fp, "rb") as f:
            m = re.match(r"bytes=(\d+)-(\d+)$", rng or "")
            if m:  # one range: 206
                a, b = int(m.group(1)), min(int(m.group(2)), size - 1)
                if a >= size:
                    self.send_response(416)
                    self.send_header("Content-Range", "bytes */%d" % size)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                f.seek(a)
                body = f.read(b - a + 1)
                self.send_response(206)
                self.send_header("Content-Range", "bytes %d-%d/%d" % (a, b, size))
            else:  # none, or several (S3 ignores them): the whole object
                body = f.read()
                self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            try:
                self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):
                pass


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True


# Models whose side file is missing on purpose (their error names it
# differently remotely: by the HTTP status of its request).
MISSING_SIDE = ("fixtures/tfckpt/bad_missing/",)


def regular_files(top, rel):
    out = []
    base = os.path.join(top, rel)
    for dirpath, dirs, files in os.walk(base, followlinks=True):
        dirs.sort()
        for f in sorted(files):
            if f.endswith((".py", ".json", ".txt", ".md", ".pyc")) or "fuzz-crashes" in dirpath:
                continue
            p = os.path.join(dirpath, f)
            out.append(os.path.relpath(p, top))
    return out


def main():
    if not httpd.available():
        print("remote: nginx is not installed (apt-get install nginx-light)")
        return 1
    if not sigv4_selftest():
        print("FAIL the SigV4 verifier does not give the AWS documentation's signature")
        return 1
    tmp = tempfile.mkdtemp(prefix="tshape-remote-")
    www = os.path.join(tmp, "www")
    os.makedirs(www)
    os.symlink(os.path.join(ROOT, "examples"), os.path.join(www, "examples"))
    os.symlink(os.path.join(ROOT, "tests", "fixtures"), os.path.join(www, "fixtures"))
    have_corpus = os.path.isdir(CORPUS)
    if have_corpus:
        os.symlink(CORPUS, os.path.join(www, "corpus"))
    big = os.path.join(www, "big")
    subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "tests", "remote_files.py"), big],
                   check=True)
    hub = os.path.join(www, "org", "tiny", "resolve")
    os.makedirs(hub)
    os.symlink(os.path.join(ROOT, "tests", "fixtures", "model", "hf"), os.path.join(hub, "main"))
    ngx = httpd.Nginx(www, tmp).start()
    S3Handler.www = big
    S3Handler.stats = {"signed": 0, "requests": 0, "flaked": set(), "lock": threading.Lock()}
    s3 = Server(("127.0.0.1", 0), S3Handler)
    threading.Thread(target=s3.serve_forever, daemon=True).start()
    s3url = "http://127.0.0.1:%d" % s3.server_address[1]
    try:
        checks_all(ngx, www, s3url, have_corpus)
    finally:
        ngx.stop()
        s3.shutdown()
        shutil.rmtree(tmp, ignore_errors=True)
    print("remote: %d checks, %d failed" % (checks, len(failures)))
    return 1 if failures else 0


def same_report(url, local, args=("info", "--json"), env=None):
    rc1, out1, err1 = run(list(args) + [local])
    rc2, out2, err2 = run(list(args) + [url], env=env)
    out2 = out2.replace(url, local)
    err2 = err2.replace(url, local)
    # files beside it (a Darknet .cfg) are named by their URLs
    beside_url, beside = url.rsplit("/", 1)[0] + "/", local.rsplit("/", 1)[0] + "/"
    out2 = out2.replace(beside_url, beside)
    err2 = err2.replace(beside_url, beside)
    ok = rc1 == rc2 and out1 == out2 and err1 == err2
    if not ok:
        print("  local (%d): %s%s" % (rc1, out1[:300], err1[:300]))
        print("  remote (%d): %s%s" % (rc2, out2[:300], err2[:300]))
    return ok


def same_verify(plain, www, rel, args):
    """verify of plain/rel says what verify of www/rel says, the files beside
    it named by their URLs (file_bytes of a single remote file that does
    not open is 0, and a short file's actual size -1: its size is not
    known)."""
    rc1, out1, err1 = run(list(args) + [os.path.join(www, rel)])
    rc2, out2, err2 = run(list(args) + [plain + "/" + rel])
    out2 = out2.replace(plain + "/", www + "/")
    err2 = err2.replace(plain + "/", www + "/")
    for key in ("file_bytes", "actual"):
        out1 = re.sub(r'"%s":(-?\d+|null)' % key, "", out1) if rc1 else out1
        out2 = re.sub(r'"%s":(-?\d+|null)' % key, "", out2) if rc2 else out2
    ok = rc1 == rc2 and out1 == out2 and err1 == err2
    if not ok:
        print("  local (%d): %s%s" % (rc1, out1[:300], err1[:300]))
        print("  remote (%d): %s%s" % (rc2, out2[:300], err2[:300]))
    return ok


def checks_all(ngx, www, s3url, have_corpus):
    tmp = ngx.tmp
    plain = ngx.url("plain")
    # 1. Every file, remote report == local report (info --json --metadata).
    files = regular_files(www, "examples") + regular_files(www, "fixtures")
    if have_corpus:
        files += regular_files(www, "corpus")
    files += regular_files(www, "big")
    n = 0
    for rel in files:
        local = os.path.join(www, rel)
        if rel.startswith(MISSING_SIDE):
            # the missing data file is named by its path locally, by the
            # request's HTTP status remotely: both fail the same way
            rc1 = run(["info", local])[0]
            rc2 = run(["info", plain + "/" + rel])[0]
            check(rc1 == 2 and rc2 == 2, "info of %s: exit %d local, %d remote, expected 2" %
                  (rel, rc1, rc2))
            continue
        ok = same_report(plain + "/" + rel, local, ("info", "--json", "--metadata"))
        check(ok, "info --json --metadata of %s: remote differs from local" % rel)
        n += 1
    print("remote: %d files: remote reports equal local ones" % n)
    # scan: what loading would run, read by range requests (--json: the
    # records name the file, which differs only by the URL)
    scanned = [rel for rel in files if rel.startswith(("fixtures/scan/", "corpus/pytorch/",
                                                       "fixtures/pytorch/", "corpus/npy/"))]
    for rel in scanned:
        check(same_report(plain + "/" + rel, os.path.join(www, rel), ("--json", "scan")),
              "scan of %s: remote differs from local" % rel)
    print("remote: %d files: remote scans equal local ones" % len(scanned))

    # 2. Values: statistics, show, diff --values, convert.
    for rel in ("examples/checkpoint.npz", "examples/model.safetensors", "big/torch.pt",
                "big/arrays.npz", "examples/resnet-0000.params",
                "fixtures/onnx/good_external.onnx", "fixtures/tflite/quant.tflite",
                "fixtures/tfjs/graph/model.json", "fixtures/tfckpt/sharded/model.ckpt.index",
                "fixtures/savedmodel/basic/saved_model.pb", "fixtures/keras/sequential.keras",
                "fixtures/keras/deflated.keras", "fixtures/keras/nested.keras") + \
            (("corpus/pytorch/cnn_legacy.pt", "corpus/onnx/cnn.onnx",
              "corpus/onnx/external.onnx", "corpus/hdf5/layouts.h5") if have_corpus else ()):
        check(same_report(plain + "/" + rel, os.path.join(www, rel), ("stats",)),
              "stats of %s: remote differs from local" % rel)
    # a TensorFlow checkpoint by its prefix, as TensorFlow users name it: the
    # URL + ".index" after a 404, the local path + ".index"
    for args in (("info", "--json"), ("stats",)):
        check(same_report(plain + "/fixtures/tfckpt/sharded/model.ckpt",
                          os.path.join(www, "fixtures/tfckpt/sharded/model.ckpt"), args),
              "%s of a checkpoint prefix: remote differs from local" % args[0])
    check(same_report(plain + "/examples/image.npy", os.path.join(www, "examples/image.npy"),
                      ("show",)), "show of image.npy: remote differs")
    rc, out, err = run(["diff", "--values", plain + "/big/torch.pt",
                        os.path.join(www, "big/torch.pt")])
    check(rc == 0 and "3 equal" in out, "diff --values remote vs local torch.pt: %d %s %s" %
          (rc, out, err))
    outdir = os.path.join(tmp, "conv")
    os.makedirs(outdir)
    rc1, _, e1 = run(["convert", plain + "/big/torch.pt", os.path.join(outdir, "r.safetensors")])
    rc2, _, e2 = run(["convert", os.path.join(www, "big/torch.pt"),
                      os.path.join(outdir, "l.safetensors")])
    same = rc1 == 0 and rc2 == 0 and open(os.path.join(outdir, "r.safetensors"), "rb").read() \
        == open(os.path.join(outdir, "l.safetensors"), "rb").read()
    check(same, "convert of a remote torch.pt differs from the local one: %s %s" % (e1, e2))
    ngx.truncate("plain")
    rc, out, err = run(["stats", plain + "/big/big.safetensors"])
    lines = ngx.log("plain")
    got = sum(int(l[-1]) for l in lines)
    check(rc == 0 and got < 26 * (1 << 20) and len(lines) >= 6,
          "stats of a 24 MiB remote file: %d requests, %d bytes, rc %d" % (len(lines), got, rc))

    # 3. Requests and bytes per format (the access log is the witness).
    def requests(rel, args=("info",), env=None):
        ngx.truncate("plain")
        rc, out, err = run(list(args) + [plain + "/" + rel], env=env)
        lines = ngx.log("plain")
        return rc, len(lines), sum(int(l[-1]) for l in lines), err
    limits = {"big/big.safetensors": 1, "big/torch.pt": 4, "big/vocab.gguf": 3,
              "big/arrays.npz": 3, "big/cdir.npz": 4}
    for rel, most in sorted(limits.items()):
        rc, k, b, err = requests(rel)
        check(rc == 0 and k <= most, "%s: %d requests (at most %d expected), %s" %
              (rel, k, most, err))
        print("remote: %s: %d requests, %d bytes of %d" % (rel, k, b,
                                                          os.path.getsize(os.path.join(www, rel))))
    # TFLite: the tables in the first request, the 16 buffers' lengths (spread
    # over the data) in one more; TF.js: model.json, then one request per
    # shard for its size
    for rel, most in (("big/model.tflite", 2), ("big/tfjs/model.json", 1 + 5)):
        rc, k, b, err = requests(rel)
        check(rc == 0 and k <= most, "%s: %d requests (at most %d expected), %s" %
              (rel, k, most, err))
        print("remote: %s: %d requests, %d bytes" % (rel, k, b))
    rc, k, b, err = requests("big/model.onnx")
    size = os.path.getsize(os.path.join(www, "big/model.onnx"))
    check(rc == 0 and b < size // 20, "model.onnx: %d bytes of %d fetched" % (b, size))
    for hl in list(range(99988, 100001)) + list(range(131064, 131081)):
        rel = "big/edge-%d.safetensors" % hl
        rc, k, b, err = requests(rel)
        want = 1 if 8 + hl <= 100000 else 2
        check(rc == 0 and k == want, "%s: %d requests, expected %d" % (rel, k, want))

    # 4. Errors: one line, exit 2.
    rc, out, err = run(["info", plain + "/examples/nosuch.npy"])
    check(rc == 2 and err.strip().endswith("HTTP 404 Not Found") and err.count("\n") == 1,
          "404: %d %r" % (rc, err))
    norange = ngx.url("norange")
    ngx.truncate("norange")
    rc, out, err = run(["info", norange + "/big/big.safetensors"])
    sent = sum(int(l[-1]) for l in ngx.log("norange"))
    check(rc == 2 and "ignores range requests" in err and sent < 12 * (1 << 20),
          "max_ranges 0: rc %d, %d bytes sent, %r" % (rc, sent, err))
    check(same_report(norange + "/examples/image.npy",
                      os.path.join(www, "examples/image.npy")),
          "a file smaller than the first request from a server that ignores Range")
    rc, out, err = run(["info", "--max-fetch", "200KiB", plain + "/big/vocab.gguf"])
    check(rc == 2 and "--max-fetch" in err, "--max-fetch 200KiB on vocab.gguf: %d %r" %
          (rc, err))
    rc, out, err = run(["info", "-v", plain + "/big/big.safetensors"])
    check(rc == 0 and re.search(r"tshape: GET \S+ bytes=0-99999 .* -> 206, \d+ bytes", err),
          "--verbose: %r" % err)
    rc, out, err = run(["info", plain + "/fixtures/model/missing/model.safetensors.index.json"])
    check(rc == 2 and "is missing" in err, "a remote index with a missing shard: %d %r" %
          (rc, err))
    rc, out, err = run(["info", "http://127.0.0.1:%d/x.npy" % httpd.free_port()])
    check(rc == 2 and err.count("\n") == 1 and "onnect" in err, "refused: %d %r" % (rc, err))

    # 5. TLS with a certificate made here.
    tls = ngx.url("tls")
    rc, out, err = run(["info", tls + "/examples/image.npy"])
    check(rc == 2 and "certificate" in err.lower(), "untrusted certificate: %d %r" % (rc, err))
    for var in ("SSL_CERT_FILE", "CURL_CA_BUNDLE"):
        check(same_report(tls + "/big/torch.pt", os.path.join(www, "big/torch.pt"),
                          env={var: ngx.cert()}),
              "TLS with %s: remote differs from local" % var)

    # 6. The Hub: hf:// through HF_ENDPOINT, redirects.
    env = {"HF_ENDPOINT": plain}
    rc1, out1, _ = run(["info", "--summary", os.path.join(ROOT, "tests/fixtures/model/hf")])
    rc2, out2, err2 = run(["info", "--summary", "hf://org/tiny"], env=env)
    strip = lambda s: "\n".join(l for l in s.splitlines() if "tensors in" not in l)
    check(rc2 == 0 and strip(out1) == strip(out2), "hf://org/tiny summary: %d %r" % (rc2, err2))
    check(same_report("hf://org/tiny/model-00002-of-00002.safetensors",
                      os.path.join(ROOT, "tests/fixtures/model/hf/model-00002-of-00002.safetensors"),
                      env=env), "hf:// file")
    check(same_report("hf://org/tiny@main/model-00002-of-00002.safetensors",
                      os.path.join(ROOT, "tests/fixtures/model/hf/model-00002-of-00002.safetensors"),
                      env=env), "hf:// file at a revision")
    ngx.truncate("plain")
    renv = {"HF_ENDPOINT": plain + "/redir"}
    rc, out, err = run(["stats", "hf://org/tiny/model-00001-of-00002.safetensors"], env=renv)
    lines = ngx.log("plain")
    redirected = [l for l in lines if l[0].startswith("/redir/")]
    check(rc == 0 and len(redirected) == 1 and len(lines) >= 2,
          "a redirect is followed once per file: %d %r %r" % (rc, lines, err))

    # 7. S3: SigV4 checked by the server, anonymous, a multi-range fallback.
    senv = {"AWS_ENDPOINT_URL": s3url, "AWS_ACCESS_KEY_ID": S3_KEY,
            "AWS_SECRET_ACCESS_KEY": S3_SECRET, "AWS_REGION": "eu-west-1"}
    before = S3Handler.stats["signed"]
    for rel in ("torch.pt", "big.safetensors", "vocab.gguf", "arrays.npz"):
        check(same_report("s3://private/" + rel, os.path.join(www, "big", rel), env=senv),
              "s3://private/%s: remote differs from local" % rel)
    check(S3Handler.stats["signed"] - before >= 4, "S3 requests were not signed")
    bad = dict(senv, AWS_SECRET_ACCESS_KEY="wrong")
    rc, out, err = run(["info", "s3://private/torch.pt"], env=bad)
    check(rc == 2 and "HTTP 403 Forbidden" in err, "a wrong secret: %d %r" % (rc, err))
    check(same_report("s3://public/torch.pt", os.path.join(www, "big/torch.pt"),
                      env={"AWS_ENDPOINT_URL": s3url}), "anonymous s3://public")
    rc, out, err = run(["info", "-v", "s3://flaky/big.safetensors"], env={"AWS_ENDPOINT_URL": s3url})
    check(rc == 0 and "-> 503" in err and "-> 206" in err, "a 503 is retried: %d %r" % (rc, err))

    # 8. verify (issue 25): the same verdicts and problems as local files;
    # headers only fetches headers, --deep the data.
    for rel in ("fixtures/verify/ok/model.safetensors.index.json",
                "fixtures/verify/short/model.safetensors.index.json",
                "fixtures/verify/total_size/model.safetensors.index.json",
                "fixtures/verify/extra_entry/model.safetensors.index.json",
                "fixtures/model/missing/model.safetensors.index.json",
                "fixtures/verify/trailing.npy", "fixtures/verify/trailing.gguf",
                "fixtures/verify/short.gguf", "fixtures/verify/bin/pytorch_model.bin.index.json"):
        for args in (("verify",), ("--json", "verify", "--deep")):
            check(same_verify(plain, www, rel, args),
                  "%s of %s: remote differs from local" % (" ".join(args), rel))
    for rel in ("fixtures/verify/badcrc.pt", "fixtures/verify/nonfinite.pt", "big/torch.pt"):
        check(same_verify(plain, www, rel, ("verify", "--deep")),
              "verify --deep of %s: remote differs from local" % rel)
    rc, k, b, err = requests("big/big.safetensors", ("verify",))
    check(rc == 0 and k == 1 and b <= 100000, "verify of a 24 MiB safetensors: %d requests, "
          "%d bytes, rc %d %s" % (k, b, rc, err))
    size = os.path.getsize(os.path.join(www, "big/big.safetensors"))
    rc, k, b, err = requests("big/big.safetensors", ("verify", "--deep"))
    check(rc == 0 and size <= b < size + 200000, "verify --deep of a 24 MiB safetensors: %d "
          "requests, %d bytes of %d, rc %d %s" % (k, b, size, rc, err))
    rc, out, err = run(["verify", "hf://org/tiny"], env=env)
    check(rc == 0 and "complete and consistent" in out, "verify hf://org/tiny: %d %r %r" %
          (rc, out, err))


if __name__ == "__main__":
    sys.exit(main())
