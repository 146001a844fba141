/*
 * io.c - the CLI's output buffer, error lines, argument parsing and the
 * stdin line driver shared by every shape command.
 *
 * Output goes through one 64 KiB buffer written with write(2): the shape
 * commands run on millions of lines, and stdio's locking per call costs more
 * than the arithmetic.
 */
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char obuf[1 << 16];
static size_t olen;
static int write_failed;

static void drain(void)
{
    size_t off = 0;
    while (off < olen && !write_failed) {
        ssize_t k = write(STDOUT_FILENO, obuf + off, olen - off);
        if (k < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EPIPE) {
                /* The reader went away (head, grep -q): not worth a message,
                 * and there is no one left to write to. */
                _exit(0);
            }
            write_failed = errno;
            break;
        }
        off += (size_t)k;
    }
    olen = 0;
}

void out_write(const char *s, size_t n)
{
    while (n > 0) {
        size_t room = sizeof obuf - olen;
        size_t k = n < room ? n : room;
        memcpy(obuf + olen, s, k);
        olen += k;
        s += k;
        n -= k;
        if (olen == sizeof obuf)
            drain();
    }
}

void out_str(const char *s)
{
    out_write(s, strlen(s));
}

void out_char(char c)
{
    if (olen == sizeof obuf)
        drain();
    obuf[olen++] = c;
}

/* Two digits per step (the classic table trick): numbers are most of what
 * the shape commands print. */
static const char digits2[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

void out_i64(int64_t v)
{
    if (sizeof obuf - olen < 24)
        drain();
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    char *q = obuf + olen;
    if (v < 0)
        *q++ = '-';
    /* Count the digits, then fill them in from the end, two at a time,
     * straight into the output buffer. */
    static const uint64_t pow10[20] = {
        1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL, 10000000ULL,
        100000000ULL, 1000000000ULL, 10000000000ULL, 100000000000ULL, 1000000000000ULL,
        10000000000000ULL, 100000000000000ULL, 1000000000000000ULL,
        10000000000000000ULL, 100000000000000000ULL, 1000000000000000000ULL,
        10000000000000000000ULL,
    };
    /* digits = floor(log10 u) + 1, from the bit length (1233/4096 ~ log10 2). */
    unsigned t = ((unsigned)(64 - __builtin_clzll(u | 1)) * 1233) >> 12;
    unsigned n = u < 10 ? 1 : t + 1 - (u < pow10[t]);
    char *p = q + n;
    while (u >= 100) {
        unsigned i = (unsigned)(u % 100) * 2;
        u /= 100;
        *--p = digits2[i + 1];
        *--p = digits2[i];
    }
    if (u >= 10) {
        *--p = digits2[u * 2 + 1];
        *--p = digits2[u * 2];
    } else {
        *--p = (char)('0' + u);
    }
    olen = (size_t)(q + n - obuf);
}

void out_dims(const cli_ctx *ctx, const int64_t *d, int n)
{
    out_char(ctx->json ? '[' : '(');
    for (int i = 0; i < n; i++) {
        if (i)
            out_char(',');
        out_i64(d[i]);
    }
    if (n == 1 && !ctx->json)
        out_char(',');
    out_char(ctx->json ? ']' : ')');
}

void out_shape(const cli_ctx *ctx, const ts_shape *s)
{
    out_dims(ctx, ts_shape_dims(s), ts_shape_ndim(s));
}

/* Length of the valid UTF-8 sequence at p (1..4), or 0 if it is not one
 * (RFC 3629: no overlongs, no surrogates, nothing above U+10FFFF). */
static int utf8_len(const unsigned char *p)
{
    unsigned char c = p[0];
    if (c < 0x80)
        return 1;
    int n = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 ? 2 : 0;
    if (n == 0 || c > 0xf4)
        return 0;
    for (int i = 1; i < n; i++)
        if ((p[i] & 0xc0) != 0x80)
            return 0;
    if ((c == 0xe0 && p[1] < 0xa0) || (c == 0xed && p[1] > 0x9f) ||
        (c == 0xf0 && p[1] < 0x90) || (c == 0xf4 && p[1] > 0x8f))
        return 0;
    return n;
}

void out_json_string(const char *s)
{
    static const char hex[] = "0123456789abcdef";
    out_char('"');
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        unsigned char c = *p;
        if (c == '"' || c == '\\') {
            out_char('\\');
            out_char((char)c);
        } else if (c == '\n') {
            out_write("\\n", 2);
        } else if (c == '\t') {
            out_write("\\t", 2);
        } else if (c < 0x20 || c == 0x7f) {
            char u[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
            out_write(u, 6);
        } else if (c >= 0x80) {
            /* Valid UTF-8 passes through; a stray byte (names in MXNet
             * files are arbitrary bytes) becomes U+FFFD. */
            int n = utf8_len(p);
            if (n == 0) {
                out_write("\\ufffd", 6);
                p++;
            } else {
                out_write((const char *)p, (size_t)n);
                p += n;
            }
            continue;
        } else {
            out_char((char)c);
        }
        p++;
    }
    out_char('"');
}

char *cli_printable(const char *s)
{
    static const char hex[] = "0123456789abcdef";
    size_t n = strlen(s);
    char *out = malloc(n * 4 + 1), *q = out;
    if (!out)
        return NULL;
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        int k = utf8_len(p);
        if (k == 2 && p[0] == 0xc2 && p[1] <= 0x9f)
            k = 0; /* a C1 control: escaped byte by byte */
        if (k == 0 || *p < 0x20 || *p == 0x7f || *p == '\\') {
            if (*p == '\\') {
                *q++ = '\\';
                *q++ = '\\';
            } else {
                *q++ = '\\';
                *q++ = 'x';
                *q++ = hex[*p >> 4];
                *q++ = hex[*p & 15];
            }
            p++;
        } else {
            memcpy(q, p, (size_t)k);
            q += k;
            p += k;
        }
    }
    *q = '\0';
    return out;
}

char *cli_utf8_clean(const char *s)
{
    size_t n = strlen(s);
    char *out = malloc(n * 3 + 1), *q = out;
    if (!out)
        return NULL;
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        int k = utf8_len(p);
        if (k == 0) {
            memcpy(q, "\xef\xbf\xbd", 3); /* U+FFFD */
            q += 3;
            p++;
        } else {
            memcpy(q, p, (size_t)k);
            q += k;
            p += k;
        }
    }
    *q = '\0';
    return out;
}

void out_printf(const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof buf) {
        out_write(buf, (size_t)n);
        return;
    }
    char *big = malloc((size_t)n + 1);
    if (!big)
        return;
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    out_write(big, (size_t)n);
    free(big);
}

int out_flush(void)
{
    drain();
    if (write_failed) {
        fprintf(stderr, "tshape: error writing output: %s\n", strerror(write_failed));
        return CLI_ERROR;
    }
    return CLI_OK;
}

/* Control characters in a message (echoed input such as a stdin line or a
 * file name) become \xNN, so every error stays one line on a terminal. */
static void escape_controls(char *msg, size_t cap)
{
    static const char hex[] = "0123456789abcdef";
    char *tmp = malloc(cap);
    if (!tmp)
        return;
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)msg; *p && n + 5 < cap; p++) {
        /* C1 controls in UTF-8 (c2 80 .. c2 9f): both bytes escaped. */
        if (*p < 0x20 || *p == 0x7f || (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) ||
            (p[0] >= 0x80 && p[0] <= 0x9f && p > (const unsigned char *)msg && p[-1] == 0xc2)) {
            tmp[n++] = '\\';
            tmp[n++] = 'x';
            tmp[n++] = hex[*p >> 4];
            tmp[n++] = hex[*p & 15];
        } else {
            tmp[n++] = (char)*p;
        }
    }
    tmp[n] = '\0';
    memcpy(msg, tmp, n + 1);
    free(tmp);
}

int cli_error(const char *context, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    escape_controls(msg, sizeof msg);
    /* Keep stdout and stderr in order for terminals and golden tests. */
    drain();
    if (context)
        fprintf(stderr, "tshape: %s: %s\n", context, msg);
    else
        fprintf(stderr, "tshape: %s\n", msg);
    return CLI_ERROR;
}

int cli_usage_error(const cli_ctx *ctx, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    escape_controls(msg, sizeof msg);
    drain();
    if (ctx && ctx->command)
        fprintf(stderr, "tshape %s: %s\nTry 'tshape %s --help'.\n", ctx->command, msg,
                ctx->command);
    else
        fprintf(stderr, "tshape: %s\nTry 'tshape --help'.\n", msg);
    return CLI_ERROR;
}

int cli_parse_i64(const cli_ctx *ctx, const char *text, const char *what, int64_t *out)
{
    ts_error err;
    ts_status st = ts_parse_i64(text, strlen(text), TS_PARSE_ALLOW_NEGATIVE, out, &err);
    if (st == TS_OK)
        return CLI_OK;
    if (st == TS_ERR_OVERFLOW)
        return cli_usage_error(ctx, "%s '%s' does not fit in 64 bits", what, text);
    return cli_usage_error(ctx, "%s must be an integer, not '%s'", what, text);
}

int cli_parse_shape(const char *text, unsigned flags, ts_shape *out)
{
    ts_error err;
    if (ts_shape_parse(text, strlen(text), flags, out, NULL, &err) != TS_OK)
        return cli_error(NULL, "'%s': %s", text, err.message);
    return CLI_OK;
}

/* ---- integer lists ------------------------------------------------------ */

int cli_fail(ts_error *err, ts_status code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    err->code = code;
    err->column = 0;
    err->offset = -1;
    return CLI_ERROR;
}

/* The library's list parser (ts_parse_i64_list), negatives allowed. */
int cli_list_parse(const char *text, size_t len, ts_shape *out, ts_error *err)
{
    return ts_parse_i64_list(text, len, TS_PARSE_ALLOW_NEGATIVE, out, err) ? CLI_ERROR : CLI_OK;
}

int cli_parse_list(const char *text, const char *what, ts_shape *out)
{
    ts_error err;
    if (cli_list_parse(text, strlen(text), out, &err))
        return cli_error(NULL, "%s '%s': %s", what, text, err.message);
    return CLI_OK;
}

static int worse(int a, int b)
{
    return a > b ? a : b;
}

/* Handles one input; reports errors with their context. */
static int run_one(cli_ctx *ctx, const char *text, size_t len, long line, cli_input_fn fn,
                   void *user)
{
    ts_error err;
    err.message[0] = '\0';
    int rc = fn(ctx, text, len, user, &err);
    if (rc == CLI_ERROR) {
        if (line > 0) {
            char where[32];
            snprintf(where, sizeof where, "line %ld", line);
            cli_error(where, "'%.*s': %s", (int)len, text, err.message);
            out_str(ctx->json ? "null\n" : "\n");
        } else {
            cli_error(NULL, "'%.*s': %s", (int)len, text, err.message);
        }
    }
    return rc;
}

static int blank_or_comment(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r'))
        i++;
    return i == n || s[i] == '#';
}

int cli_for_each_input(cli_ctx *ctx, int n, char **args, cli_input_fn fn, void *user)
{
    int status = CLI_OK;
    if (n > 0 && !(n == 1 && strcmp(args[0], "-") == 0)) {
        for (int i = 0; i < n; i++)
            status = worse(status, run_one(ctx, args[i], strlen(args[i]), 0, fn, user));
        return status;
    }
    /* stdin: big reads, lines split with memchr; a line may span reads. */
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    if (!buf)
        return cli_error(NULL, "out of memory");
    long line = 0;
    int eof = 0;
    while (!eof) {
        if (len == cap) {
            char *p = realloc(buf, cap *= 2);
            if (!p) {
                free(buf);
                return cli_error(NULL, "out of memory: a line of stdin is too long");
            }
            buf = p;
        }
        ssize_t k = read(STDIN_FILENO, buf + len, cap - len);
        if (k < 0) {
            if (errno == EINTR)
                continue;
            free(buf);
            return cli_error("<stdin>", "read error: %s", strerror(errno));
        }
        if (k == 0) {
            eof = 1;
            if (len > 0 && buf[len - 1] != '\n') {
                if (len == cap) {
                    char *p = realloc(buf, cap + 1);
                    if (!p) {
                        free(buf);
                        return cli_error(NULL, "out of memory");
                    }
                    buf = p;
                    cap++;
                }
                buf[len++] = '\n'; /* the last line had no newline */
            }
        }
        len += (size_t)k;
        char *start = buf, *end = buf + len, *nl;
        while ((nl = memchr(start, '\n', (size_t)(end - start))) != NULL) {
            size_t n_line = (size_t)(nl - start);
            line++;
            if (n_line && start[n_line - 1] == '\r')
                n_line--;
            if (!blank_or_comment(start, n_line))
                status = worse(status, run_one(ctx, start, n_line, line, fn, user));
            start = nl + 1;
        }
        len = (size_t)(end - start);
        memmove(buf, start, len);
    }
    free(buf);
    return status;
}

void cli_print_command_help(const cli_command *cmd, const char *extra)
{
    out_printf("Usage: tshape %s\n%s\n", cmd->synopsis, cmd->summary);
    if (extra)
        out_str(extra);
}

int cli_simple_options(cli_ctx *ctx, int argc, char **argv, const cli_command *cmd,
                       int *status)
{
    static const struct option opts[] = {
        {"json", no_argument, NULL, 'j'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int c;
    /* main.c has put "--" before the first negative-number operand, so
     * "-1" is never taken for an option. */
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'j':
            ctx->json = 1;
            break;
        case 'h':
            cli_print_command_help(cmd, "  -j, --json  print JSON values (a shape as [3,4])\n"
                                        "  -h, --help  show this help\n");
            if (strstr(cmd->synopsis, "SHAPE..."))
                out_str("With no SHAPE, shapes are read from standard input, one per line.\n");
            *status = CLI_OK;
            return -1;
        default:
            *status = CLI_ERROR; /* getopt printed the message */
            fprintf(stderr, "Try 'tshape %s --help'.\n", ctx->command);
            return -1;
        }
    }
    return optind;
}
