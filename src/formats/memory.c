/*
 * memory.c - ts_model_memory: the memory a model needs loaded, its weights
 * and its KV cache. The weights are the bytes of its tensors, exactly
 * (sub-byte dtypes counted in bits, GGUF blocks in whole blocks). The KV
 * cache is what llama.cpp allocates (src/llama-kv-cache.cpp: per layer, a
 * K and a V buffer of n_ctx cells of n_embd_k_gqa = n_embd_head_k *
 * n_head_kv and n_embd_v_gqa elements of the cache type, F16 unless
 * told) and transformers' DynamicCache holds (per layer, key and value
 * states of shape (batch, num_key_value_heads, seq_len, head_dim) in the
 * model's dtype), layers of sliding-window attention holding at most the
 * window (transformers' sliding caches, llama.cpp's SWA cache):
 *     sum over layers of batch * min(context, window of the layer)
 *         * kv_heads * (head_dim_k + head_dim_v) * itemsize
 * each layer's K and V buffer rounded up to whole bytes (sub-byte dtypes)
 * or whole ggml blocks (llama.cpp's quantised cache types, -ctk q8_0).
 * The model's attention comes from its folder's config.json
 * (num_hidden_layers, num_key_value_heads or num_attention_heads, head_dim
 * or hidden_size / num_attention_heads, max_position_embeddings,
 * torch_dtype, sliding_window with layer_types or sliding_window_pattern)
 * or a GGUF file's keys (ARCH.block_count, ARCH.attention.head_count_kv,
 * ARCH.attention.head_count, ARCH.embedding_length, ARCH.attention.
 * key_length / value_length, ARCH.context_length), as gguf-parser-go reads
 * them.
 */
#include "model_meta.h"

#include <stdio.h>
#include <stdlib.h>

#define OPTIONS_V1_SIZE (offsetof(ts_memory_options, kv_dtype) + sizeof(ts_dtype))

/* A config.json entry of m (compacted JSON text), or NULL. */
static const char *config(const ts_model *m, const char *key)
{
    for (size_t i = 0; i < ts_model_metadata_count(m); i++) {
        const ts_model_meta *e = ts_model_metadata_at(m, i);
        if (e->source == TS_MODEL_META_CONFIG && strcmp(e->key, key) == 0)
            return e->value;
    }
    return NULL;
}

static int64_t json_int(const char *v)
{
    if (!v)
        return -1;
    char *end;
    long long n = strtoll(v, &end, 10);
    return end != v && *end == '\0' && n >= 0 ? (int64_t)n : -1;
}

static int64_t config_int(const ts_model *m, const char *key)
{
    return json_int(config(m, key));
}

/* The first of two spellings that config.json has: transformers' common
 * name, or the one of GPT-2-style configs (n_layer, n_head, n_embd,
 * n_positions). */
static int64_t config_int2(const ts_model *m, const char *key, const char *alt)
{
    int64_t v = config_int(m, key);
    return v > 0 ? v : config_int(m, alt);
}

/* A GGUF member's metadata value (JSON text), or NULL. */
static const char *gguf_meta(const ts_file *f, const char *key)
{
    for (size_t i = 0; i < ts_file_metadata_count(f); i++) {
        const char *k, *v;
        if (ts_file_metadata(f, i, &k, NULL) && strcmp(k, key) == 0 &&
            ts_file_metadata(f, i, &k, &v))
            return v;
    }
    return NULL;
}

static int64_t gguf_int(const ts_file *f, const char *arch, const char *key)
{
    char k[160];
    snprintf(k, sizeof k, "%s.%s", arch, key);
    return json_int(gguf_meta(f, k));
}

/* The KV dtype named by config.json's torch_dtype ("\"bfloat16\""). */
static ts_dtype dtype_of(const char *json)
{
    if (!json)
        return TS_DTYPE_UNKNOWN;
    char name[32];
    size_t n = strlen(json);
    if (n < 2 || n - 2 >= sizeof name || json[0] != '"')
        return TS_DTYPE_UNKNOWN;
    memcpy(name, json + 1, n - 2);
    name[n - 2] = '\0';
    ts_dtype dt;
    return ts_dtype_from_string(name, &dt, NULL) == TS_OK ? dt : TS_DTYPE_UNKNOWN;
}

/* How many of the layers use sliding-window attention (config.json):
 * layer_types' "sliding_attention" entries, or with
 * sliding_window_pattern P every layer but each P-th, every even layer of
 * a Gemma 2 (transformers' Gemma2DecoderLayer: is_sliding = not
 * layer_idx % 2), or all layers when only sliding_window is set (mistral)
 * and use_sliding_window is not false. */
static int64_t sliding_layers(const ts_model *m, int64_t layers)
{
    const char *types = config(m, "layer_types");
    if (types) {
        int64_t k = 0;
        for (const char *p = types; (p = strstr(p, "\"sliding_attention\"")) != NULL; p++)
            k++;
        return k;
    }
    int64_t pattern = config_int(m, "sliding_window_pattern");
    if (pattern > 0)
        return layers - layers / pattern;
    const char *type = config(m, "model_type");
    if (type && strcmp(type, "\"gemma2\"") == 0)
        return (layers + 1) / 2;
    const char *use = config(m, "use_sliding_window");
    if (use && strcmp(use, "false") == 0)
        return 0;
    return layers;
}

/* Bytes of `count` elements of the cache: whole blocks of a quantised
 * type (block_bytes > 0), else bits rounded up to whole bytes. -1 on
 * overflow. */
static int64_t cache_bytes(int64_t count, ts_dtype kv, int64_t block_size, int64_t block_bytes)
{
    int64_t r;
    if (block_bytes > 0)
        return __builtin_mul_overflow((count + block_size - 1) / block_size, block_bytes, &r)
                   ? -1 : r;
    return __builtin_mul_overflow(count, (int64_t)ts_dtype_bits(kv), &r) ? -1 : (r + 7) / 8;
}

/* One layer's K and V buffers for `cells` cells (llama.cpp's
 * llama_kv_cache: ggml tensors of n_embd_k_gqa x kv_size and n_embd_v_gqa x
 * kv_size elements of the cache type), batch sequences. -1 on overflow. */
static int64_t buffers_bytes(const ts_memory *out, int64_t cells, ts_dtype kv,
                             int64_t block_size, int64_t block_bytes)
{
    int64_t n, k, v;
    if (__builtin_mul_overflow(cells, out->batch, &n) ||
        __builtin_mul_overflow(n, out->kv_heads, &n) ||
        __builtin_mul_overflow(n, out->head_dim_k, &k) ||
        __builtin_mul_overflow(n, out->head_dim_v, &v))
        return -1;
    k = cache_bytes(k, kv, block_size, block_bytes);
    v = cache_bytes(v, kv, block_size, block_bytes);
    return k < 0 || v < 0 || __builtin_add_overflow(k, v, &n) ? -1 : n;
}

ts_status ts_model_memory(const ts_model *m, const ts_memory_options *opts, ts_memory *out,
                          ts_error *err)
{
    static const char fn[] = "ts_model_memory";
    TS__ARG_NONNULL(err, m);
    TS__ARG_NONNULL(err, out);
    ts_memory_options o = TS_MEMORY_OPTIONS_INIT;
    if (opts) {
        ts_status st = ts__read_struct(err, fn, "opts", "options", opts, OPTIONS_V1_SIZE, &o,
                                       sizeof o, "TS_MEMORY_OPTIONS_INIT", "ts_memory_options");
        if (st)
            return st;
    }
    if (o.context < 0 || o.batch < 0)
        return ts__bad_arg(err, fn, "opts->context is %lld and opts->batch %lld: expected "
                           ">= 0", (long long)o.context, (long long)o.batch);
    if (o.kv_dtype != TS_DTYPE_UNKNOWN && ts_dtype_bits(o.kv_dtype) <= 0)
        return ts__bad_arg(err, fn, "opts->kv_dtype is %d (%s), not a dtype of fixed size",
                           (int)o.kv_dtype, ts_dtype_name(o.kv_dtype));
    int64_t block_size = 1, block_bytes = 0;
    const char *kv_type = NULL;
    if (o.kv_type && !(kv_type = ts_kv_cache_type(o.kv_type, &block_size, &block_bytes))) {
        char shown[64];
        return ts__bad_arg(err, fn, "opts->kv_type '%s' is not a quantised cache type of "
                           "llama.cpp (" TS__GGML_CACHE_TYPES ")",
                           ts__printable(o.kv_type, strlen(o.kv_type), shown, sizeof shown));
    }
    ts__ok(err);
    memset(out, 0, sizeof *out);
    /* the weights: bits of sub-byte dtypes added up, bytes of the rest */
    int64_t bytes = 0, bits = 0;
    for (size_t i = 0; i < ts_model_count(m); i++) {
        const ts_array *a = ts_model_array(m, i, NULL);
        if (a->bits > 0 && a->bits % 8 != 0 && a->block_size == 1)
            bits += a->size * a->bits;
        else if (a->nbytes > 0)
            bytes += a->nbytes;
    }
    out->weights = bytes + (bits + 7) / 8;
    out->layers = out->kv_heads = out->head_dim_k = out->head_dim_v = -1;
    out->context = out->sliding_window = -1;
    out->kv_cache = -1;
    out->batch = o.batch > 0 ? o.batch : 1;
    ts_dtype kv = o.kv_dtype;
    int64_t heads = -1, sliding = 0;
    /* config.json */
    int64_t layers = config_int2(m, "num_hidden_layers", "n_layer");
    if (layers > 0) {
        out->source = "config.json";
        heads = config_int2(m, "num_attention_heads", "n_head");
        out->kv_heads = config_int(m, "num_key_value_heads");
        if (out->kv_heads <= 0)
            out->kv_heads = heads;
        int64_t hd = config_int(m, "head_dim"), hidden = config_int2(m, "hidden_size", "n_embd");
        if (hd <= 0 && hidden > 0 && heads > 0)
            hd = hidden / heads;
        out->head_dim_k = out->head_dim_v = hd;
        out->context = o.context > 0 ? o.context
                                     : config_int2(m, "max_position_embeddings", "n_positions");
        if (kv == TS_DTYPE_UNKNOWN)
            kv = dtype_of(config(m, "torch_dtype"));
        if (kv == TS_DTYPE_UNKNOWN)
            kv = dtype_of(config(m, "dtype"));
        out->sliding_window = config_int(m, "sliding_window");
        if (out->sliding_window > 0)
            sliding = sliding_layers(m, layers);
        out->layers = layers;
    }
    /* or a GGUF member's keys */
    for (size_t f = 0; out->layers < 0 && f < ts_model_file_count(m); f++) {
        const ts_file *file = ts_model_file(m, f);
        const char *archj = ts_file_format(file) == TS_FORMAT_GGUF
                                ? gguf_meta(file, "general.architecture") : NULL;
        char arch[64];
        size_t al = archj ? strlen(archj) : 0;
        if (al < 3 || al - 2 >= sizeof arch || archj[0] != '"')
            continue;
        memcpy(arch, archj + 1, al - 2);
        arch[al - 2] = '\0';
        layers = gguf_int(file, arch, "block_count");
        if (layers <= 0)
            continue;
        out->source = "gguf";
        out->layers = layers;
        heads = gguf_int(file, arch, "attention.head_count");
        out->kv_heads = gguf_int(file, arch, "attention.head_count_kv");
        if (out->kv_heads <= 0)
            out->kv_heads = heads;
        int64_t embd = gguf_int(file, arch, "embedding_length");
        int64_t hd = embd > 0 && heads > 0 ? embd / heads : -1;
        out->head_dim_k = gguf_int(file, arch, "attention.key_length");
        out->head_dim_v = gguf_int(file, arch, "attention.value_length");
        if (out->head_dim_k <= 0)
            out->head_dim_k = hd;
        if (out->head_dim_v <= 0)
            out->head_dim_v = hd;
        out->context = o.context > 0 ? o.context : gguf_int(file, arch, "context_length");
        if (kv == TS_DTYPE_UNKNOWN)
            kv = TS_DTYPE_FLOAT16; /* llama.cpp's default cache type */
    }
    if (kv_type)
        kv = TS_DTYPE_QUANTIZED;
    else if (kv == TS_DTYPE_UNKNOWN)
        kv = TS_DTYPE_FLOAT16;
    out->kv_dtype = kv;
    out->kv_type = kv_type;
    out->sliding_layers = sliding;
    if (out->layers > 0 && out->kv_heads > 0 && out->head_dim_k > 0 && out->head_dim_v > 0 &&
        out->context > 0) {
        int64_t win = out->sliding_window > 0 && out->sliding_window < out->context
                          ? out->sliding_window : out->context;
        int64_t full = buffers_bytes(out, out->context, kv, block_size, block_bytes);
        int64_t part = buffers_bytes(out, win, kv, block_size, block_bytes);
        int64_t a, b;
        out->kv_cache = full < 0 || part < 0 ||
                                __builtin_mul_overflow(full, out->layers - sliding, &a) ||
                                __builtin_mul_overflow(part, sliding, &b) ||
                                __builtin_add_overflow(a, b, &a)
                            ? -1 : a;
    }
    out->total = out->weights + (out->kv_cache > 0 ? out->kv_cache : 0);
    return TS_OK;
}
