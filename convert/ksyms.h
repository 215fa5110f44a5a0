/* SPDX-License-Identifier: MIT */
/*
 * Kernel symbols from /proc/kallsyms for naming kernel frames ("schedule_[k]"). The
 * running kernel is assumed to be the recorded one; when addresses are hidden
 * (kptr_restrict) or the file is unreadable the table is empty and lookups fail.
 */
#ifndef PGO_CONVERT_KSYMS_H
#define PGO_CONVERT_KSYMS_H

#include <stddef.h>
#include <stdint.h>

struct pgo_strtab;
struct convert_ksyms;

/* Load path (NULL: /proc/kallsyms); never fails for a missing file (empty table). NULL on OOM. */
struct convert_ksyms *convert_ksyms_load(const char *path);
void convert_ksyms_free(struct convert_ksyms *k);
/* Name of the function containing addr, borrowed; NULL if unknown. */
const char *convert_ksyms_find(const struct convert_ksyms *k, uint64_t addr);

#endif
