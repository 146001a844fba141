/*
 * metadiff.h - the metadata of a file or model as diff compares it: the
 * entries of every member (safetensors __metadata__, GGUF key/values, the
 * values of a PyTorch checkpoint that are not tensors, ONNX graph facts,
 * HDF5 attributes) as one list, and the entries that differ between two.
 */
#ifndef TSHAPE_CLI_METADIFF_H
#define TSHAPE_CLI_METADIFF_H

#include "cli.h"

typedef struct cli_meta_entry {
    char *label;            /* the key, or "MEMBER: key" (see cli_meta_collect) */
    const char *value;      /* JSON text, owned by the model's file */
    size_t order;           /* position in member and file order */
} cli_meta_entry;

typedef struct cli_meta {
    cli_meta_entry *v;      /* in member and file order */
    size_t n;
    size_t *by_label;       /* indices of v sorted by label */
} cli_meta;

/*
 * The metadata entries of model m (opened with want_metadata) into *out
 * (free with cli_meta_free even on failure). A key that several members
 * hold with one value (the "format": "pt" of every safetensors shard) is
 * one entry labelled with the key; a key whose value differs between
 * members is one entry per member, labelled "MEMBER: key" (MEMBER: the
 * member's path from the model's folder). Returns CLI_OK, or CLI_ERROR
 * after reporting an entry that cannot be rendered (the file shrank) or a
 * lack of memory, naming `path`.
 */
int cli_meta_collect(cli_ctx *ctx, const char *path, const ts_model *m, cli_meta *out);
void cli_meta_free(cli_meta *mt);

/* Calls fn for each label whose value differs between a and b, or that
 * only one holds (the other's value NULL): a's entries in a's order, then
 * those only in b in b's order. Returns how many. */
typedef void (*cli_meta_fn)(void *user, const char *label, const char *a, const char *b);
size_t cli_meta_compare(const cli_meta *a, const cli_meta *b, cli_meta_fn fn, void *user);

#endif
