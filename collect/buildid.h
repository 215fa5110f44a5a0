/* SPDX-License-Identifier: MIT */
/*
 * The GNU build-id note of an ELF file (its PT_NOTE segments, read with libelf), for the
 * MMAP2 records pgo synthesizes for processes that run already (collect/session_proc.c).
 */
#ifndef PGO_COLLECT_BUILDID_H
#define PGO_COLLECT_BUILDID_H

#include <stddef.h>
#include <stdint.h>

#define COLLECT_BUILD_ID_MAX 20

/* The build-id of the ELF file open at fd, in id: its size (1..20), or 0 if none. */
size_t collect_elf_build_id(int fd, uint8_t id[COLLECT_BUILD_ID_MAX]);

#endif
