/*
 * cmd_scan.c - tshape scan PATH...: what torch.load, pickle.load,
 * numpy.load and joblib.load would import and run from each file or
 * folder, without running anything (ts_scan_open_each: each file printed
 * as soon as it is scanned). The library computes every verdict; this
 * prints them: as text, as JSON Lines (--json: one record per global, per
 * finding and per file) or as one SARIF 2.1.0 log (--sarif, for
 * code-scanning UIs).
 *
 * Exit status: 2 when a file could not be scanned whole (an error line
 * names it) or a PATH is unreadable; else 1 when anything is unknown or
 * dangerous; else 0.
 */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const cli_option scan_options[] = {
    CLI_ABOUT("Reads every pickle of each file (each .pkl member of a zip, the pickles of a\n"
              "legacy torch.save file, plain pickles, joblib dumps, .npy object arrays,\n"
              "pickles inside byte strings) and Keras configs, and lists every global\n"
              "they would import with its class: tensor, data, unknown or dangerous.\n"
              "Also reports zip archives built to fool scanners, and whether\n"
              "torch.load(weights_only=True) of torch 1.13 and 2.4 would accept the file.\n"
              "Folders are scanned with their subfolders. Nothing is ever executed."),
    CLI_FLAG("sarif", 0, "one SARIF 2.1.0 log for all files (code-scanning UIs)"),
    CLI_OPTIONS_END,
};

/* ---- text and JSON Lines ---------------------------------------------------- */

static void print_global(cli_ctx *ctx, const ts_scan_file *f, const ts_scan_global *g)
{
    char full[1100] = "";
    if (!ctx->json)
        snprintf(full, sizeof full, "%s.%s", g->module, g->name);
    print_open_object(ctx, NULL);
    print_string(ctx, PRINT_JSON, "type", NULL, "global");
    print_string(ctx, PRINT_JSON, "file", NULL, f->path);
    print_string(ctx, PRINT_ANY, "pickle", "  %s", g->pickle);
    print_int(ctx, PRINT_ANY, "offset", " byte %s", g->offset);
    if (g->file_offset >= 0)
        print_int(ctx, PRINT_JSON, "file_offset", NULL, g->file_offset);
    else
        print_null(ctx, PRINT_JSON, "file_offset", NULL);
    print_string(ctx, PRINT_ANY, "opcode", ": %s", g->opcode);
    print_string(ctx, PRINT_JSON, "module", NULL, g->module);
    print_string(ctx, PRINT_JSON, "name", NULL, g->name);
    print_string(ctx, PRINT_TEXT, NULL, " %s", full);
    print_int(ctx, PRINT_JSON, "count", NULL, (int64_t)g->count);
    if (g->count > 1)
        print_int(ctx, PRINT_TEXT, NULL, " (x%s)", (int64_t)g->count);
    print_string(ctx, PRINT_ANY, "class", ": %s", ts_scan_class_name(g->cls));
    print_string(ctx, PRINT_ANY, "what", ", %s", g->what);
    print_bool(ctx, PRINT_JSON, "torch_1_13", NULL, g->torch_1_13);
    print_bool(ctx, PRINT_JSON, "torch_2_4", NULL, g->torch_2_4);
    print_text(ctx, "\n");
    print_close_object(ctx);
}

static void print_finding(cli_ctx *ctx, const ts_scan_file *f, const ts_scan_finding *x)
{
    print_open_object(ctx, NULL);
    print_string(ctx, PRINT_JSON, "type", NULL, "finding");
    print_string(ctx, PRINT_JSON, "file", NULL, f->path);
    print_string(ctx, PRINT_ANY, "finding", "  %s", ts_scan_finding_kind_name(x->kind));
    print_string(ctx, PRINT_ANY, "class", " (%s)", ts_scan_class_name(x->cls));
    print_string(ctx, PRINT_JSON, "where", NULL, x->where);
    if (x->offset >= 0)
        print_int(ctx, PRINT_JSON, "offset", NULL, x->offset);
    else
        print_null(ctx, PRINT_JSON, "offset", NULL);
    print_string(ctx, PRINT_ANY, "message", ": %s\n", x->message);
    print_close_object(ctx);
}

/* One weights_only answer: "accepted", "refused (why)", ... */
static void print_wo(cli_ctx *ctx, const char *key, const char *label, ts_scan_wo w,
                     const char *why, const char *safe)
{
    print_open_object(ctx, key);
    print_string(ctx, PRINT_ANY, "verdict", label, ts_scan_wo_name(w));
    print_string(ctx, PRINT_JSON, "why", NULL, why);
    if (safe && w == TS_SCAN_WO_ALLOWLIST)
        print_string(ctx, PRINT_TEXT, NULL, " with add_safe_globals([%s])", safe);
    else if (why)
        print_string(ctx, PRINT_TEXT, NULL, " (%s)", why);
    if (key && strcmp(key, "torch_2_4") == 0) {
        print_open_array(ctx, "safe_globals");
        for (const char *p = safe; p && *p;) {
            const char *e = strstr(p, ", ");
            size_t n = e ? (size_t)(e - p) : strlen(p);
            char one[1100];
            snprintf(one, sizeof one, "%.*s", (int)(n < sizeof one ? n : sizeof one - 1), p);
            print_string(ctx, PRINT_JSON, NULL, NULL, one);
            p += n + (e ? 2 : 0);
        }
        print_close_array(ctx);
    }
    print_close_object(ctx);
}

static void print_file(cli_ctx *ctx, const ts_scan *s, const ts_scan_file *f)
{
    if (!ctx->json) {
        /* ": %s (%s, %zu pickle%s)\n" without printf (1,000 files) */
        out_escaped(ctx, CLI_ESC_TEXT, f->path, strlen(f->path));
        out_str(ctx, ": ");
        out_str(ctx, ts_scan_class_name(f->verdict));
        out_str(ctx, " (");
        out_str(ctx, f->container);
        out_str(ctx, ", ");
        out_i64(ctx, (int64_t)f->npickles);
        out_str(ctx, f->npickles == 1 ? " pickle)\n" : " pickles)\n");
    }
    for (size_t i = 0; i < f->nglobals; i++)
        print_global(ctx, f, ts_scan_global_at(s, f->first_global + i));
    for (size_t i = 0; i < f->nfindings; i++)
        print_finding(ctx, f, ts_scan_finding_at(s, f->first_finding + i));
    print_open_object(ctx, NULL);
    print_string(ctx, PRINT_JSON, "type", NULL, "verdict");
    print_string(ctx, PRINT_JSON, "file", NULL, f->path);
    print_string(ctx, PRINT_JSON, "container", NULL, f->container);
    print_string(ctx, PRINT_JSON, "verdict", NULL, ts_scan_class_name(f->verdict));
    print_string(ctx, PRINT_JSON, "error", NULL, f->error);
    print_int(ctx, PRINT_JSON, "pickles", NULL, (int64_t)f->npickles);
    print_int(ctx, PRINT_JSON, "globals", NULL, (int64_t)f->nglobals);
    print_int(ctx, PRINT_JSON, "findings", NULL, (int64_t)f->nfindings);
    if (f->torch_1_13 != TS_SCAN_WO_NA || f->torch_2_4 != TS_SCAN_WO_NA) {
        print_text(ctx, "  torch.load(weights_only=True):");
        print_open_object(ctx, "weights_only");
        print_wo(ctx, "torch_1_13", " torch 1.13 %s", f->torch_1_13, f->why_1_13, NULL);
        print_text(ctx, ";");
        print_wo(ctx, "torch_2_4", " torch >= 2.4 %s", f->torch_2_4, f->why_2_4,
                 f->safe_globals);
        print_close_object(ctx);
        print_text(ctx, "\n");
    } else {
        print_null(ctx, PRINT_JSON, "weights_only", NULL);
    }
    print_close_object(ctx);
}

/* ---- SARIF 2.1.0 ---------------------------------------------------------------- */

typedef struct rule {
    const char *id, *name, *text, *level;
} rule;

static const rule rules[] = {
    {"TS001", "DangerousGlobal", "A pickle names a global that runs code or touches the system "
     "when torch.load or pickle.load imports and calls it", "error"},
    {"TS002", "UnknownGlobal", "A pickle names a global that is neither tensor data nor plain "
     "data: the loader would import it", "warning"},
    {"TS003", "ZipDifferential", "A zip archive that Python's zipfile and torch.load read "
     "differently (crafted to fool scanners)", "warning"},
    {"TS004", "PickleStructure", "A pickle structure that data does not need (a chain of "
     "calls, attributes set on a global)", "warning"},
    {"TS005", "KerasCode", "A Keras model that runs code or needs custom objects when loaded",
     "error"},
    {"TS006", "ScanNote", "Something to know about how the file is loaded", "note"},
    {"TS007", "ScanError", "tshape could not scan the file whole", "error"},
};

/* The rule of a finding or a global, by kind and class. */
static int rule_of_finding(const ts_scan_finding *x)
{
    switch (x->kind) {
    case TS_SCAN_FINDING_ZIP: return 2;
    case TS_SCAN_FINDING_PICKLE: return x->cls == TS_SCAN_DANGEROUS ? 0 : 3;
    case TS_SCAN_FINDING_KERAS: return 4;
    case TS_SCAN_FINDING_NOTE: return 5;
    }
    return 5;
}

static const char *level_of(ts_scan_class c, const char *dflt)
{
    return c == TS_SCAN_DANGEROUS ? "error" : c == TS_SCAN_UNKNOWN ? "warning" : dflt;
}

/* A path as a URI reference (RFC 3986): unreserved characters and '/'
 * kept, everything else percent-encoded. */
static void print_uri(cli_ctx *ctx, const char *path)
{
    char buf[4096];
    size_t w = 0;
    for (const unsigned char *p = (const unsigned char *)path; *p && w + 4 < sizeof buf; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
            strchr("-._~/", *p))
            buf[w++] = (char)*p;
        else
            w += (size_t)snprintf(buf + w, sizeof buf - w, "%%%02X", *p);
    }
    buf[w] = '\0';
    print_string(ctx, PRINT_JSON, "uri", NULL, buf);
}

static void sarif_result(cli_ctx *ctx, int r, const char *level, const char *message,
                         const char *path, int64_t offset)
{
    print_open_object(ctx, NULL);
    print_string(ctx, PRINT_JSON, "ruleId", NULL, rules[r].id);
    print_int(ctx, PRINT_JSON, "ruleIndex", NULL, r);
    print_string(ctx, PRINT_JSON, "level", NULL, level);
    print_open_object(ctx, "message");
    print_string(ctx, PRINT_JSON, "text", NULL, message);
    print_close_object(ctx);
    print_open_array(ctx, "locations");
    print_open_object(ctx, NULL);
    print_open_object(ctx, "physicalLocation");
    print_open_object(ctx, "artifactLocation");
    print_uri(ctx, path);
    print_close_object(ctx);
    if (offset >= 0) {
        print_open_object(ctx, "region");
        print_int(ctx, PRINT_JSON, "byteOffset", NULL, offset);
        print_int(ctx, PRINT_JSON, "byteLength", NULL, 1);
        print_close_object(ctx);
    }
    print_close_object(ctx);
    print_close_object(ctx);
    print_close_array(ctx);
    print_close_object(ctx);
}

static void sarif_file(cli_ctx *ctx, const ts_scan *s, const ts_scan_file *f)
{
    char msg[2400];
    for (size_t i = 0; i < f->nglobals; i++) {
        const ts_scan_global *g = ts_scan_global_at(s, f->first_global + i);
        if (g->cls < TS_SCAN_UNKNOWN)
            continue;
        snprintf(msg, sizeof msg, "%s byte %lld: %s %s.%s is %s: %s", g->pickle,
                 (long long)g->offset, g->opcode, g->module, g->name,
                 ts_scan_class_name(g->cls), g->what);
        sarif_result(ctx, g->cls == TS_SCAN_DANGEROUS ? 0 : 1, level_of(g->cls, "note"), msg,
                     f->path, g->file_offset);
    }
    for (size_t i = 0; i < f->nfindings; i++) {
        const ts_scan_finding *x = ts_scan_finding_at(s, f->first_finding + i);
        int r = rule_of_finding(x);
        sarif_result(ctx, r, level_of(x->cls, rules[r].level), x->message, f->path, x->offset);
    }
    if (f->error)
        sarif_result(ctx, 6, "error", f->error, f->path, -1);
}

static void print_sarif(cli_ctx *ctx, ts_scan *const *scans, int n)
{
    print_open_object(ctx, NULL);
    print_string(ctx, PRINT_JSON, "$schema", NULL,
                 "https://json.schemastore.org/sarif-2.1.0.json");
    print_string(ctx, PRINT_JSON, "version", NULL, "2.1.0");
    print_open_array(ctx, "runs");
    print_open_object(ctx, NULL);
    print_open_object(ctx, "tool");
    print_open_object(ctx, "driver");
    print_string(ctx, PRINT_JSON, "name", NULL, "tshape");
    print_string(ctx, PRINT_JSON, "version", NULL, TS_VERSION_STRING);
    print_string(ctx, PRINT_JSON, "semanticVersion", NULL, TS_VERSION_STRING);
    print_open_array(ctx, "rules");
    for (size_t i = 0; i < sizeof rules / sizeof *rules; i++) {
        print_open_object(ctx, NULL);
        print_string(ctx, PRINT_JSON, "id", NULL, rules[i].id);
        print_string(ctx, PRINT_JSON, "name", NULL, rules[i].name);
        print_open_object(ctx, "shortDescription");
        print_string(ctx, PRINT_JSON, "text", NULL, rules[i].text);
        print_close_object(ctx);
        print_open_object(ctx, "defaultConfiguration");
        print_string(ctx, PRINT_JSON, "level", NULL, rules[i].level);
        print_close_object(ctx);
        print_close_object(ctx);
    }
    print_close_array(ctx);
    print_close_object(ctx);
    print_close_object(ctx);
    print_open_array(ctx, "artifacts");
    for (int k = 0; k < n; k++)
        for (size_t i = 0; scans[k] && i < ts_scan_file_count(scans[k]); i++) {
            print_open_object(ctx, NULL);
            print_open_object(ctx, "location");
            print_uri(ctx, ts_scan_file_at(scans[k], i)->path);
            print_close_object(ctx);
            print_close_object(ctx);
        }
    print_close_array(ctx);
    print_open_array(ctx, "results");
    for (int k = 0; k < n; k++)
        for (size_t i = 0; scans[k] && i < ts_scan_file_count(scans[k]); i++)
            sarif_file(ctx, scans[k], ts_scan_file_at(scans[k], i));
    print_close_array(ctx);
    print_close_object(ctx);
    print_close_array(ctx);
    print_close_object(ctx);
}

/* ---- the command ------------------------------------------------------------------ */

typedef struct scan_run {
    cli_ctx *ctx;
    int sarif;
    int status;
    size_t files, counts[5], errors;
} scan_run;

/* ts_scan_open_each's callback: file i counted, its error reported and,
 * unless SARIF (one log at the end), printed while the library scans the
 * files after it. Stops the scan when standard output is closed. */
static int scan_each(void *user, const ts_scan *s, size_t i)
{
    scan_run *r = user;
    const ts_scan_file *f = ts_scan_file_at(s, i);
    r->files++;
    r->counts[f->verdict]++;
    if (f->error) {
        r->errors++;
        r->status = cli_worse(r->status, cli_error(r->ctx, f->path, "%s", f->error));
    }
    if (!r->sarif)
        print_file(r->ctx, s, f);
    if (f->verdict >= TS_SCAN_UNKNOWN)
        r->status = cli_worse(r->status, CLI_FALSE);
    return r->ctx->out.closed;
}

int cmd_scan(cli_ctx *ctx, const cli_args *args)
{
    if (args->nops == 0)
        return cli_usage(ctx, "missing PATH");
    scan_run r = {.ctx = ctx, .sarif = cli_flag(args, "sarif") > 0, .status = CLI_OK};
    ts_scan **scans = calloc((size_t)args->nops, sizeof *scans);
    if (!scans)
        return cli_error(ctx, NULL, "out of memory");
    for (int i = 0; i < args->nops && !ctx->out.closed; i++) {
        ts_error err;
        if (ts_scan_open_each(args->ops[i], scan_each, &r, &scans[i], &err) != TS_OK) {
            if (!ctx->out.closed)
                r.status = cli_worse(r.status, cli_error(ctx, args->ops[i], "%s", err.message));
            continue;
        }
        if (!r.sarif) {
            /* a folder's files are printed; its scan is not kept */
            ts_scan_close(scans[i]);
            scans[i] = NULL;
        }
    }
    if (r.sarif) {
        int json = ctx->json;
        ctx->json = 1;
        print_sarif(ctx, scans, args->nops);
        ctx->json = json;
    } else if (!ctx->json && r.files > 1) {
        out_printf(ctx, "%zu files: %zu dangerous, %zu unknown, %zu data, %zu tensor, %zu "
                   "none, %zu not scanned whole\n", r.files, r.counts[TS_SCAN_DANGEROUS],
                   r.counts[TS_SCAN_UNKNOWN], r.counts[TS_SCAN_DATA], r.counts[TS_SCAN_TENSOR],
                   r.counts[TS_SCAN_NONE], r.errors);
    }
    for (int i = 0; i < args->nops; i++)
        ts_scan_close(scans[i]);
    free(scans);
    return r.status;
}
