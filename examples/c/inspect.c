/*
 * inspect.c - opens each file named on the command line (any format tshape
 * reads, detected from its magic bytes) and prints one line per array:
 * name, shape, dtype and where its data starts. Only headers are read.
 *
 *   cc inspect.c $(pkg-config --cflags --libs tshape) -o inspect
 *   ./inspect model.safetensors weights.npy
 */
#include <tshape.h>

#include <stdio.h>

int main(int argc, char **argv)
{
    int status = 0;
    if (argc < 2) {
        fprintf(stderr, "usage: inspect FILE...\n");
        return 2;
    }
    for (int i = 1; i < argc; i++) {
        ts_file *f;
        ts_error err;
        if (ts_file_open(argv[i], NULL, &f, &err) != TS_OK) {
            /* the message names the entry and the byte offset, not the file */
            fprintf(stderr, "inspect: %s: %s\n", argv[i], err.message);
            status = 2;
            continue;
        }
        size_t n = ts_file_count(f);
        const char *version = ts_file_version(f); /* "" when the format has none */
        printf("%s: %s%s%s, %zu array%s\n", argv[i], ts_format_name(ts_file_format(f)),
               *version ? " " : "", version, n, n == 1 ? "" : "s");
        for (size_t k = 0; k < n; k++) {
            const ts_array *a = ts_file_array(f, k);
            char shape[256];
            ts_shape_format(&a->shape, 0, shape, sizeof shape);
            printf("  %-12s %-12s %-10s data at byte %lld\n", *a->name ? a->name : "-",
                   shape, a->dtype_name, (long long)a->data_offset);
        }
        ts_file_close(f);
    }
    return status;
}
