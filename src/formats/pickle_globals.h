/*
 * pickle_globals.h - what the globals a pickle names are. A pickle imports
 * every module.name it names (GLOBAL, STACK_GLOBAL, INST) when pickle.load
 * or torch.load runs it; tshape never does, but says what they would be:
 *   - the class of a global for tshape scan (ts_scan_class: tensor, data,
 *     unknown, dangerous), from tables written here with their sources;
 *   - whether torch.load(weights_only=True) of torch 1.13 and of torch 2.4
 *     allows a global, and the opcodes those unpicklers run.
 * Tables only: nothing here looks anything up.
 */
#ifndef TSHAPE_PICKLE_GLOBALS_H
#define TSHAPE_PICKLE_GLOBALS_H

#include "../core/internal.h"

/*
 * The class of global module.name as a pickle writes it (module and name
 * are bytes, not NUL-terminated; Python 2 module names such as
 * "__builtin__" and "copy_reg" are mapped as Python 3's unpickler maps
 * them). Python resolves a dotted name attribute by attribute (STACK_GLOBAL
 * 'torch' 'os.system' is os.system), so the dangerous list is matched
 * against the whole path and against the path from each attribute of the
 * name on, and an attribute that is a dunder (__globals__, __dict__, ...)
 * is dangerous. *what receives a phrase: for a dangerous global what it
 * would do ("run a shell command"), for the others what it is ("a tensor
 * rebuild function", "a NumPy array", "not known to tshape"); static text.
 */
ts_scan_class ts__global_class(const char *module, size_t module_len, const char *name,
                               size_t name_len, const char **what);

/* The phrase of a dangerous global, or NULL when it is not dangerous. */
const char *ts__global_danger(const char *module, size_t module_len, const char *name,
                              size_t name_len);

/* The weights_only unpicklers tshape knows: torch 1.13's and torch 2.4's
 * torch/_weights_only_unpickler.py. */
typedef enum ts__wo_version { TS__WO_1_13 = 0, TS__WO_2_4 = 1 } ts__wo_version;

/* 1 when that unpickler's _get_allowed_globals() holds "module.name" (as
 * written: neither maps Python 2 names). */
int ts__wo_global(ts__wo_version v, const char *module, size_t module_len, const char *name,
                  size_t name_len);

/* 1 when that unpickler runs opcode byte op (others: "Unsupported operand"). */
int ts__wo_opcode(ts__wo_version v, unsigned char op);

#endif /* TSHAPE_PICKLE_GLOBALS_H */
