/*
 * family.c - what a checkpoint is when its metadata does not say
 * (safetensors#609): its kind (full model, LoRA adapter, VAE, text encoder,
 * optimizer state, training checkpoint) and its architecture family, from
 * the names and shapes of its tensors, by a rule table. Each rule names
 * tensors a family's modules always have, as the modeling code of
 * Hugging Face transformers and diffusers (and torchvision, timm, Meta's
 * llama, llama.cpp's GGUF names) writes them; "N" stands for a layer
 * number. The first rule whose every pattern matches some tensor wins.
 * Sizes come from shapes: layers (the distinct layer numbers of the
 * rule's first pattern), hidden size and vocabulary (the token
 * embedding's shape), attention heads where a per-head tensor fixes the
 * head size (the query's RMS norm of qwen3 and olmo2).
 */
#include "reader.h"
#include "../core/json.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct family_rule {
    const char *family;          /* "llama-style decoder" */
    ts_checkpoint_kind kind;
    const char *patterns[4];     /* all must match; NULL-terminated */
    const char *embed;           /* the token embedding (vocab, hidden), or NULL */
    int count_layers;            /* 1: the first pattern's N numbers the layers */
} family_rule;

/* Sources: transformers' modeling_*.py module names (the state dict keys of
 * the classes named), diffusers' AutoencoderKL and UNet2DConditionModel,
 * PEFT's LoRA layers (lora_A, lora_B), kohya-ss' LoRA (lora_up,
 * lora_down), llama.cpp's gguf-py constants.py (blk.N.*), torchvision's
 * resnet.py, timm's vision_transformer.py. */
static const family_rule rules[] = {
    /* adapters first: their names embed a base model's */
    {"LoRA adapter (PEFT)", TS_KIND_LORA, {".lora_A.", ".lora_B.", NULL}, NULL, 0},
    {"LoRA adapter (kohya)", TS_KIND_LORA, {".lora_up.", ".lora_down.", NULL}, NULL, 0},
    /* diffusion: VAE (AutoencoderKL), UNet, their LDM single files */
    {"VAE (AutoencoderKL)", TS_KIND_VAE,
     {"encoder.down_blocks.N.", "decoder.up_blocks.N.", "quant_conv.", NULL}, NULL, 0},
    {"UNet (UNet2DConditionModel)", TS_KIND_MODEL,
     {"down_blocks.N.resnets.N.", "mid_block.", "up_blocks.N.", NULL}, NULL, 0},
    {"latent diffusion (UNet, VAE, text encoder)", TS_KIND_MODEL,
     {"model.diffusion_model.input_blocks.N.", "first_stage_model.", NULL}, NULL, 0},
    /* speech and encoder-decoders */
    {"Whisper (encoder-decoder)", TS_KIND_MODEL,
     {"encoder.conv1.", "decoder.layers.N.encoder_attn.", NULL}, "decoder.embed_tokens.weight", 1},
    {"T5-style encoder-decoder", TS_KIND_MODEL,
     {"encoder.block.N.layer.N.SelfAttention.q.", "decoder.block.N.", NULL}, "shared.weight", 1},
    {"T5-style text encoder", TS_KIND_TEXT_ENCODER,
     {"encoder.block.N.layer.N.SelfAttention.q.", NULL}, "shared.weight", 1},
    {"CLIP text encoder", TS_KIND_TEXT_ENCODER,
     {"text_model.encoder.layers.N.self_attn.q_proj.", NULL},
     "text_model.embeddings.token_embedding.weight", 1},
    /* decoders */
    {"mixture-of-experts decoder (mixtral-style)", TS_KIND_MODEL,
     {"layers.N.self_attn.q_proj.", "block_sparse_moe.experts.N.", NULL},
     "model.embed_tokens.weight", 1},
    {"llama-style decoder", TS_KIND_MODEL,
     {"layers.N.self_attn.q_proj.", "layers.N.mlp.gate_proj.", NULL},
     "model.embed_tokens.weight", 1},
    {"llama-style decoder (GGUF)", TS_KIND_MODEL,
     {"blk.N.attn_q.", "blk.N.ffn_gate.", NULL}, "token_embd.weight", 1},
    {"llama-style decoder (Meta's checkpoint)", TS_KIND_MODEL,
     {"layers.N.attention.wq.", "layers.N.feed_forward.w1.", NULL}, "tok_embeddings.weight", 1},
    {"GPT-2-style decoder", TS_KIND_MODEL,
     {"h.N.attn.c_attn.", "h.N.mlp.c_fc.", NULL}, "transformer.wte.weight", 1},
    {"GPT-NeoX-style decoder", TS_KIND_MODEL,
     {"gpt_neox.layers.N.attention.query_key_value.", NULL}, "gpt_neox.embed_in.weight", 1},
    /* encoders and vision */
    {"ViT (vision transformer)", TS_KIND_MODEL,
     {"embeddings.patch_embeddings.projection.", "encoder.layer.N.attention.attention.query.",
      NULL}, NULL, 1},
    {"ViT (timm vision transformer)", TS_KIND_MODEL,
     {"patch_embed.proj.", "blocks.N.attn.qkv.", NULL}, NULL, 1},
    {"BERT-style encoder", TS_KIND_MODEL,
     {"encoder.layer.N.attention.self.query.", "embeddings.word_embeddings.", NULL},
     "embeddings.word_embeddings.weight", 1},
    {"ResNet (torchvision)", TS_KIND_MODEL,
     {"layer1.N.conv1.", "layer4.N.", "fc.", NULL}, NULL, 0},
    {"ResNet (transformers)", TS_KIND_MODEL, {"resnet.encoder.stages.N.", NULL}, NULL, 0},
};

static const char *const kind_names[] = {"unknown", "model", "LoRA adapter", "VAE",
                                         "text encoder", "optimizer state",
                                         "training checkpoint"};

const char *ts_checkpoint_kind_name(ts_checkpoint_kind k)
{
    return (unsigned)k < sizeof kind_names / sizeof *kind_names ? kind_names[k] : "unknown";
}

/* name with each component of 1 to 9 digits replaced by "N" into buf; the
 * first layer number into *layer (-1: none). */
static void normalize(const char *name, char *buf, size_t cap, int64_t *layer)
{
    size_t n = 0;
    *layer = -1;
    for (const char *p = name; *p && n + 2 < cap;) {
        const char *q = p;
        while (*q >= '0' && *q <= '9')
            q++;
        int comp_start = p == name || p[-1] == '.';
        if (q > p && q - p <= 9 && comp_start && (*q == '.' || *q == '\0')) {
            if (*layer < 0)
                *layer = strtoll(p, NULL, 10);
            buf[n++] = 'N';
            p = q;
            continue;
        }
        buf[n++] = *p++;
    }
    buf[n] = '\0';
}

/* The names normalized, each distinct one once: a model's many layers
 * repeat a few names, so the rules are matched against those few. */
typedef struct names {
    size_t n, ndistinct;
    char *text;                  /* the distinct names, NUL-terminated */
    char *joined;                /* the same joined by '\1' (in no pattern, so
                                    no match spans two names): one strstr
                                    asks whether any name matches */
    const char **distinct;       /* into text */
    size_t *of;                  /* per name: its distinct name */
    int64_t *layer;              /* per name: its first layer number, or -1 */
} names;

static void names_free(names *nm)
{
    free(nm->text);
    free(nm->joined);
    free(nm->distinct);
    free(nm->of);
    free(nm->layer);
}

/* nm from the model's array names; TS_ERR_NOMEM. */
static ts_status names_make(const ts_model *m, names *nm, ts_error *err)
{
    size_t n = ts_model_count(m), bytes = 0;
    memset(nm, 0, sizeof *nm);
    for (size_t i = 0; i < n; i++)
        bytes += strlen(ts_model_array_name(m, i)) + 3;
    size_t cap = 16;
    while (cap < 2 * n)
        cap *= 2;
    size_t *slot = malloc(cap * sizeof *slot); /* distinct + 1, 0 when free */
    nm->n = n;
    nm->text = malloc(bytes ? bytes : 1);
    nm->distinct = malloc((n ? n : 1) * sizeof *nm->distinct);
    nm->of = malloc((n ? n : 1) * sizeof *nm->of);
    nm->layer = malloc((n ? n : 1) * sizeof *nm->layer);
    if (!slot || !nm->text || !nm->distinct || !nm->of || !nm->layer) {
        free(slot);
        names_free(nm);
        return ts__error(err, TS_ERR_NOMEM, "out of memory");
    }
    memset(slot, 0, cap * sizeof *slot);
    char *at = nm->text;
    for (size_t i = 0; i < n; i++) {
        const char *name = ts_model_array_name(m, i);
        size_t len = strlen(name) + 2;
        /* a leading '.' so that patterns starting a name match at its start */
        at[0] = '.';
        normalize(name, at + 1, len, &nm->layer[i]);
        size_t k = strlen(at);
        size_t h = (size_t)ts__json_fnv(TS__JSON_FNV_BASIS, at, k) & (cap - 1);
        while (slot[h] && strcmp(nm->distinct[slot[h] - 1], at) != 0)
            h = (h + 1) & (cap - 1);
        if (!slot[h]) {
            nm->distinct[nm->ndistinct++] = at;
            slot[h] = nm->ndistinct;
            at += k + 1;
        }
        nm->of[i] = slot[h] - 1;
    }
    free(slot);
    size_t len = (size_t)(at - nm->text);
    if (!(nm->joined = malloc(len + 1))) {
        names_free(nm);
        return ts__error(err, TS_ERR_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < len; i++)
        nm->joined[i] = nm->text[i] ? nm->text[i] : '\1';
    nm->joined[len] = '\0';
    return TS_OK;
}

/* Does some normalized name contain pattern? With layers, the distinct
 * layer numbers of the names that do are counted in *layers (seen: 4096
 * bytes, zero). */
static int matches(const names *nm, const char *pattern, unsigned char *seen, int64_t *layers)
{
    if (!layers)
        return strstr(nm->joined, pattern) != NULL;
    int found = 0;
    unsigned char *hit = seen + 4096; /* per distinct name */
    for (size_t k = 0; k < nm->ndistinct; k++) {
        int h = strstr(nm->distinct[k], pattern) != NULL;
        found |= h;
        hit[k] = (unsigned char)h;
    }
    for (size_t i = 0; found && i < nm->n; i++) {
        int64_t l = nm->layer[i];
        if (hit[nm->of[i]] && l >= 0 && l < 4096 && !seen[l]) {
            seen[l] = 1;
            (*layers)++;
        }
    }
    return found;
}

ts_status ts_model_identify(const ts_model *m, ts_identity *out, ts_error *err)
{
    TS__ARG_NONNULL(err, m);
    TS__ARG_NONNULL(err, out);
    ts__ok(err);
    memset(out, 0, sizeof *out);
    out->kind = TS_KIND_UNKNOWN;
    out->layers = out->hidden = out->vocab = out->heads = out->kv_heads = -1;
    size_t n = ts_model_count(m);
    names nm;
    ts_status st = names_make(m, &nm, err);
    if (st)
        return st;
    /* 4096 bytes for the layer numbers seen, then one per distinct name */
    unsigned char *seen = malloc(4096 + (nm.ndistinct ? nm.ndistinct : 1));
    if (!seen)
        st = ts__error(err, TS_ERR_NOMEM, "out of memory");
    size_t optimizer = 0, params = 0;
    for (size_t i = 0; st == TS_OK && i < n; i++) {
        ts_role r = ts_tensor_role(ts_model_array_name(m, i), ts_model_array(m, i, NULL)->dtype);
        optimizer += r == TS_ROLE_OPTIMIZER_STATE;
        params += r == TS_ROLE_PARAMETER;
    }
    for (size_t r = 0; st == TS_OK && r < sizeof rules / sizeof *rules; r++) {
        const family_rule *f = &rules[r];
        int all = 1;
        for (int k = 0; all && f->patterns[k]; k++) {
            char pat[128];
            snprintf(pat, sizeof pat, "%s%s", f->patterns[k][0] == '.' ? "" : ".",
                     f->patterns[k]);
            all = matches(&nm, pat, NULL, NULL);
        }
        if (!all)
            continue;
        out->family = f->family;
        out->kind = f->kind;
        size_t used = 0;
        /* the patterns without their dots at either end */
        for (int k = 0; f->patterns[k] && used < sizeof out->evidence; k++) {
            const char *p = f->patterns[k] + (f->patterns[k][0] == '.');
            int len = (int)strlen(p);
            if (len > 0 && p[len - 1] == '.')
                len--;
            used += (size_t)snprintf(out->evidence + used, sizeof out->evidence - used, "%s%.*s",
                                     k ? ", " : "", len, p);
        }
        /* layers: the distinct numbers of the first pattern */
        char pat[128];
        snprintf(pat, sizeof pat, "%s%s", f->patterns[0][0] == '.' ? "" : ".", f->patterns[0]);
        int64_t layers = 0;
        if (f->count_layers && strstr(f->patterns[0], "N.")) {
            memset(seen, 0, 4096);
            matches(&nm, pat, seen, &layers);
            out->layers = layers;
        }
        for (size_t i = 0; f->embed && i < n; i++) {
            const ts_array *a = ts_model_array(m, i, NULL);
            const char *name = ts_model_array_name(m, i);
            size_t nl = strlen(name), el = strlen(f->embed);
            if (nl >= el && strcmp(name + nl - el, f->embed) == 0 &&
                ts_shape_ndim(&a->shape) == 2) {
                out->vocab = ts_shape_dims(&a->shape)[0];
                out->hidden = ts_shape_dims(&a->shape)[1];
                break;
            }
        }
        /* heads: the query and key rows over the head size of a per-head
         * norm (qwen3, olmo2: self_attn.q_norm.weight of head_dim) */
        int64_t head_dim = -1, q_rows = -1, k_rows = -1;
        for (size_t i = 0; i < n; i++) {
            const ts_array *a = ts_model_array(m, i, NULL);
            int nd = ts_shape_ndim(&a->shape);
            const int64_t *d = ts_shape_dims(&a->shape);
            const char *norm = nm.distinct[nm.of[i]];
            if (nm.layer[i] != 0)
                continue;
            if ((strstr(norm, ".self_attn.q_norm.weight") ||
                 strstr(norm, ".attn_q_norm.weight")) && nd == 1)
                head_dim = d[0];
            if ((strstr(norm, ".self_attn.q_proj.weight") ||
                 strstr(norm, ".attn_q.weight")) && nd == 2)
                q_rows = d[0];
            if ((strstr(norm, ".self_attn.k_proj.weight") ||
                 strstr(norm, ".attn_k.weight")) && nd == 2)
                k_rows = d[0];
        }
        if (head_dim > 0 && q_rows > 0 && q_rows % head_dim == 0)
            out->heads = q_rows / head_dim;
        if (head_dim > 0 && k_rows > 0 && k_rows % head_dim == 0)
            out->kv_heads = k_rows / head_dim;
        break;
    }
    /* optimizer state: alone, or beside the weights (a training checkpoint) */
    if (st == TS_OK && optimizer > 0 && out->kind != TS_KIND_LORA)
        out->kind = params > 0 ? TS_KIND_TRAINING : TS_KIND_OPTIMIZER;
    if (st == TS_OK && out->kind == TS_KIND_UNKNOWN && params > 0)
        out->kind = TS_KIND_MODEL;
    names_free(&nm);
    free(seen);
    return st;
}
