"""tshape.open's records equal `tshape --json info`'s, for every fixture and
corpus file (and its errors are the CLI's errors)."""
import os

import pytest

import tshape
from conftest import cli_json, corpus_files, fixture_files, rel

FILES = [rel(f) for f in fixture_files() + corpus_files()]


def cli_error_message(stderr, path):
    """The library's message of the CLI's error line for path."""
    for line in stderr.splitlines():
        prefix = "tshape: info: %s: " % path
        if line.startswith(prefix):
            return line[len(prefix):]
    return None


@pytest.mark.parametrize("path", FILES)
def test_records_equal_cli(path):
    rc, records, err = cli_json("info", path)
    try:
        m = tshape.open(path, metadata=False)
    except tshape.Error as e:
        assert rc == 2, "the module fails where the CLI does not: %s" % e
        msg = cli_error_message(err, path)
        assert msg is not None, err
        assert e.message == msg
        assert e.path == path
        return
    with m:
        assert rc == 0, "the CLI fails where the module does not: %s" % err
        if len(records) == 1 and records[0].get("arrays") == 0:
            assert len(m) == 0
            return
        ours = [a.to_dict() for a in m]
        assert ours == records


def test_some_files_compared():
    """The corpus and fixtures are there (a test that compares nothing
    cannot fail)."""
    assert len(FILES) > 300


@pytest.mark.parametrize("folder", ["tests/fixtures/model/hf", "tests/fixtures/model/hf-bin",
                                    "tests/fixtures/model/mixed",
                                    "tests/fixtures/model/diffmeta/shards"])
def test_folder_records_equal_cli(folder):
    rc, records, _ = cli_json("info", folder)
    with tshape.open(folder) as m:
        assert [a.to_dict() for a in m] == records
        assert m.complete == (rc == 0)


@pytest.mark.parametrize("args", [
    ["tests/fixtures/model/hf"],
    ["--group", "--tensors", "tests/fixtures/model/hf"],
    ["tests/fixtures/model/missing"],
    ["--top", "3", "--group", "tests/fixtures/pytorch/adam.pt"],
])
def test_summary_equals_cli(args):
    rc, records, _ = cli_json("info", "--summary", *args)
    path = args[-1]
    top = int(args[args.index("--top") + 1]) if "--top" in args else 5
    with tshape.open(path) as m:
        s = m.summary(top=top, group="--group" in args, tensors="--tensors" in args)
    assert s == records[-1]


@pytest.mark.parametrize("path,opts,kw", [
    ("tests/fixtures/qdiff/hf", [], {}),
    ("tests/fixtures/qdiff/hf", ["--context", "64", "--kv-dtype", "float32", "--batch", "3"],
     dict(context=64, kv_dtype="float32", batch=3)),
    ("tests/fixtures/qdiff/q8_0.gguf", [], {}),
    ("tests/fixtures/qdiff/q8_0.gguf", ["--kv-dtype", "Q8_0", "--context", "100"],
     dict(kv_dtype="Q8_0", context=100)),
])
def test_identity_memory_equal_cli(path, opts, kw):
    rc, records, _ = cli_json("info", "--summary", "--memory", *opts, path)
    with tshape.open(path) as m:
        assert m.summary(memory=True, **kw) == records[-1]
        assert m.identify() == records[-1]["identity"]
        assert m.memory(**kw) == records[-1]["memory"]


@pytest.mark.parametrize("path", ["tests/fixtures/qdiff/hf", "tests/fixtures/qdiff/q8_0.gguf",
                                  "tests/fixtures/model/hf"])
@pytest.mark.parametrize("values", [False, True])
def test_fingerprint_equals_cli_id(path, values):
    rc, records, _ = cli_json("id", *(["--values"] if values else []), path)
    with tshape.open(path) as m:
        assert m.fingerprint(values=values) == records[0]


def test_model_api():
    with tshape.open("tests/fixtures/model/hf") as m:
        assert len(m) == 12
        assert m.index == "tests/fixtures/model/hf/model.safetensors.index.json"
        assert [os.path.basename(f) for f in m.files] == ["model-00001-of-00002.safetensors",
                                                          "model-00002-of-00002.safetensors"]
        a = m["lm_head.weight"]
        assert (a.shape, a.dtype_name, a.role) == ((32, 8), "bfloat16", "parameter")
        assert "lm_head.weight" in m and "nope" not in m
        assert m[-1].name == m.names[-1]
        with pytest.raises(KeyError, match="did you mean 'lm_head.weight'"):
            m["lm_head.weights"]
        assert m.issues == []
        assert m.metadata["model_type"] == "llama"
    with pytest.raises(ValueError, match="closed"):
        len(m)
    with tshape.open("tests/fixtures/model/missing") as m:
        assert not m.complete
        assert any(i.is_error and i.kind == "shard_missing" for i in m.issues)


def test_metadata_values():
    with tshape.open("tests/fixtures/model/diffmeta/epoch2.pt") as m:
        assert m.metadata == {"epoch": 2, "loss": 0.5, "args.lr": 0.01, "args.name": "run"}
    with tshape.open("tests/fixtures/model/diffmeta/shards") as m:
        md = m.metadata
        assert md["format"] == "pt"
        assert md["step"] == {"tests/fixtures/model/diffmeta/shards/part0.safetensors": "10",
                              "tests/fixtures/model/diffmeta/shards/part1.safetensors": "11"}
        rc, records, _ = cli_json("info", "--metadata", "tests/fixtures/model/diffmeta/shards")
        assert m.metadata_entries == records[-1]["entries"]


def test_array_dtype():
    with tshape.open("examples/model.safetensors") as m:
        assert m["embed.weight"].dtype == "float32"
        assert m["head.weight"].dtype_name == "bfloat16"
    with tshape.open("tests/fixtures/npy/structured.npy") as m:
        assert m[0].dtype.names is not None
