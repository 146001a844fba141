"""Installs the tshape Python module (python/tshape) offline:

    /usr/bin/python3 -m venv --system-site-packages V
    V/bin/pip install ./python

Only setuptools (Debian's python3-setuptools) and NumPy are needed; there
is no pyproject.toml on purpose: pip then builds with the setuptools at hand
instead of downloading one into an isolated build environment.

The module loads libtshape with ctypes. From a source tree, this script
builds the shared library (`make build/libtshape.so.VERSION` in the
repository root, a no-op when it is up to date) and installs a copy inside
the package, so the module works without `make install`. With
TSHAPE_NO_BUNDLE=1 (the Debian package python3-tshape, which depends on
libtshape0) no copy is installed and the system's libtshape.so.0 is used.
"""
import os
import re
import shutil
import subprocess
import sys

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
HEADER = os.path.join(ROOT, "include", "tshape.h")


def version():
    try:
        with open(HEADER) as f:
            return re.search(r'#define TS_VERSION_STRING "([^"]+)"', f.read()).group(1)
    except (OSError, AttributeError):
        return "0.1.0"


def bundle():
    return os.environ.get("TSHAPE_NO_BUNDLE", "") in ("", "0")


def built_library():
    """The freshly built shared library of the source tree, or None."""
    if not os.path.exists(HEADER):
        return None
    target = "build/libtshape.so." + version()
    if shutil.which("make"):
        r = subprocess.run(["make", "-s", "-C", ROOT, target], stdout=sys.stderr)
        if r.returncode != 0:
            print("setup.py: building %s failed; the module will use the system's "
                  "libtshape.so.0" % target, file=sys.stderr)
    path = os.path.join(ROOT, target)
    return path if os.path.exists(path) else None


class BuildPy(build_py):
    def run(self):
        build_py.run(self)
        if not bundle():
            return
        lib = built_library()
        if lib:
            dest = os.path.join(self.build_lib, "tshape", "libtshape.so.0")
            self.copy_file(lib, dest)


class BinaryDistribution(Distribution):
    """The wheel holds a shared library when bundled: a platform wheel."""

    def has_ext_modules(self):
        return bundle()


setup(
    name="tshape",
    version=version(),
    description="Tensor shapes and saved model files (NumPy, PyTorch, safetensors, GGUF, "
                "ONNX, HDF5, ...) read header-only and safely, over libtshape",
    long_description=open(os.path.join(HERE, "README.md")).read()
    if os.path.exists(os.path.join(HERE, "README.md")) else "",
    long_description_content_type="text/markdown",
    packages=["tshape"],
    python_requires=">=3.9",
    install_requires=["numpy"],
    cmdclass={"build_py": BuildPy},
    distclass=BinaryDistribution,
    zip_safe=False,
)
