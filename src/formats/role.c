/*
 * role.c - ts_tensor_role: whether a tensor of a checkpoint is a parameter,
 * a buffer or an optimizer's state, by its name and dtype (the rule and its
 * sources are in tshape.h). One rule for every summary, so that
 * "parameters" means what torch's model.parameters() counts wherever
 * tshape prints the word.
 */
#define TS_EXPERIMENTAL_API
#include "../core/internal.h"

#include <string.h>

/* Per-parameter state keys of torch.optim (the keys of self.state[p] in
 * torch/optim/sgd.py, adam.py, ...) that name nothing else. */
typedef struct word {
    const char *s;
    size_t n;               /* strlen(s): a name's role is asked per tensor */
} word;
#define W(s) {s, sizeof s - 1}

static const word optimizer_keys[] = {
    W("momentum_buffer"),                              /* SGD */
    W("exp_avg"), W("exp_avg_sq"), W("max_exp_avg_sq"), /* Adam, AdamW, NAdam, RAdam, Adamax */
    W("exp_inf"),                                      /* Adamax */
    W("square_avg"), W("grad_avg"),                    /* RMSprop */
    W("acc_delta"),                                    /* Adadelta */
};

/* Last components of buffers: torch.nn BatchNorm, Keras BatchNormalization
 * (non-trainable), MXNet BatchNorm aux states. */
static const word buffer_words[] = {W("running_mean"), W("running_var"),
                                    W("num_batches_tracked"), W("moving_mean"),
                                    W("moving_var"), W("moving_variance"), W("rolling_mean"),
                                    W("rolling_variance")};

static int is_sep(char c)
{
    return c == '.' || c == '/';
}

/* 1 when s[0..n) is one of the words. */
static int in_list(const char *s, size_t n, const word *words, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (words[i].n == n && memcmp(s, words[i].s, n) == 0)
            return 1;
    return 0;
}

static int is_optimizer_state(const char *name)
{
    size_t first = strcspn(name, "./");
    /* the first component contains "optimizer" */
    for (size_t i = 0; i + 9 <= first; i++)
        if (memcmp(name + i, "optimizer", 9) == 0)
            return 1;
    /* "state.N.": Optimizer.state_dict() on its own */
    if (first == 5 && memcmp(name, "state", 5) == 0 && is_sep(name[5])) {
        const char *p = name + 6;
        size_t digits = strspn(p, "0123456789");
        if (digits > 0 && is_sep(p[digits]))
            return 1;
    }
    /* a component that is a state key of torch.optim */
    for (const char *p = name;;) {
        size_t n = strcspn(p, "./");
        if (in_list(p, n, optimizer_keys, sizeof optimizer_keys / sizeof *optimizer_keys))
            return 1;
        if (!p[n])
            return 0;
        p += n + 1;
    }
}

static int is_buffer_name(const char *name)
{
    size_t n = strlen(name);
    if (strncmp(name, "aux:", 4) == 0)
        return 1;
    if (n > 2 && strcmp(name + n - 2, ":0") == 0)
        n -= 2;
    for (size_t i = 0; i < sizeof buffer_words / sizeof *buffer_words; i++) {
        size_t w = buffer_words[i].n;
        if (n >= w && memcmp(name + n - w, buffer_words[i].s, w) == 0 &&
            (n == w || strchr("./:_", name[n - w - 1])))
            return 1;
    }
    return 0;
}

/* Floating point and complex dtypes, and GGUF blocks (quantized floats). */
static int may_require_grad(ts_dtype dt)
{
    switch (dt) {
    case TS_DTYPE_FLOAT32:
    case TS_DTYPE_FLOAT64:
    case TS_DTYPE_FLOAT16:
    case TS_DTYPE_BFLOAT16:
    case TS_DTYPE_COMPLEX64:
    case TS_DTYPE_COMPLEX128:
    case TS_DTYPE_LONGDOUBLE:
    case TS_DTYPE_CLONGDOUBLE:
    case TS_DTYPE_FLOAT8_E5M2:
    case TS_DTYPE_FLOAT8_E4M3FN:
    case TS_DTYPE_FLOAT8_E4M3FNUZ:
    case TS_DTYPE_FLOAT8_E5M2FNUZ:
    case TS_DTYPE_FLOAT8_E8M0FNU:
    case TS_DTYPE_FLOAT6_E2M3FN:
    case TS_DTYPE_FLOAT6_E3M2FN:
    case TS_DTYPE_FLOAT4_E2M1FN:
    case TS_DTYPE_QUANTIZED:
    case TS_DTYPE_UNKNOWN:
        return 1;
    case TS_DTYPE_UINT8:
    case TS_DTYPE_INT32:
    case TS_DTYPE_INT8:
    case TS_DTYPE_INT64:
    case TS_DTYPE_BOOL:
    case TS_DTYPE_INT16:
    case TS_DTYPE_UINT16:
    case TS_DTYPE_UINT32:
    case TS_DTYPE_UINT64:
    case TS_DTYPE_DATETIME64:
    case TS_DTYPE_TIMEDELTA64:
    case TS_DTYPE_BYTES:
    case TS_DTYPE_UNICODE:
    case TS_DTYPE_VOID:
    case TS_DTYPE_OBJECT:
    case TS_DTYPE_STRUCTURED:
    case TS_DTYPE_INT4:
    case TS_DTYPE_UINT4:
    case TS_DTYPE_INT2:
    case TS_DTYPE_UINT2:
        return 0;
    }
    return 1; /* a value outside the enum: by name only */
}

ts_role ts_tensor_role(const char *name, ts_dtype dtype)
{
    if (!name)
        name = "";
    if (is_optimizer_state(name))
        return TS_ROLE_OPTIMIZER_STATE;
    if (is_buffer_name(name) || !may_require_grad(dtype))
        return TS_ROLE_BUFFER;
    return TS_ROLE_PARAMETER;
}

const char *ts_role_name(ts_role role)
{
    switch (role) {
    case TS_ROLE_PARAMETER: return "parameter";
    case TS_ROLE_BUFFER: return "buffer";
    case TS_ROLE_OPTIMIZER_STATE: return "optimizer_state";
    }
    return "unknown";
}
