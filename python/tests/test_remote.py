"""URLs through the module: tshape.open and tshape.load of http:// files
and an index URL, read by the library's range requests, equal the local
results. The server is Python's http.server with single-range support, on
127.0.0.1 in a thread (a multi-range request is answered with the whole
file, as RFC 9110 allows)."""
import http.server
import os
import re
import threading
import warnings

import pytest

import tshape
from conftest import ROOT


class RangeHandler(http.server.SimpleHTTPRequestHandler):
    def __init__(self, *a, **kw):
        super().__init__(*a, directory=ROOT, **kw)

    def log_message(self, *args):
        pass

    def send_head(self):
        path = self.translate_path(self.path)
        m = re.fullmatch(r"bytes=(\d+)-(\d*)", self.headers.get("Range", ""))
        if not m or not os.path.isfile(path):
            return super().send_head()
        size = os.path.getsize(path)
        start = int(m.group(1))
        end = min(int(m.group(2)) if m.group(2) else size - 1, size - 1)
        if start >= size:
            self.send_error(416)
            return None
        f = open(path, "rb")
        f.seek(start)
        self.send_response(206)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Range", "bytes %d-%d/%d" % (start, end, size))
        self.send_header("Content-Length", str(end - start + 1))
        self.send_header("Accept-Ranges", "bytes")
        self.end_headers()
        self._left = end - start + 1
        return f

    def copyfile(self, source, outputfile):
        left = getattr(self, "_left", None)
        if left is None:
            return super().copyfile(source, outputfile)
        while left > 0:
            b = source.read(min(left, 1 << 16))
            if not b:
                break
            outputfile.write(b)
            left -= len(b)


@pytest.fixture(scope="module")
def server():
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), RangeHandler)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    yield "http://127.0.0.1:%d" % srv.server_address[1]
    srv.shutdown()


def strip_file(records):
    return [{k: v for k, v in r.items() if k != "file"} for r in records]


@pytest.mark.parametrize("path", ["examples/model.safetensors", "examples/checkpoint.npz",
                                  "tests/fixtures/pytorch/channels_last.pt",
                                  "tests/fixtures/values/quant.gguf"])
def test_url_equals_local(server, path):
    try:
        with tshape.open(server + "/" + path) as m:
            remote = [a.to_dict() for a in m]
    except tshape.UnsupportedError as e:
        pytest.skip("no libcurl: %s" % e)
    with tshape.open(path) as m:
        local = [a.to_dict() for a in m]
    assert strip_file(remote) == strip_file(local)
    assert all(r["file"] == server + "/" + path for r in remote)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tshape.DtypeNote)
        a = tshape.load(server + "/" + path)
        b = tshape.load(path)
    assert list(a) == list(b)
    for k in a:
        assert a[k].dtype == b[k].dtype and a[k].tobytes() == b[k].tobytes(), k


def test_index_url(server):
    url = server + "/tests/fixtures/model/hf/model.safetensors.index.json"
    try:
        m = tshape.open(url)
    except tshape.UnsupportedError as e:
        pytest.skip("no libcurl: %s" % e)
    with m, tshape.open("tests/fixtures/model/hf") as local:
        assert m.names == local.names and len(m.files) == 2
        assert m.summary()["total"] == local.summary()["total"]


def test_missing_url(server):
    with pytest.raises(tshape.FileError) as e:
        tshape.open(server + "/no/such.safetensors")
    assert "404" in e.value.message
