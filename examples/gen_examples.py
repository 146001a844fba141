#!/usr/bin/python3
"""Writes the small example files the README's quick start inspects.

Run with Debian's /usr/bin/python3 (python3-numpy). The .npy/.npz files are
written by NumPy itself. NumPy cannot write safetensors, MXNet or GGUF
files, so those are written here from the formats' specifications (see
../shared/docs/), with struct and json; their payloads are real data of the
declared dtype. Output is deterministic.
"""
import json
import os
import struct

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def path(name):
    return os.path.join(HERE, name)


def npy_files():
    rng = np.random.default_rng(7)
    np.save(path("image.npy"), rng.standard_normal((3, 32, 32)).astype("<f4"))
    np.save(path("labels.npy"), np.arange(10, dtype="<i8"))
    np.save(path("mask_fortran.npy"), np.asfortranarray(np.eye(4, 6, dtype=bool)))
    np.savez_compressed(
        path("checkpoint.npz"),
        **{
            "conv1.weight": rng.standard_normal((8, 3, 3, 3)).astype("<f4"),
            "conv1.bias": np.zeros(8, dtype="<f4"),
            "step": np.int64(1200),
        },
    )


def safetensors_file():
    # safetensors: u64 header length, JSON header padded to 8 bytes, buffer.
    tensors = [
        ("embed.weight", "F32", (16, 8), np.arange(128, dtype="<f4").tobytes()),
        ("head.bias", "F16", (4,), np.ones(4, dtype="<f2").tobytes()),
        ("head.weight", "BF16", (4, 8), b"\x80\x3f" * 32),  # 1.0 in bfloat16
    ]
    header, offset, data = {}, 0, b""
    for name, dtype, shape, payload in tensors:
        header[name] = {"dtype": dtype, "shape": list(shape),
                        "data_offsets": [offset, offset + len(payload)]}
        offset += len(payload)
        data += payload
    header["__metadata__"] = {"format": "pt", "source": "tshape examples"}
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path("model.safetensors"), "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + data)


def mxnet_file(filename, inputs):
    # MXNet NDArray list (mx.nd.save of a dict), V2 dense records.
    arrays = [
        ("arg:fc1_weight", np.arange(64 * inputs, dtype="<f4").reshape(64, inputs)),
        ("arg:fc1_bias", np.zeros(64, dtype="<f4")),
        ("aux:bn_moving_mean", np.zeros(64, dtype="<f4")),
    ]
    out = struct.pack("<QQQ", 0x112, 0, len(arrays))
    for _, a in arrays:
        out += struct.pack("<Ii", 0xF993FAC9, 0)               # V2 magic, dense
        out += struct.pack("<I", a.ndim) + struct.pack("<%dq" % a.ndim, *a.shape)
        out += struct.pack("<iii", 1, 0, 0)                    # cpu(0), float32
        out += a.tobytes()
    out += struct.pack("<Q", len(arrays))
    for name, _ in arrays:
        out += struct.pack("<Q", len(name)) + name.encode()
    with open(path(filename), "wb") as f:
        f.write(out)


if __name__ == "__main__":
    npy_files()
    safetensors_file()
    mxnet_file("resnet-0000.params", 10)
    # The next checkpoint of the same model, with a wider first layer: the
    # README's "compare two checkpoints" recipe finds the difference.
    mxnet_file("resnet-0001.params", 12)
