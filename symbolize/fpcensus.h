/* SPDX-License-Identifier: MIT */
/*
 * Does a binary keep frame pointers? Its CFI (.eh_frame) says, function by function;
 * the collector's --call-graph auto is decided from that census. Nothing here reports:
 * results and a short reason come back to the caller.
 */
#ifndef PGO_SYMBOLIZE_FPCENSUS_H
#define PGO_SYMBOLIZE_FPCENSUS_H

#include <stddef.h>

#include "collect/collect.h"

/*
 * The "auto" choice for the command `cmd` (looked up in PATH like execvp): fp when the
 * ELF keeps frame pointers, dwarf when it does not or cannot be read (a script, no
 * symbols): dwarf stacks are right either way, fp ones only with frame pointers.
 * `why` gets a short reason ("./bench keeps frame pointers (41 of 42 functions)").
 */
enum collect_callgraph symbolize_callgraph_auto(const char *cmd, char *why, size_t why_len);

/*
 * Frame-pointer census of one ELF file: functions in its symbol table (.symtab, else
 * .dynsym) that use %rbp as frame pointer, and functions examined. Start-up code (crt)
 * and functions without a stack frame (small leaves, frameless in either kind of
 * build) are not counted.
 * Returns 0, or -1 (errno set) if the file is not a readable x86-64 ELF.
 */
int symbolize_fp_census(const char *path, size_t *with_fp, size_t *functions);

#endif
