/*
 * errors.c - error lines on standard error, all in one form:
 *
 *     tshape: COMMAND: WHERE: MESSAGE
 *
 * COMMAND when a command is running, WHERE (a file, "line 4") when the
 * error has one. A usage error adds "Try 'tshape COMMAND --help'.". Each
 * line is passed through the escaper, so text from files and arguments
 * cannot break it or drive the terminal.
 */
#include "cli.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Formats "tshape: CMD: WHERE: MESSAGE" into line[0..cap) and writes it,
 * escaped, to stderr after what stdout holds (so terminals and tests see
 * the two in order). */
static void error_line(cli_ctx *ctx, int is_error, const char *where, const char *fmt,
                       va_list ap) CLI_PRINTF(4, 0);

static void error_line(cli_ctx *ctx, int is_error, const char *where, const char *fmt,
                       va_list ap)
{
    char msg[1024], line[1200], safe[4 * 1200 + 2];
    vsnprintf(msg, sizeof msg, fmt, ap);
    size_t n = (size_t)snprintf(line, sizeof line, "tshape: ");
    if (ctx && ctx->cmd)
        n += (size_t)snprintf(line + n, sizeof line - n, "%s: ", ctx->cmd->name);
    if (where) {
        char q[256];
        n += (size_t)snprintf(line + n, sizeof line - n, "%s: ",
                              cli_quote(where, strlen(where), q, sizeof q));
    }
    /* Library messages of an operation may start with its name ("extend:
     * ...", "compose: ..."): the command already says it. */
    const char *body = msg;
    size_t cl = ctx && ctx->cmd ? strlen(ctx->cmd->name) : 0;
    if (cl && strncmp(body, ctx->cmd->name, cl) == 0 && body[cl] == ':' && body[cl + 1] == ' ')
        body += cl + 2;
    if (n < sizeof line)
        snprintf(line + n, sizeof line - n, "%s", body);
    size_t w;
    cli_escape(CLI_ESC_SAFE, line, strlen(line), safe, sizeof safe - 1, &w);
    safe[w++] = '\n';
    if (ctx) {
        out_drain(ctx);
        if (is_error)
            ctx->status = CLI_ERROR;
    }
    fwrite(safe, 1, w, stderr);
}

int cli_error(cli_ctx *ctx, const char *where, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    error_line(ctx, 1, where, fmt, ap);
    va_end(ap);
    return CLI_ERROR;
}

void cli_notice(cli_ctx *ctx, const char *where, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    error_line(ctx, 0, where, fmt, ap);
    va_end(ap);
}

int cli_usage(cli_ctx *ctx, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    error_line(ctx, 1, NULL, fmt, ap);
    va_end(ap);
    if (ctx->cmd)
        fprintf(stderr, "Try 'tshape %s --help'.\n", ctx->cmd->name);
    else
        fputs("Try 'tshape --help'.\n", stderr);
    return CLI_ERROR;
}

int cli_fail(ts_error *err, ts_status code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    err->code = code;
    err->column = 0;
    err->offset = -1;
    err->index = -1;
    return CLI_ERROR;
}

int cli_fail_prefix(ts_error *err, const char *fmt, ...)
{
    char prefix[128], msg[TS_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    memcpy(msg, err->message, sizeof msg);
    /* Cut what does not fit (by hand: snprintf would warn about it). */
    size_t p = strlen(prefix), m = strnlen(msg, sizeof msg - 1), cap = sizeof err->message - 1;
    if (p > cap)
        p = cap;
    if (m > cap - p)
        m = cap - p;
    memcpy(err->message, prefix, p);
    memcpy(err->message + p, msg, m);
    err->message[p + m] = '\0';
    return CLI_ERROR;
}

/* ---- progress lines ---------------------------------------------------------- */

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

void cli_progress_init(cli_progress *p, const char *command)
{
    memset(p, 0, sizeof *p);
    p->enabled = isatty(STDERR_FILENO);
    p->command = command;
}

void cli_progress_start(cli_progress *p, const char *path, const char *name)
{
    p->path = path;
    p->name = name;
    p->t0 = now_seconds();
}

void cli_progress_report(void *user, int64_t done, int64_t total)
{
    cli_progress *p = user;
    double dt = now_seconds() - p->t0;
    if (!p->enabled || dt < 1.0 || done >= total)
        return;
    char path[96], name[96];
    fprintf(stderr, "\rtshape: %s: %s: %s%s%lld / %lld MiB, %.1f GB/s   ", p->command,
            cli_quote(p->path, strlen(p->path), path, sizeof path),
            p->name ? cli_quote(p->name, strlen(p->name), name, sizeof name) : "",
            p->name ? ": " : "", (long long)(done >> 20), (long long)(total >> 20),
            (double)done / dt / 1e9);
    p->shown = 1;
}

void cli_progress_clear(cli_progress *p)
{
    if (p->shown)
        fprintf(stderr, "\r\033[K");
    p->shown = 0;
}
