"""Shared set-up of the module's tests: where the repository, the CLI and
the corpus are, and the CLI's JSON records to compare with.

The module under test is whatever `import tshape` gives: an installed copy
(a venv made by tests/cli/python.test.sh) or, with PYTHONPATH=python and
TSHAPE_LIBRARY=build/libtshape.so.0, the source tree against build/. The
CLI is $TSHAPE or build/tshape; the corpus $TSHAPE_CORPUS or
../shared/corpus (tests that need it are skipped without it).
"""
import json
import os
import subprocess

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
FIXTURES = os.path.join(ROOT, "tests", "fixtures")
CORPUS = os.environ.get("TSHAPE_CORPUS") or os.path.join(ROOT, "..", "shared", "corpus")
TSHAPE = os.environ.get("TSHAPE") or os.path.join(ROOT, "build", "tshape")

# Files the tests read as data: not generator scripts, notes or references.
SKIP_SUFFIXES = (".py", ".txt", ".md", ".json", ".ref", ".tsv", ".fbs", ".pyc", ".cmd",
                 ".out", ".err", ".rc", ".sh", ".c", ".h")


def data_files(top):
    """Regular files under top that are tensor files or damaged ones."""
    out = []
    if not os.path.isdir(top):
        return out
    for d, dirs, files in os.walk(top):
        dirs[:] = sorted(x for x in dirs if x != "__pycache__")
        for f in sorted(files):
            if f.endswith(SKIP_SUFFIXES) or f.startswith("."):
                continue
            out.append(os.path.join(d, f))
    return out


def fixture_files():
    return data_files(FIXTURES)


def corpus_files():
    return data_files(CORPUS)


def rel(path):
    """A path as the tests pass it to both the CLI and the module."""
    return os.path.relpath(path, ROOT)


def cli(*args, check=False):
    """Runs the CLI from the repository root: (exit status, stdout, stderr)."""
    p = subprocess.run([TSHAPE] + list(args), cwd=ROOT, capture_output=True, text=True,
                       errors="surrogateescape")
    if check and p.returncode != 0:
        raise AssertionError("tshape %s: exit %d: %s" % (" ".join(args), p.returncode,
                                                         p.stderr))
    return p.returncode, p.stdout, p.stderr


def cli_json(*args):
    """(exit status, the JSON records of stdout, stderr) of `tshape --json ARGS`."""
    rc, out, err = cli("--json", *args)
    return rc, [json.loads(line) for line in out.splitlines() if line.strip()], err


@pytest.fixture(autouse=True)
def _at_root(monkeypatch):
    """Every test runs in the repository root, so relative paths are the
    CLI's."""
    monkeypatch.chdir(ROOT)


def have(module):
    try:
        __import__(module)
        return True
    except ImportError:
        return False
