/* SPDX-License-Identifier: MIT */
/*
 * Kernel symbols from /proc/kallsyms for naming kernel frames ("schedule_[k]"). The
 * running kernel is assumed to be the recorded one; when addresses are hidden
 * (kptr_restrict) or the file is unreadable the table is empty and lookups fail.
 */
#ifndef PGO_SYMBOLIZE_KSYMS_H
#define PGO_SYMBOLIZE_KSYMS_H

#include <stddef.h>
#include <stdint.h>

struct pgo_strtab;
struct symbolize_ksyms;

/* Load path (NULL: /proc/kallsyms); never fails for a missing file (empty table). NULL on OOM. */
struct symbolize_ksyms *symbolize_ksyms_load(const char *path);
void symbolize_ksyms_free(struct symbolize_ksyms *k);
/* Name of the function containing addr, borrowed; NULL if unknown. */
const char *symbolize_ksyms_find(const struct symbolize_ksyms *k, uint64_t addr);

#endif
