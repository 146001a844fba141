/*
 * cmd_jagged.c - jagged: rank, depth and size of a jagged or tiled shape
 * (TensorWrapper JaggedShape/TiledShape), the shape of one slice, and
 * Nested<T> layer counts.
 *
 * One output line per input (stdin lines stay aligned):
 *     [TEXT ]rank R depth D size S[; layer I: rank K elements E]...
 * TEXT, the canonical text of the (sliced) shape, is printed with --print
 * or --slice. JSON: {"shape":TEXT,"rank":R,"depth":D,"size":S,
 * "layers":[{"rank":K,"elements":E},...]} with "shape" and "layers" only
 * when asked for.
 */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>

const cli_option jagged_options[] = {
    CLI_ABOUT("TEXT is a jagged shape '{(10,20),(30,40)}' (items are shape tuples or\n"
              "nested {...}), a smooth shape '(10,20)', or a tiling 'tile (5,10,15)\n"
              "(5,10,15)'. Prints rank (brace depth + leaf rank), depth and size (all\n"
              "elements)."),
    CLI_VALUE("slice", 0, "I,J,...", "the shape of the slice at these indices (outer first)"),
    CLI_VALUE("layers", 0, "L1,L2,..", "Nested<T> layers: rank and element count per layer"),
    CLI_FLAG("print", 0, "also print the canonical text (tiles expanded)"),
    CLI_OPTIONS_END,
};

typedef struct jagged_job {
    int64_t slice[TS_MAX_NDIM], layers[TS_MAX_NDIM];
    int nslice, nlayers;   /* -1: option absent */
    int print;
} jagged_job;

static void print_jagged(cli_ctx *ctx, const jagged_job *a, const ts_jagged *j,
                         const char *text, int64_t size, const int64_t *elements)
{
    print_open_object(ctx, NULL);
    if (text)
        print_string(ctx, PRINT_ANY, "shape", "%s ", text);
    print_int(ctx, PRINT_ANY, "rank", "rank %s", ts_jagged_rank(j));
    print_int(ctx, PRINT_ANY, "depth", " depth %s", ts_jagged_depth(j));
    print_int(ctx, PRINT_ANY, "size", " size %s", size);
    if (a->nlayers >= 0) {
        print_open_array(ctx, "layers");
        for (int i = 0; i < a->nlayers; i++) {
            char fmt[64];
            snprintf(fmt, sizeof fmt, "; layer %d: rank %%s", i);
            print_open_object(ctx, NULL);
            print_int(ctx, PRINT_ANY, "rank", fmt, a->layers[i]);
            print_int(ctx, PRINT_ANY, "elements", " elements %s", elements[i]);
            print_close_object(ctx);
        }
        print_close_array(ctx);
    }
    print_close_object(ctx);
    print_text(ctx, "\n");
}

static int do_jagged(cli_ctx *ctx, void *job, const char *text, size_t len, ts_error *err)
{
    const jagged_job *a = job;
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
            cli_fail(err, TS_ERR_NOMEM, "out of memory");
            goto done;
        }
        ts_jagged_format(j, buf, n + 1);
    }
    print_jagged(ctx, a, j, buf, size, elements);
    rc = CLI_OK;
done:
    free(buf);
    ts_jagged_free(j);
    return rc;
}

int cmd_jagged(cli_ctx *ctx, const cli_args *args)
{
    jagged_job a;
    const char *slice = cli_opt(args, "slice"), *layers = cli_opt(args, "layers");
    a.nslice = a.nlayers = -1;
    a.print = cli_flag(args, "print") > 0;
    if (slice && cli_arg_ints(ctx, slice, "--slice", a.slice, &a.nslice))
        return CLI_ERROR;
    if (layers && cli_arg_ints(ctx, layers, "--layers", a.layers, &a.nlayers))
        return CLI_ERROR;
    return cli_each_input(ctx, args->nops, args->ops, do_jagged, &a);
}
