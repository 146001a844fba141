/*
 * onnxnames.c - the PyTorch name of an ONNX initializer, from the node
 * that reads it, for models written by torch.onnx.export's TorchScript
 * exporter (the rules of TS_DIFF_RULE_ONNX_CONSUMER in tshape.h).
 *
 * The exporter names each node after the scopes of the modules it ran in,
 * outermost first, then its op_type with "_N" to keep names unique:
 * "/layer1/layer1.0/conv1/Conv" (torch/csrc/jit/passes/onnx/naming.cpp,
 * nameFromRoot with "/" between scopes; the root module has no scope). A
 * scope is the module's name from its last part that is not a number
 * (torch/onnx/utils.py, _setup_trace_module_map and
 * _unqualified_variable_name: "layer1.0.conv1" is "conv1", "layer1.0" is
 * "layer1.0"), so each scope adds its last part to its parent's path. The
 * module's parameter is then the op's input by position, as the exporter's
 * symbolic functions pass them (torch/onnx/symbolic_opset9.py:
 * _convolution, batch_norm, linear/addmm -> Gemm(transB=1), matmul,
 * embedding -> Gather, layer_norm; symbolic_opset17.py layer_norm ->
 * LayerNormalization). Checked against Debian's torch 1.13, whose only
 * exporter this is (tests/fixtures/gen_onnxmap.py); torch 2's dynamo
 * exporter (torch.onnx.export(dynamo=True)) names nodes otherwise, so its
 * renamed initializers are not mapped here: where it keeps a parameter's
 * name on its initializer, the name rule pairs it.
 */
#include "reader.h"

#include <string.h>

/* The parameter an op reads at `input` (NULL: none), and whether the
 * initializer holds it transposed (*transposed). */
static const char *param_of(const char *op, size_t opn, int input, int trans_b,
                            int *transposed)
{
    static const struct {
        const char *op;
        const char *params[5]; /* by input index */
    } table[] = {
        {"Conv", {NULL, "weight", "bias"}},
        {"ConvTranspose", {NULL, "weight", "bias"}},
        {"Gemm", {NULL, "weight", "bias"}},
        {"MatMul", {NULL, "weight"}},
        {"BatchNormalization", {NULL, "weight", "bias", "running_mean", "running_var"}},
        {"LayerNormalization", {NULL, "weight", "bias"}},
        {"InstanceNormalization", {NULL, "weight", "bias"}},
        {"GroupNormalization", {NULL, "weight", "bias"}},
        {"Gather", {"weight"}},
        {"PRelu", {NULL, "weight"}},
        {"Add", {"bias", "bias"}},
    };
    *transposed = 0;
    if (input < 0 || input >= 5)
        return NULL;
    for (size_t i = 0; i < sizeof table / sizeof *table; i++) {
        if (strlen(table[i].op) != opn || memcmp(table[i].op, op, opn) != 0)
            continue;
        const char *p = table[i].params[input];
        if (p && input == 1 && (strcmp(table[i].op, "MatMul") == 0 ||
                                (strcmp(table[i].op, "Gemm") == 0 && !trans_b)))
            *transposed = 1;
        return p;
    }
    return NULL;
}

/* 1 when s[0..n) is "OP" or "OP_<digits>". */
static int is_op_name(const char *s, size_t n, const char *op, size_t opn)
{
    if (n < opn || memcmp(s, op, opn) != 0)
        return 0;
    if (n == opn)
        return 1;
    if (s[opn] != '_' || n == opn + 1)
        return 0;
    for (size_t i = opn + 1; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return 0;
    return 1;
}

size_t ts__onnx_torch_name(const char *node, size_t node_n, const char *op, size_t opn,
                           int input, int trans_b, char *buf, size_t cap, int *transposed)
{
    int tr;
    const char *param = param_of(op, opn, input, trans_b, &tr);
    *transposed = 0;
    if (!param || cap == 0 || node_n < 2 || node[0] != '/')
        return 0;
    /* the last part: the op's own name */
    size_t last = node_n;
    while (last > 0 && node[last - 1] != '/')
        last--;
    if (last <= 1 || !is_op_name(node + last, node_n - last, op, opn))
        return 0;
    size_t n = 0; /* the module path so far, in buf */
    for (size_t p = 1; p < last;) {
        size_t e = p;
        while (node[e] != '/')
            e++;
        size_t cn = e - p; /* scope node[p..e) */
        if (cn == 0 || memchr(node + p, '\0', cn))
            return 0;
        size_t tail = cn;
        while (tail > 0 && node[p + tail - 1] != '.')
            tail--;
        /* node[p..p+tail) is the scope's parent part with its '.', which
         * must end the path so far; the first scope is taken whole */
        const char *add = n == 0 ? node + p : node + p + tail;
        size_t an = n == 0 ? cn : cn - tail;
        if (n > 0 && tail > 0 &&
            (tail - 1 > n || memcmp(buf + n - (tail - 1), node + p, tail - 1) != 0 ||
             (n > tail - 1 && buf[n - tail] != '.')))
            return 0;
        if (an == 0 || n + (n > 0) + an + 1 > cap)
            return 0;
        if (n > 0)
            buf[n++] = '.';
        memcpy(buf + n, add, an);
        n += an;
        p = e + 1;
    }
    size_t pn = strlen(param);
    if (n + 1 + pn + 1 > cap)
        return 0;
    buf[n++] = '.';
    memcpy(buf + n, param, pn + 1);
    *transposed = tr;
    return n + pn;
}
