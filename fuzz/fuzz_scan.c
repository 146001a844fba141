/* fuzz_scan.c - tshape scan (ts_scan_open_memory) on arbitrary bytes: the
 * dispatch on content (zip, npy, legacy and tar torch.save, compressed
 * streams, pickles), zip differentials, every pickle on the machine with
 * the observer, nested pickles in bytes, joblib skips, Keras configs. Then
 * every record is read and checked: indices in range, strings terminated,
 * classes and weights_only answers in their enums, verdicts the worst of
 * the records. fuzz-needs: ts_scan_open_memory */
#define TS_EXPERIMENTAL_API
#include "fuzz.h"

static size_t sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ts_scan *s = NULL;
    ts_error err;
    ts_status st = ts_scan_open_memory(data, size, "fuzz.bin", &s, &err);
    if (st != TS_OK) {
        fuzz_check_error(st, &err);
        FUZZ_CHECK(s == NULL);
        return 0;
    }
    FUZZ_CHECK(ts_scan_file_count(s) == 1);
    const ts_scan_file *f = ts_scan_file_at(s, 0);
    FUZZ_CHECK(f && f->path && f->container);
    FUZZ_CHECK(f->first_global + f->nglobals == ts_scan_global_count(s));
    FUZZ_CHECK(f->first_finding + f->nfindings == ts_scan_finding_count(s));
    FUZZ_CHECK((f->status == TS_OK) == (f->error == NULL));
    FUZZ_CHECK(ts_scan_error_count(s) == (f->status != TS_OK));
    FUZZ_CHECK(f->torch_1_13 <= TS_SCAN_WO_JIT && f->torch_2_4 <= TS_SCAN_WO_JIT);
    if (f->error)
        FUZZ_CHECK(strchr(f->error, '\n') == NULL);
    ts_scan_class worst = TS_SCAN_NONE;
    for (size_t i = 0; i < ts_scan_global_count(s); i++) {
        const ts_scan_global *g = ts_scan_global_at(s, i);
        FUZZ_CHECK(g->file == 0 && g->pickle && g->opcode && g->module && g->name && g->what);
        FUZZ_CHECK(g->cls >= TS_SCAN_TENSOR && g->cls <= TS_SCAN_DANGEROUS && g->count >= 1);
        FUZZ_CHECK(g->offset >= 0 && g->file_offset >= -1 &&
                   g->file_offset < (int64_t)size + 1);
        sink += strlen(g->pickle) + strlen(g->module) + strlen(g->name);
        worst = g->cls > worst ? g->cls : worst;
    }
    for (size_t i = 0; i < ts_scan_finding_count(s); i++) {
        const ts_scan_finding *x = ts_scan_finding_at(s, i);
        FUZZ_CHECK(x->file == 0 && x->message && x->cls <= TS_SCAN_DANGEROUS);
        FUZZ_CHECK(strchr(x->message, '\n') == NULL);
        sink += strlen(x->message) + (x->where ? strlen(x->where) : 0);
        worst = x->cls > worst ? x->cls : worst;
    }
    FUZZ_CHECK(f->verdict == worst && ts_scan_verdict(s) == worst);
    FUZZ_CHECK(ts_scan_global_at(s, ts_scan_global_count(s)) == NULL);
    ts_scan_close(s);
    return 0;
}
