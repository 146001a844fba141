#!/usr/bin/python3
"""Cross-checks `tshape info --json` against NumPy on every .npy/.npz file of
the fixtures, the examples and the shared corpus: shape, descr, itemsize,
fortran_order, size, nbytes, and for .npy files and stored .npz members that
the bytes at data_offset are the array's data. Object arrays are compared
without their data (the pickle is never read). Exit 0 if all agree.

Usage: crosscheck_npy.py TSHAPE
"""
import glob
import io
import json
import os
import subprocess
import sys
import zipfile

import numpy as np
from numpy.lib import format as npf

MAX_HEADER = 20000


def header_of(f):
    version = npf.read_magic(f)
    if version == (1, 0):
        shape, fortran, dtype = npf.read_array_header_1_0(f, max_header_size=MAX_HEADER)
    else:
        shape, fortran, dtype = npf.read_array_header_2_0(f, max_header_size=MAX_HEADER)
    return shape, fortran, dtype, f.tell()


def expected_npy(raw, with_data):
    """NumPy's view of an npy image: raises where NumPy refuses it. With
    with_data the whole array is read (so truncated data is refused)."""
    f = io.BytesIO(raw)
    shape, fortran, dtype, offset = header_of(f)
    if with_data and not dtype.hasobject:
        npf.read_array(io.BytesIO(raw), allow_pickle=False, max_header_size=MAX_HEADER)
    n = int(np.prod(shape, dtype=object)) if shape else 1
    return shape, fortran, dtype, offset, n


def main():
    tshape = sys.argv[1]
    files = sorted(glob.glob("tests/fixtures/npy/*.np[yz]") + glob.glob("examples/*.np[yz]") +
                   glob.glob("../shared/corpus/npy/*.np[yz]"))
    checked = mismatches = 0
    for path in files:
        out = subprocess.run([tshape, "info", "--json", "--max-header", "20000", path],
                             capture_output=True, text=True)
        raw = open(path, "rb").read()
        if path.endswith(".npy"):
            try:
                entries = {"": (expected_npy(raw, True), raw, 0)}
            except Exception:
                # NumPy refuses it: tshape must refuse it too.
                if out.returncode == 0:
                    print(f"MISMATCH {path}: NumPy refuses it, tshape accepts it")
                    mismatches += 1
                continue
        else:
            try:
                z = zipfile.ZipFile(path)
                entries = {}
                for info in z.infolist():
                    if not info.filename.endswith(".npy"):
                        continue
                    if info.compress_type == zipfile.ZIP_STORED:
                        # Stored: tshape checks the sizes, so NumPy must
                        # read the whole member (zipfile checks its CRC).
                        member = z.read(info.filename)
                        lh = raw[info.header_offset:info.header_offset + 30]
                        nlen = int.from_bytes(lh[26:28], "little")
                        xlen = int.from_bytes(lh[28:30], "little")
                        base = info.header_offset + 30 + nlen + xlen
                        entries[info.filename[:-4]] = (expected_npy(member, True), raw, base)
                    else:
                        # Deflated: tshape reads only the header (it never
                        # inflates data, so a zip bomb costs nothing).
                        # Deflate expands at most about 1032:1: a larger
                        # claim cannot be loaded (tshape rejects it).
                        if info.file_size > info.compress_size * 1040:
                            raise ValueError("impossible compression ratio")
                        with z.open(info.filename) as m:
                            head = m.read(MAX_HEADER + 16)
                        e = expected_npy(head, False)
                        shape, fortran, dtype, offset, n = e
                        # A member shorter than its header's data cannot be
                        # loaded by NumPy: its directory size says so.
                        if not dtype.hasobject and info.file_size < offset + n * dtype.itemsize:
                            raise ValueError("member too short for its data")
                        entries[info.filename[:-4]] = (e, raw, None)
            except Exception:
                if out.returncode == 0:
                    print(f"MISMATCH {path}: Python refuses it, tshape accepts it")
                    mismatches += 1
                continue
        if out.returncode != 0:
            print(f"MISMATCH {path}: NumPy reads it, tshape says: {out.stderr.strip()}")
            mismatches += 1
            continue
        # Array records only: a file without arrays gives an empty-file record.
        got = [r for r in map(json.loads, out.stdout.splitlines()) if "ndim" in r]
        if len(got) != len(entries):
            print(f"MISMATCH {path}: {len(got)} arrays, NumPy {len(entries)}")
            mismatches += 1
            continue
        for g in got:
            (shape, fortran, dtype, offset, n), data, base = entries[g["name"]]
            problems = []
            if tuple(g["shape"]) != tuple(shape):
                problems.append(f"shape {g['shape']} vs {shape}")
            # NumPy normalises '=' (native) to '<' on this little-endian host.
            descr = g["descr"].replace("=", "<", 1) if g["descr"] else g["descr"]
            if not dtype.names and descr != dtype.str:
                problems.append(f"descr {g['descr']} vs {dtype.str}")
            if g["itemsize"] != dtype.itemsize:
                problems.append(f"itemsize {g['itemsize']} vs {dtype.itemsize}")
            if (g["order"] == "F") != fortran:
                problems.append(f"order {g['order']} vs fortran_order {fortran}")
            if g["size"] != n:
                problems.append(f"size {g['size']} vs {n}")
            if not dtype.hasobject:
                if g["nbytes"] != n * dtype.itemsize:
                    problems.append(f"nbytes {g['nbytes']} vs {n * dtype.itemsize}")
                if base is not None:
                    want = base + offset
                    if g["data_offset"] != want:
                        problems.append(f"data_offset {g['data_offset']} vs {want}")
                    else:
                        arr = npf.read_array(io.BytesIO(data[base:]), allow_pickle=False,
                                             max_header_size=MAX_HEADER)
                        chunk = data[want:want + g["nbytes"]]
                        body = np.asfortranarray(arr) if fortran else np.ascontiguousarray(arr)
                        if chunk != body.tobytes(order="F" if fortran else "C"):
                            problems.append("the bytes at data_offset are not the data")
                elif g["data_offset"] is not None:
                    problems.append("a deflated member has a data_offset")
            else:
                if g["nbytes"] is not None:
                    problems.append("object array with a byte count")
            checked += 1
            if problems:
                mismatches += 1
                print(f"MISMATCH {path}:{g['name']}: " + "; ".join(problems))
    print(f"crosscheck_npy: {checked} arrays in {len(files)} files agree with NumPy "
          f"{np.__version__}" if not mismatches else f"crosscheck_npy: {mismatches} mismatches")
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
