"""tshape.stats, diff, scan and convert return the CLI's JSON records."""
import os

import pytest

import tshape
from conftest import cli_json

STATS_RUNS = [
    ["examples/checkpoint.npz"],
    ["tests/fixtures/values/f4.npy", "tests/fixtures/values/b1.npy"],
    ["tests/fixtures/values/deflated.npz"],
    ["tests/fixtures/values/quant.gguf"],
    ["tests/fixtures/model/hf"],
    ["--filter", "*weight*", "--exclude", "*embed*", "tests/fixtures/model/hf"],
    ["tests/fixtures/values/c8.npy", "tests/fixtures/values/u8_be.npy",
     "tests/fixtures/values/i8.npy"],
]


def split_globs(args):
    kw = {"filter": [], "exclude": []}
    paths = []
    it = iter(args)
    for a in it:
        if a in ("--filter", "--exclude"):
            kw[a[2:]].append(next(it))
        else:
            paths.append(a)
    return paths, {k: v or None for k, v in kw.items()}


@pytest.mark.parametrize("args", STATS_RUNS)
def test_stats_equal_cli(args):
    paths, kw = split_globs(args)
    rc, records, _ = cli_json("stats", *args)
    assert rc == 0
    r = tshape.stats(*paths, **kw)
    assert r.records == records
    rc, summary, _ = cli_json("stats", "--summary", *args)
    assert r.summary == summary[0]


def test_stats_errors_and_nonfinite():
    path = "tests/fixtures/values/diff/a.npz"
    rc, records, err = cli_json("stats", path)
    assert rc == 2
    with pytest.raises(tshape.DtypeError, match="cannot decode values of dtype str96"):
        tshape.stats(path)
    r = tshape.stats(path, errors="collect")
    assert r.records == records
    assert [e.message for e in r.errors] == [
        line.split(": ", 3)[3] for line in err.splitlines()]
    rc, summary, _ = cli_json("stats", "--summary", path)
    assert r.summary == summary[0]
    assert r.summary["summary"]["failed"] == 1


DIFF_RUNS = [
    (["--values", "tests/fixtures/values/diff/a.npz", "tests/fixtures/values/diff/b.npz"],
     dict(values=True)),
    (["--values", "--rtol", "0", "--equal-nan", "tests/fixtures/values/diff/a.npz",
      "tests/fixtures/values/diff/b.npz"], dict(values=True, rtol=0, equal_nan=True)),
    (["-p", "arg:", "-p", "aux:", "tests/fixtures/model/diff/model.params",
      "tests/fixtures/model/diff/changed.npz"], dict(strip_prefix=["arg:", "aux:"])),
    (["-p", "arg:", "-p", "aux:", "--rename", "tests/fixtures/model/diff/rename.txt",
      "tests/fixtures/model/diff/model.params", "tests/fixtures/model/diff/renamed.npz"],
     dict(strip_prefix=["arg:", "aux:"], rename="tests/fixtures/model/diff/rename.txt")),
    (["--strip-prefix-a", "arg:", "--strip-prefix-b", "nothing.", "--filter", "conv*",
      "tests/fixtures/model/diff/model.params", "tests/fixtures/model/diff/changed.npz"],
     dict(strip_prefix_a="arg:", strip_prefix_b="nothing.", filter="conv*")),
    (["--values", "tests/fixtures/model/hf", "tests/fixtures/model/hf-bin"],
     dict(values=True)),
    (["--metadata", "tests/fixtures/model/diffmeta/epoch2.pt",
      "tests/fixtures/model/diffmeta/epoch3.pt"], dict(metadata=True)),
    (["--metadata", "tests/fixtures/model/diffmeta/shards",
      "tests/fixtures/model/diffmeta/shards2"], dict(metadata=True)),
    (["tests/fixtures/values/f4.npy", "tests/fixtures/values/f4_be.npy"], {}),
    # across a GGUF conversion: llama.cpp's names, error metrics and their groups
    (["tests/fixtures/qdiff/hf", "tests/fixtures/qdiff/f16.gguf"], {}),
    (["--values", "tests/fixtures/qdiff/hf", "tests/fixtures/qdiff/q8_0.gguf"],
     dict(values=True)),
    (["--values", "tests/fixtures/qdiff/q8_0.gguf", "tests/fixtures/qdiff/hf"],
     dict(values=True)),
    (["--no-name-map", "tests/fixtures/qdiff/hf", "tests/fixtures/qdiff/f16.gguf"],
     dict(name_map=False)),
    (["--metrics", "--values", "tests/fixtures/values/diff/a.npz",
      "tests/fixtures/values/diff/b.npz"], dict(metrics=True, values=True)),
    # across an export: pairing records, explained tensors, totals by rule
    (["--values", "tests/fixtures/onnxmap/net.pt", "tests/fixtures/onnxmap/net-eval.onnx"],
     dict(values=True)),
    (["tests/fixtures/onnxmap/dedup.onnx", "tests/fixtures/onnxmap/dedup.pt"], {}),
    (["--values", "tests/fixtures/onnxmap/mlp.pt", "tests/fixtures/onnxmap/mlp-cf.onnx"],
     dict(values=True)),
    (["--no-name-map", "tests/fixtures/onnxmap/mlp.pt", "tests/fixtures/onnxmap/mlp-cf.onnx"],
     dict(name_map=False)),
    (["--values", "--rename", "tests/fixtures/onnxmap/keras-rename.txt",
      "tests/fixtures/onnxmap/keras.h5", "tests/fixtures/onnxmap/keras-torch.pt"],
     dict(values=True, rename="tests/fixtures/onnxmap/keras-rename.txt")),
]


@pytest.mark.parametrize("args,kw", DIFF_RUNS)
def test_diff_equals_cli(args, kw):
    rc, records, err = cli_json("diff", *args)
    r = tshape.diff(args[-2], args[-1], **kw)
    assert r.records(metadata=kw.get("metadata", False)) == records
    assert r.status == rc
    assert r.equal == (rc == 0)
    warnings = [line.split(": ", 2)[2] for line in err.splitlines() if ": warning: " in line
                or line.startswith("tshape: diff: warning")]
    assert [w.split(": ", 1)[-1] if w.startswith(("tests/", "../")) else w
            for w in r.warnings] == [w.split(": ", 1)[-1] if w.startswith(("tests/", "../"))
                                     else w for w in warnings]


def test_diff_metrics_groups():
    r = tshape.diff("tests/fixtures/qdiff/hf", "tests/fixtures/qdiff/q8_0.gguf", values=True)
    assert [(g["metrics_group"], g["tensors"]) for g in r.metrics_groups] == [
        ("float16 -> q8_0", 16), ("float32 -> float32", 5)]
    heads = [d["metrics"]["qk_heads"] for d in r.differences if d["metrics"]]
    assert any(h > 0 for h in heads)


def test_stats_max_bytes():
    path = "tests/fixtures/qdiff/q8_0.gguf"
    rc, records, _ = cli_json("stats", "--max-bytes", "64", path)
    r = tshape.stats(path, max_bytes=64)
    assert r.records == records
    assert any(x.get("capped") for x in r.records)
    rc, summary, _ = cli_json("stats", "--summary", "--max-bytes", "64", path)
    assert r.summary == summary[0]
    assert r.summary["summary"]["capped"] == sum(1 for x in r.records if x.get("capped"))


def test_diff_rename_dict():
    r = tshape.diff("tests/fixtures/model/diff/model.params",
                    "tests/fixtures/model/diff/renamed.npz", strip_prefix=["arg:", "aux:"],
                    rename={"fc1_weight": "dense1_weight"})
    assert r.equal and r.totals["equal"] == 4


VERIFY_RUNS = [(p, deep) for p in sorted(
    os.path.join("tests/fixtures/verify", n) for n in os.listdir("tests/fixtures/verify")
    if not n.endswith((".py", ".md"))) for deep in (False, True)]


@pytest.mark.parametrize("path,deep", VERIFY_RUNS)
def test_verify_equals_cli(path, deep):
    rc, records, err = cli_json("verify", *(["--deep"] if deep else []), path)
    if rc == 2 and not records:  # nothing could be checked: an error line
        with pytest.raises(tshape.Error):
            tshape.verify(path, deep=deep)
        return
    r = tshape.verify(path, deep=deep)
    assert r.records() == records
    assert r.status == rc


SCAN_RUNS = ["tests/fixtures/pytorch/adam.pt", "tests/fixtures/pytorch/evil_stack_global.pt",
             "tests/fixtures/scan", "../shared/corpus/pytorch"]


@pytest.mark.parametrize("path", SCAN_RUNS)
def test_scan_equals_cli(path):
    if not os.path.exists(path):
        pytest.skip("no %s" % path)
    rc, records, _ = cli_json("scan", path)
    r = tshape.scan(path)
    assert r.records == records
    assert r.status == rc


CONVERT_RUNS = [
    (["examples/checkpoint.npz", "OUT/a.safetensors"], {}),
    (["--to", "npz", "-z", "--skip-unsupported", "examples/model.safetensors", "OUT/b.npz"],
     dict(to="npz", compress=True, skip_unsupported=True)),
    (["--max-shard-size", "600", "tests/fixtures/model/hf", "OUT/c.safetensors"],
     dict(max_shard_size=600)),
    (["--filter", "*.weight", "-p", "model.", "--cast", "float32", "tests/fixtures/model/hf",
      "OUT/d.npz"], dict(filter="*.weight", strip_prefix="model.", cast="float32")),
    (["--cast", "float16", "tests/fixtures/values/deflated.npz", "OUT/e.safetensors"],
     dict(cast="float16")),
    (["--dequantize", "tests/fixtures/values/quant.gguf", "OUT/f.safetensors"],
     dict(dequantize=True)),
    (["tests/fixtures/pytorch/channels_last.pt", "OUT/g.safetensors"], {}),
]


@pytest.mark.parametrize("args,kw", CONVERT_RUNS)
def test_convert_equals_cli(args, kw, tmp_path):
    a, b = tmp_path / "cli", tmp_path / "py"
    a.mkdir()
    b.mkdir()
    out = args[-1]
    rc, records, err = cli_json("convert", *args[:-1], out.replace("OUT", str(a)))
    assert rc == 0, err
    r = tshape.convert(args[-2], out.replace("OUT", str(b)), **kw)
    expect = records[0]
    for rec in (expect, r):
        for k in ("wrote", "index"):
            if rec.get(k):
                rec[k] = os.path.basename(rec[k])
    assert r == expect
    # the same files, byte for byte
    for name in sorted(os.listdir(a)):
        assert (a / name).read_bytes() == (b / name).read_bytes(), name


def test_convert_errors(tmp_path):
    with pytest.raises(tshape.InvalidArgumentError, match="cannot tell the output format"):
        tshape.convert("examples/checkpoint.npz", str(tmp_path / "x.bin"))
    with pytest.raises(tshape.DtypeError):
        tshape.convert("tests/fixtures/npy/str_U3.npy", str(tmp_path / "x.safetensors"))
    assert not os.listdir(tmp_path)
