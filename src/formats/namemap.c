/*
 * namemap.c - tensor names across a conversion to GGUF: the names a
 * Hugging Face (or original PyTorch) checkpoint gives a tensor, and the
 * names llama.cpp's convert_hf_to_gguf.py writes for it. The rule table
 * follows llama.cpp's gguf-py: gguf/tensor_mapping.py (TensorNameMap,
 * "{bid}" is the layer) for the checkpoint names, gguf/constants.py
 * (TENSOR_NAMES) for the GGUF ones. A checkpoint name is a pattern followed
 * by ".weight" or ".bias" (kept as is); N stands for the layer number.
 *
 * Also the heads behind llama.cpp's reordering of the query and key rows
 * of llama models (convert_hf_to_gguf.py, LlamaModel.modify_tensors:
 * q_proj permuted with the attention heads, k_proj with the key/value
 * heads), read from the GGUF file's own metadata.
 */
#include "reader.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct rule {
    const char *src;         /* checkpoint pattern, "N" for the layer */
    const char *gguf;        /* GGUF pattern */
} rule;

/* In the order of tensor_mapping.py's groups; the first row of a GGUF name
 * is the one it maps back to (llama-hf's). */
static const rule rules[] = {
    /* llama-hf: LlamaForCausalLM and the models that share its names
     * (mistral, qwen2, qwen3, gemma, olmo2, phi3's mlp, ...) */
    {"model.embed_tokens", "token_embd"},                          /* TOKEN_EMBD */
    {"model.norm", "output_norm"},                                 /* OUTPUT_NORM */
    {"lm_head", "output"},                                         /* OUTPUT */
    {"model.layers.N.input_layernorm", "blk.N.attn_norm"},         /* ATTN_NORM */
    {"model.layers.N.self_attn.q_proj", "blk.N.attn_q"},           /* ATTN_Q */
    {"model.layers.N.self_attn.k_proj", "blk.N.attn_k"},           /* ATTN_K */
    {"model.layers.N.self_attn.v_proj", "blk.N.attn_v"},           /* ATTN_V */
    {"model.layers.N.self_attn.o_proj", "blk.N.attn_output"},      /* ATTN_OUT */
    {"model.layers.N.self_attn.q_norm", "blk.N.attn_q_norm"},      /* ATTN_Q_NORM */
    {"model.layers.N.self_attn.k_norm", "blk.N.attn_k_norm"},      /* ATTN_K_NORM */
    {"model.layers.N.post_attention_layernorm", "blk.N.ffn_norm"}, /* FFN_NORM */
    {"model.layers.N.mlp.gate_proj", "blk.N.ffn_gate"},            /* FFN_GATE */
    {"model.layers.N.mlp.up_proj", "blk.N.ffn_up"},                /* FFN_UP */
    {"model.layers.N.mlp.down_proj", "blk.N.ffn_down"},            /* FFN_DOWN */
    {"model.layers.N.block_sparse_moe.gate", "blk.N.ffn_gate_inp"}, /* FFN_GATE_INP mixtral */
    {"model.layers.N.mlp.gate", "blk.N.ffn_gate_inp"},             /* FFN_GATE_INP qwen2moe */
    /* llama-pth: Meta's original checkpoints */
    {"tok_embeddings", "token_embd"},
    {"norm", "output_norm"},
    {"output", "output"},
    {"rope.freqs", "rope_freqs"},                                  /* ROPE_FREQS */
    {"layers.N.attention_norm", "blk.N.attn_norm"},
    {"layers.N.attention.wq", "blk.N.attn_q"},
    {"layers.N.attention.wk", "blk.N.attn_k"},
    {"layers.N.attention.wv", "blk.N.attn_v"},
    {"layers.N.attention.wo", "blk.N.attn_output"},
    {"layers.N.ffn_norm", "blk.N.ffn_norm"},
    {"layers.N.feed_forward.w1", "blk.N.ffn_gate"},
    {"layers.N.feed_forward.w2", "blk.N.ffn_down"},
    {"layers.N.feed_forward.w3", "blk.N.ffn_up"},
    /* gpt2 (transformer.*; Conv1D weights are stored transposed there) */
    {"transformer.wte", "token_embd"},
    {"transformer.wpe", "position_embd"},                          /* POS_EMBD */
    {"transformer.ln_f", "output_norm"},
    {"transformer.h.N.ln_1", "blk.N.attn_norm"},
    {"transformer.h.N.attn.c_attn", "blk.N.attn_qkv"},             /* ATTN_QKV */
    {"transformer.h.N.attn.c_proj", "blk.N.attn_output"},
    {"transformer.h.N.ln_2", "blk.N.ffn_norm"},
    {"transformer.h.N.mlp.c_fc", "blk.N.ffn_up"},
    {"transformer.h.N.mlp.c_proj", "blk.N.ffn_down"},
    /* bert */
    {"embeddings.word_embeddings", "token_embd"},
    {"embeddings.position_embeddings", "position_embd"},
    {"embeddings.token_type_embeddings", "token_types"},           /* TOKEN_TYPES */
    {"embeddings.LayerNorm", "token_embd_norm"},                   /* TOKEN_EMBD_NORM */
    {"encoder.layer.N.attention.self.query", "blk.N.attn_q"},
    {"encoder.layer.N.attention.self.key", "blk.N.attn_k"},
    {"encoder.layer.N.attention.self.value", "blk.N.attn_v"},
    {"encoder.layer.N.attention.output.dense", "blk.N.attn_output"},
    {"encoder.layer.N.attention.output.LayerNorm", "blk.N.attn_output_norm"},
    {"encoder.layer.N.intermediate.dense", "blk.N.ffn_up"},
    {"encoder.layer.N.output.dense", "blk.N.ffn_down"},
    {"encoder.layer.N.output.LayerNorm", "blk.N.layer_output_norm"},
};

/* Matches name against pattern p (N: 1 to 9 decimal digits) up to a
 * suffix; *layer receives the digits (or ""), *rest what follows. */
static int match(const char *pattern, const char *name, char layer[16], const char **rest)
{
    const char *p = pattern;
    layer[0] = '\0';
    while (*p) {
        if (*p == 'N' && (p[1] == '.' || p[1] == '\0') && (p == pattern || p[-1] == '.')) {
            size_t k = 0;
            while (name[k] >= '0' && name[k] <= '9' && k < 9)
                k++;
            if (k == 0 || (name[k] >= '0' && name[k] <= '9'))
                return 0;
            memcpy(layer, name, k);
            layer[k] = '\0';
            name += k;
            p++;
            continue;
        }
        if (*p != *name)
            return 0;
        p++;
        name++;
    }
    *rest = name;
    return 1;
}

/* The pattern with N replaced by layer, then rest, into buf. */
static size_t expand(const char *pattern, const char *layer, const char *rest, char *buf,
                     size_t cap)
{
    size_t n = 0;
    for (const char *p = pattern; *p; p++) {
        if (*p == 'N' && (p[1] == '.' || p[1] == '\0') && (p == pattern || p[-1] == '.')) {
            for (const char *l = layer; *l; l++, n++)
                if (n + 1 < cap)
                    buf[n] = *l;
            continue;
        }
        if (n + 1 < cap)
            buf[n] = *p;
        n++;
    }
    for (; *rest; rest++, n++)
        if (n + 1 < cap)
            buf[n] = *rest;
    if (cap > 0)
        buf[n < cap ? n : cap - 1] = '\0';
    return n;
}

size_t ts_tensor_name_map(ts_name_map direction, const char *name, char *buf, size_t cap)
{
    if (buf && cap > 0)
        buf[0] = '\0';
    if (!name || (!buf && cap > 0) ||
        (direction != TS_NAME_MAP_TO_GGUF && direction != TS_NAME_MAP_FROM_GGUF))
        return 0;
    for (size_t i = 0; i < sizeof rules / sizeof *rules; i++) {
        const char *from = direction == TS_NAME_MAP_TO_GGUF ? rules[i].src : rules[i].gguf;
        const char *to = direction == TS_NAME_MAP_TO_GGUF ? rules[i].gguf : rules[i].src;
        char layer[16];
        const char *rest;
        if (!match(from, name, layer, &rest))
            continue;
        if (strcmp(rest, ".weight") != 0 && strcmp(rest, ".bias") != 0)
            continue;
        return expand(to, layer, rest, buf, cap);
    }
    return 0;
}

/* The integer value of metadata key `key` of f, or -1. */
static int64_t meta_int(const ts_file *f, const char *key)
{
    for (size_t i = 0; i < ts_file_metadata_count(f); i++) {
        const char *k, *v;
        if (!ts_file_metadata(f, i, &k, NULL) || strcmp(k, key) != 0)
            continue;
        if (!ts_file_metadata(f, i, &k, &v) || !v)
            return -1;
        char *end;
        long long n = strtoll(v, &end, 10);
        return end != v && *end == '\0' && n > 0 ? (int64_t)n : -1;
    }
    return -1;
}

int64_t ts_gguf_qk_heads(const ts_file *f, const char *name)
{
    if (!f || !name || ts_file_format(f) != TS_FORMAT_GGUF)
        return 0;
    size_t n = strlen(name);
    int q = n > 0 && strstr(name, ".attn_q.") != NULL;
    int k = n > 0 && strstr(name, ".attn_k.") != NULL;
    if ((!q && !k) || strncmp(name, "blk.", 4) != 0)
        return 0;
    /* the architectures whose converter permutes: llama's (LlamaModel) */
    const char *arch = NULL;
    for (size_t i = 0; i < ts_file_metadata_count(f); i++) {
        const char *key, *v;
        if (ts_file_metadata(f, i, &key, NULL) && strcmp(key, "general.architecture") == 0 &&
            ts_file_metadata(f, i, &key, &v))
            arch = v;
    }
    if (!arch || strcmp(arch, "\"llama\"") != 0)
        return 0;
    int64_t heads = meta_int(f, "llama.attention.head_count");
    int64_t kv = meta_int(f, "llama.attention.head_count_kv");
    if (heads <= 0)
        return 0;
    return k && kv > 0 ? kv : heads;
}
