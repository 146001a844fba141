/*
 * cmd_pattern_jagged.c - jagged: rank, depth and size of a jagged or tiled
 * shape (TensorWrapper JaggedShape/TiledShape), the shape of one slice, and
 * Nested<T> layer counts.
 *
 * One output line per input (stdin lines stay aligned):
 *     [TEXT ]rank R depth D size S[; layer I: rank K elements E]...
 * TEXT, the canonical text of the (sliced) shape, is printed with --print
 * or --slice. JSON: {"shape":TEXT,"rank":R,"depth":D,"size":S,
 * "layers":[{"rank":K,"elements":E},...]} with "shape" and "layers" only
 * when asked for.
 */
#include "pattern.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct jagged_args {
    int64_t slice[TS_MAX_NDIM], layers[TS_MAX_NDIM];
    int nslice, nlayers;   /* -1: option absent */
    int print;
} jagged_args;

static void fail_nomem(ts_error *err)
{
    snprintf(err->message, sizeof err->message, "out of memory");
    err->code = TS_ERR_NOMEM;
}

static int do_jagged(cli_ctx *ctx, const char *text, size_t len, void *user, ts_error *err)
{
    const jagged_args *a = user;
    ts_jagged *j = NULL, *s = NULL;
    int64_t size, elements[TS_MAX_NDIM];
    char *buf = NULL;
    int rc = CLI_ERROR;

    if (ts_jagged_parse(text, len, &j, err) != TS_OK)
        return CLI_ERROR;
    if (a->nslice >= 0) {
        if (ts_jagged_slice(j, a->slice, a->nslice, &s, err) != TS_OK)
            goto done;
        ts_jagged_free(j);
        j = s;
    }
    if (ts_jagged_size(j, &size, err) != TS_OK)
        goto done;
    if (a->nlayers >= 0 && ts_jagged_layers(j, a->layers, a->nlayers, elements, err) != TS_OK)
        goto done;
    if (a->print || a->nslice >= 0) {
        size_t n = ts_jagged_format(j, NULL, 0);
        if (!(buf = malloc(n + 1))) {
            fail_nomem(err);
            goto done;
        }
        ts_jagged_format(j, buf, n + 1);
    }
    if (ctx->json) {
        out_char('{');
        if (buf) {
            out_str("\"shape\":");
            out_json_string(buf);
            out_char(',');
        }
        out_str("\"rank\":");
        out_i64(ts_jagged_rank(j));
        out_str(",\"depth\":");
        out_i64(ts_jagged_depth(j));
        out_str(",\"size\":");
        out_i64(size);
        if (a->nlayers >= 0) {
            out_str(",\"layers\":[");
            for (int i = 0; i < a->nlayers; i++) {
                out_str(i ? ",{\"rank\":" : "{\"rank\":");
                out_i64(a->layers[i]);
                out_str(",\"elements\":");
                out_i64(elements[i]);
                out_char('}');
            }
            out_char(']');
        }
        out_str("}\n");
    } else {
        if (buf) {
            out_str(buf);
            out_char(' ');
        }
        out_str("rank ");
        out_i64(ts_jagged_rank(j));
        out_str(" depth ");
        out_i64(ts_jagged_depth(j));
        out_str(" size ");
        out_i64(size);
        for (int i = 0; a->nlayers >= 0 && i < a->nlayers; i++) {
            out_str("; layer ");
            out_i64(i);
            out_str(": rank ");
            out_i64(a->layers[i]);
            out_str(" elements ");
            out_i64(elements[i]);
        }
        out_char('\n');
    }
    rc = CLI_OK;
done:
    free(buf);
    ts_jagged_free(j);
    return rc;
}

int pat_cmd_jagged(cli_ctx *ctx, int argc, char **argv)
{
    static const char extra[] =
        "TEXT is a jagged shape '{(10,20),(30,40)}' (items are shape tuples or\n"
        "nested {...}), a smooth shape '(10,20)', or a tiling 'tile (5,10,15)\n"
        "(5,10,15)'. Prints rank (brace depth + leaf rank), depth and size (all\n"
        "elements).\n"
        "  --slice I,J,...   the shape of the slice at these indices (outer first)\n"
        "  --layers L1,L2,.. Nested<T> layers: rank and element count per layer\n"
        "  --print           also print the canonical text (tiles expanded)\n";
    pat_opts o;
    int status;
    int first = pat_options(ctx, argc, argv, PAT_LAYERS | PAT_SLICE | PAT_PRINT, extra, &o,
                            &status);
    if (first < 0)
        return status;
    jagged_args a;
    a.nslice = a.nlayers = -1;
    a.print = o.print;
    if (o.slice && pat_parse_ints(o.slice, "--slice", a.slice, &a.nslice))
        return CLI_ERROR;
    if (o.layers && pat_parse_ints(o.layers, "--layers", a.layers, &a.nlayers))
        return CLI_ERROR;
    return cli_for_each_input(ctx, argc - first, argv + first, do_jagged, &a);
}
