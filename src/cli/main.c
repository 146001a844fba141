/*
 * main.c - tshape's entry point: the command table (from commands.def), the
 * program's --help, and the run: global options, the command's options,
 * the command, and the exit status.
 */
#include "cli.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

const cli_command cli_commands[] = {
#define CLI_GROUP(id, title)
#define CLI_COMMAND(name, group, handler, options, synopsis, summary) \
    {name, CLI_GROUP_##group, handler, options, synopsis, summary},
#include "commands.def"
#undef CLI_GROUP
#undef CLI_COMMAND
};

const size_t cli_command_count = sizeof cli_commands / sizeof *cli_commands;

const char *const cli_group_titles[CLI_GROUP_COUNT] = {
#define CLI_GROUP(id, title) title,
#define CLI_COMMAND(name, group, handler, options, synopsis, summary)
#include "commands.def"
#undef CLI_GROUP
#undef CLI_COMMAND
};

const cli_command *cli_find_command(const char *name)
{
    for (size_t i = 0; i < cli_command_count; i++)
        if (strcmp(cli_commands[i].name, name) == 0)
            return &cli_commands[i];
    return NULL;
}

void cli_global_help(cli_ctx *ctx)
{
    out_str(ctx, "Usage: tshape [OPTIONS] COMMAND [OPTIONS] [ARGS...]\n"
                 "Tensor shape arithmetic and saved-tensor inspection.\n"
                 "\n"
                 "SHAPE is a tuple such as (3,4,5), [3,4,5], (3,) or 5. Commands that take\n"
                 "SHAPE... read shapes from stdin, one per line, when none is given.\n");
    for (int g = 0; g < CLI_GROUP_COUNT; g++) {
        out_printf(ctx, "\n%s:\n", cli_group_titles[g]);
        for (size_t i = 0; i < cli_command_count; i++) {
            const cli_command *c = &cli_commands[i];
            if (c->group != (cli_group)g)
                continue;
            if (strlen(c->synopsis) <= 32)
                out_printf(ctx, "  %-32s  %s\n", c->synopsis, c->summary);
            else /* a long synopsis gets a line of its own */
                out_printf(ctx, "  %s\n  %-32s  %s\n", c->synopsis, "", c->summary);
        }
    }
    out_str(ctx, "\nOptions (before or after the command):\n");
    cli_print_options(ctx, cli_global_options, NULL);
    out_str(ctx, "'tshape COMMAND --help' or 'tshape help COMMAND' shows the options of a\n"
                 "command.\n"
                 "\n"
                 "Exit status: 0 success or true, 1 false (eq, contiguous, view),\n"
                 "2 bad input, usage or I/O error.\n"
                 "See tshape(1) for details.\n");
}

static const char *command_name(void *ctx, size_t i)
{
    (void)ctx;
    return cli_commands[i].name;
}

const char *cli_command_suggestion(const char *word, char *buf, size_t cap)
{
    return cli_suggest_text(word, command_name, NULL, cli_command_count, buf, cap);
}

/* One option as "\t--long\t-s\tVALUE\tCHOICES" (empty fields when absent). */
static void list_option(cli_ctx *ctx, const cli_option *o)
{
    char words[1024];
    out_printf(ctx, "\t--%s\t", o->name);
    if (o->short_name)
        out_printf(ctx, "-%c", o->short_name);
    out_printf(ctx, "\t%s\t%s\n", o->value ? o->value : "", cli_choices(o, words, sizeof words));
}

/* 1 if the command's table repeats a long or short name, its own or a
 * global one (a table mistake the parser would hide). */
static int clashes(cli_ctx *ctx, const cli_command *c)
{
    const cli_option *lists[2] = {c->options, cli_global_options};
    for (const cli_option *o = c->options; o->name || o->help; o++)
        for (int k = 0; k < 2; k++)
            for (const cli_option *p = lists[k]; p->name || p->help; p++)
                if (o->name && p->name && o != p &&
                    (strcmp(o->name, p->name) == 0 ||
                     (o->short_name && o->short_name == p->short_name)))
                    return cli_error(ctx, NULL, "%s: option --%s clashes with --%s", c->name,
                                     o->name, p->name);
    return 0;
}

/*
 * tshape --complete-list (hidden): the tables as tab-separated lines, read
 * by scripts/gen-completion.sh and tests/cli/tables.test.sh:
 *     command NAME SYNOPSIS
 *     option  NAME --long -s VALUE CHOICES
 *     global  --long -s VALUE CHOICES
 */
static int complete_list(cli_ctx *ctx)
{
    for (const cli_option *o = cli_global_options; o->name; o++) {
        out_str(ctx, "global");
        list_option(ctx, o);
    }
    for (size_t i = 0; i < cli_command_count; i++) {
        const cli_command *c = &cli_commands[i];
        if (clashes(ctx, c))
            return CLI_ERROR;
        out_printf(ctx, "command\t%s\t%s\n", c->name, c->synopsis);
        for (const cli_option *o = c->options; o->name || o->help; o++)
            if (o->name) {
                out_printf(ctx, "option\t%s", c->name);
                list_option(ctx, o);
            }
    }
    return CLI_OK;
}

/* Runs the command named by argv[0] on argv[1..argc). */
static int run_command(cli_ctx *ctx, int argc, char **argv)
{
    cli_args args;
    ctx->cmd = cli_find_command(argv[0]);
    if (!ctx->cmd) {
        char q[128], hint[512];
        return cli_usage(ctx, "unknown command '%s'%s",
                         cli_quote(argv[0], strlen(argv[0]), q, sizeof q),
                         cli_command_suggestion(argv[0], hint, sizeof hint));
    }
    int status = CLI_OK;
    if (cli_parse_args(ctx, argc, argv, &args))
        status = ctx->cmd->run(ctx, &args);
    cli_args_free(&args);
    return status;
}

int main(int argc, char **argv)
{
    static cli_ctx ctx; /* 64 KiB of output buffer: not on the stack */
    int status = CLI_OK;

    /* Write errors are reported by out_finish; EPIPE ends output quietly. */
    signal(SIGPIPE, SIG_IGN);

    if (argc == 2 && strcmp(argv[1], "--complete-list") == 0)
        return out_finish(&ctx, complete_list(&ctx));
    int first = cli_parse_global(&ctx, argc, argv);
    if (first > 0)
        status = run_command(&ctx, argc - first, argv + first);
    return out_finish(&ctx, status);
}
