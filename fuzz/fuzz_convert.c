/* fuzz_convert.c - ts_write on whatever a fuzzed file holds: the input is
 * opened auto-detected (ts_file_open_memory), and all its arrays are written
 * as one safetensors file (GGUF blocks dequantized) to a temporary folder
 * under /tmp. Checks: a failure is a clean one-line error and leaves
 * nothing in the folder; a success leaves exactly the output, which opens
 * again with as many arrays as were written.
 * fuzz-needs: ts_write
 */
#define TS_EXPERIMENTAL_API
#include "fuzz.h"

#include <dirent.h>
#include <unistd.h>

static char dir[] = "/tmp/tshape-fuzz-convert-XXXXXX";
static char out[sizeof dir + 32];

/* The folder goes when the process ends (libFuzzer exits normally). */
static void remove_dir(void)
{
    unlink(out);
    rmdir(dir);
}

static int entries(void)
{
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    FUZZ_CHECK(d != NULL);
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            n++;
    closedir(d);
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!out[0]) {
        FUZZ_CHECK(mkdtemp(dir) != NULL);
        snprintf(out, sizeof out, "%s/o.safetensors", dir);
        atexit(remove_dir);
    }
    ts_file *f = NULL;
    ts_error err;
    ts_status st = ts_file_open_memory(data, size, NULL, &f, &err);
    if (st != TS_OK) {
        fuzz_check_error(st, &err);
        return 0;
    }
    size_t n = ts_file_count(f);
    ts_write_tensor *t = calloc(n ? n : 1, sizeof *t);
    char (*names)[32] = calloc(n ? n : 1, sizeof *names);
    FUZZ_CHECK(t && names);
    for (size_t i = 0; i < n; i++) {
        const ts_array *a = ts_file_array(f, i);
        /* the file's names (duplicates and bad UTF-8 are errors to check),
         * or arr_K for unnamed arrays */
        if (a->name[0]) {
            t[i].name = a->name;
        } else {
            snprintf(names[i], sizeof names[i], "arr_%zu", i);
            t[i].name = names[i];
        }
        t[i].file = f;
        t[i].array = a;
    }
    ts_write_options o = TS_WRITE_OPTIONS_INIT;
    o.dequantize = 1;
    ts_write_result r;
    st = ts_write(out, t, n, &o, &r, &err);
    if (st != TS_OK) {
        fuzz_check_error(st, &err);
        FUZZ_CHECK(entries() == 0);
    } else {
        FUZZ_CHECK(entries() == 1 && r.tensors == n && r.files == 1);
        ts_file *g = NULL;
        FUZZ_CHECK(ts_file_open(out, NULL, &g, &err) == TS_OK);
        FUZZ_CHECK(ts_file_count(g) == n);
        ts_file_close(g);
        FUZZ_CHECK(unlink(out) == 0);
    }
    free(names);
    free(t);
    ts_file_close(f);
    return 0;
}
