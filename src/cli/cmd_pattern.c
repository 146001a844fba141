/* cmd_pattern.c - einsum, einops, slices, Caffe2 and jagged shapes (issue 4;
 * not yet implemented). */
#include "cli.h"

const cli_command cli_cmds_pattern[] = {
    {NULL, NULL, NULL, NULL},
};
