/* cmd_layout.c - reshape, broadcast, axes, strides, contiguity, index math
 * (issue 4; not yet implemented). */
#include "cli.h"

const cli_command cli_cmds_layout[] = {
    {NULL, NULL, NULL, NULL},
};
