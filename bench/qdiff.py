#!/usr/bin/python3
"""qdiff.py DIR - writes a Llama-shaped model of about 300 MB (float16, in
Hugging Face's layout, with config.json) and its Q8_0 GGUF conversion into
DIR, by tests/fixtures/gen_qdiff.py's writers with larger sizes and a
vectorised Q8_0 (the same rule: d = max|x| / 127 per block of 32, q =
round(x / d)). For bench/qdiff.sh."""
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests",
                                "fixtures"))
import gen_qdiff as q  # noqa: E402

q.HIDDEN, q.HEADS, q.KV, q.LAYERS, q.VOCAB, q.FFN, q.CTX = 1024, 16, 4, 8, 32000, 2816, 4096
q.HEAD_DIM = q.HIDDEN // q.HEADS


def q8_0(x):
    x = x.astype(np.float32).reshape(-1, 32)
    d = np.abs(x).max(axis=1) / 127.0
    with np.errstate(divide="ignore"):
        inv = np.where(d > 0, 1.0 / d, 0.0).astype(np.float32)
    qv = np.round(x * inv[:, None]).astype(np.int8)
    blocks = np.empty(x.shape[0], dtype=[("d", "<f2"), ("q", "i1", 32)])
    blocks["d"] = d.astype(np.float16)
    blocks["q"] = qv
    deq = (blocks["d"].astype(np.float32)[:, None] * qv.astype(np.float32)).reshape(-1)
    return blocks.tobytes(), deq


q.q8_0 = q8_0


def main():
    out = sys.argv[1]
    os.makedirs(os.path.join(out, "hf"), exist_ok=True)
    t = q.hf_tensors(np.random.default_rng(25))
    q.write_safetensors(os.path.join(out, "hf", "model.safetensors"), t)
    with open(os.path.join(out, "hf", "config.json"), "w") as f:
        json.dump({"architectures": ["LlamaForCausalLM"], "model_type": "llama",
                   "hidden_size": q.HIDDEN, "intermediate_size": q.FFN,
                   "num_attention_heads": q.HEADS, "num_key_value_heads": q.KV,
                   "num_hidden_layers": q.LAYERS, "vocab_size": q.VOCAB,
                   "max_position_embeddings": q.CTX, "torch_dtype": "float16"}, f)
    q.write_gguf(os.path.join(out, "q8_0.gguf"), t, quant=True)


if __name__ == "__main__":
    main()
