/*
 * main.c - tshape's entry point: global options, the subcommand table and
 * dispatch. Each subcommand group lives in its own cmd_*.c file.
 */
#include "cli.h"

#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const cli_command *const groups[] = {
    cli_cmds_shape, cli_cmds_info, cli_cmds_layout, cli_cmds_pattern,
};

const cli_command *cli_find_command(const char *name)
{
    for (size_t g = 0; g < sizeof groups / sizeof *groups; g++)
        for (const cli_command *c = groups[g]; c->name; c++)
            if (strcmp(c->name, name) == 0)
                return c;
    return NULL;
}

static void usage(void)
{
    out_str("Usage: tshape [--json] COMMAND [OPTIONS] [ARGS...]\n"
            "Tensor shape arithmetic and saved-tensor inspection.\n"
            "\n"
            "SHAPE is a tuple such as (3,4,5), [3,4,5], (3,) or 5. Commands that take\n"
            "SHAPE... read shapes from stdin, one per line, when none is given.\n"
            "\n");
    static const char *const titles[] = {
        "Shape arithmetic (mshadow TShape)",
        "Saved tensor files",
        "Layout: reshape, broadcast, axes, strides, views, index math",
        "Patterns and structured shapes: slices, einsum, einops, Caffe2, jagged",
    };
    for (size_t g = 0; g < sizeof groups / sizeof *groups; g++) {
        out_printf("%s%s:\n", g ? "\n" : "", titles[g]);
        for (const cli_command *c = groups[g]; c->name; c++) {
            if (strlen(c->synopsis) <= 32)
                out_printf("  %-32s  %s\n", c->synopsis, c->summary);
            else /* a long synopsis gets a line of its own */
                out_printf("  %s\n  %-32s  %s\n", c->synopsis, "", c->summary);
        }
    }
    out_str("\n"
            "Options:\n"
            "  -j, --json      print JSON (values, or one object per line for info)\n"
            "  -h, --help      show this help, or a command's help after the command\n"
            "  -V, --version   show the version\n"
            "\n"
            "Exit status: 0 success or true, 1 false (eq, contiguous, view),\n"
            "2 bad input, usage or I/O error.\n"
            "See tshape(1) for details.\n");
}

/* "-1", "-2:3", "-1,4", and einsum/einops specs such as "->": operands,
 * not options. */
static int looks_negative(const char *s)
{
    return s[0] == '-' && ((s[1] >= '0' && s[1] <= '9') || s[1] == '>');
}

/*
 * Options of any subcommand that take a value as the next argument. Their
 * value may be a negative number ("--axis -1"), so it must not be taken for
 * an operand. Keep in sync with the subcommands' option tables (a golden
 * test passes a negative value to each).
 */
static const char *const value_options[] = {
    "--axes", "--axis", "--dtype", "--order", "--strides", "--row-stride", "--mode",
    "--origin", "--op", "--layers", "--slice", "--format", "--filter", "--max-header",
    "-f", NULL,
};

static int takes_value(const char *arg)
{
    for (const char *const *o = value_options; *o; o++)
        if (strcmp(arg, *o) == 0)
            return 1;
    return 0;
}

/*
 * Reorders a subcommand's arguments as [name, options..., "--", operands...]
 * so that getopt sees every option wherever it was written and never reads
 * a negative-number operand ("-1") as an option. An option that takes a
 * value keeps the argument after it; "--" ends the options as usual.
 * `out` and `ops` have room for argc + 2 pointers each. Returns the new argc.
 */
static int arrange_args(int argc, char **argv, char **out, char **ops)
{
    static char dashdash[] = "--";
    int n = 0, nops = 0;
    out[n++] = argv[0];
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) {
            while (++i < argc)
                ops[nops++] = argv[i];
            break;
        }
        if (a[0] == '-' && a[1] != '\0' && !looks_negative(a)) {
            out[n++] = argv[i];
            if (takes_value(a) && i + 1 < argc)
                out[n++] = argv[++i];
            continue;
        }
        ops[nops++] = argv[i];
    }
    out[n++] = dashdash;
    for (int k = 0; k < nops; k++)
        out[n++] = ops[k];
    out[n] = NULL;
    return n;
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"json", no_argument, NULL, 'j'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    cli_ctx ctx = {0, NULL};
    int c;

    /* Write errors are reported by out_flush; EPIPE exits quietly there. */
    signal(SIGPIPE, SIG_IGN);

    /* '+': global options stop at the command name. */
    while ((c = getopt_long(argc, argv, "+jhV", opts, NULL)) != -1) {
        switch (c) {
        case 'j':
            ctx.json = 1;
            break;
        case 'h':
            usage();
            return out_flush();
        case 'V':
            out_printf("tshape %s\n", ts_version());
            return out_flush();
        default:
            fputs("Try 'tshape --help'.\n", stderr);
            return CLI_ERROR;
        }
    }
    if (optind >= argc)
        return cli_usage_error(NULL, "missing command");
    const cli_command *cmd = cli_find_command(argv[optind]);
    if (!cmd)
        return cli_usage_error(NULL, "unknown command '%s'", argv[optind]);
    ctx.command = cmd->name;

    /* Options first, then "--", then operands (see arrange_args). */
    int sub_argc = argc - optind;
    char **sub = malloc(((size_t)sub_argc + 2) * 2 * sizeof *sub);
    if (!sub)
        return cli_error(NULL, "out of memory");
    int n = arrange_args(sub_argc, argv + optind, sub, sub + sub_argc + 2);
    optind = 0; /* reset getopt for the subcommand (GNU) */
    int status = cmd->run(&ctx, n, sub);
    free(sub);
    int flushed = out_flush();
    return status > flushed ? status : flushed;
}
