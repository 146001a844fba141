/*
 * cmd_formats.c - tshape formats: the library's reader table (the formats
 * `info` reads, their --format names, extensions and how each is detected),
 * as aligned text or one JSON object per format. Scripts map file names to
 * formats with it instead of keeping their own list.
 */
#include "cli.h"

#include <stdio.h>
#include <string.h>

/* s padded with spaces to `width` bytes plus a gap, for a text column. */
static const char *column(const char *s, int width, char *buf, size_t cap)
{
    snprintf(buf, cap, "%-*s  ", width, s);
    return buf;
}

/* One format: a text row of aligned columns, or a JSON record. */
static void print_format(cli_ctx *ctx, const ts_format_info *fi, int width)
{
    char col[128];
    print_open_object(ctx, NULL);
    print_string(ctx, PRINT_JSON, "name", NULL, fi->name);
    print_string(ctx, PRINT_TEXT, NULL, "%s", column(fi->name, width, col, sizeof col));
    print_int(ctx, PRINT_JSON, "id", NULL, (int64_t)fi->format);
    print_open_array(ctx, "extensions");
    const char *e = fi->extensions;
    while (*e) { /* space-separated in the table */
        size_t n = strcspn(e, " ");
        char ext[32];
        if (n < sizeof ext) {
            memcpy(ext, e, n);
            ext[n] = '\0';
            print_string(ctx, PRINT_JSON, NULL, NULL, ext);
        }
        e += n + (e[n] == ' ');
    }
    print_close_array(ctx);
    print_string(ctx, PRINT_TEXT, NULL, "%s",
                 column(fi->extensions[0] ? fi->extensions : "-", 24, col, sizeof col));
    print_string(ctx, PRINT_ANY, "description", "%s\n", fi->description);
    if (fi->detection)
        print_string(ctx, PRINT_ANY, "detection", "    detected by %s\n", fi->detection);
    else
        print_null(ctx, PRINT_ANY, "detection", "    never detected: --format only\n");
    print_string(ctx, PRINT_JSON, "dtype_field", NULL, fi->dtype_field);
    print_bool(ctx, PRINT_JSON, "side_files", NULL, fi->side_files);
    print_close_object(ctx);
}

int cmd_formats(cli_ctx *ctx, const cli_args *args)
{
    if (args->nops > 0)
        return cli_usage(ctx, "formats takes no operands");
    int width = 0;
    for (size_t i = 0; i < ts_format_count(); i++) {
        int n = (int)strlen(ts_format_info_at(i)->name);
        width = n > width ? n : width;
    }
    for (size_t i = 0; i < ts_format_count(); i++)
        print_format(ctx, ts_format_info_at(i), width);
    return CLI_OK;
}
