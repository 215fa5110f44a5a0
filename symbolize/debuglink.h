/* SPDX-License-Identifier: MIT */
/*
 * Why a binary's separate debug file was not used. A stripped binary names its debug file
 * in .gnu_debuglink (file name + CRC32 of that file); libdwfl looks for it beside the
 * binary, in .debug/ and under /usr/lib/debug, and silently skips a file whose build-id
 * (or, without build-ids, CRC32) differs: a debug file of another build. This finds the
 * same candidates and says which one was found and how it differs, so the user sees
 * "debug file of another build", not just "no debug info".
 */
#ifndef PGO_SYMBOLIZE_DEBUGLINK_H
#define PGO_SYMBOLIZE_DEBUGLINK_H

#include <gelf.h>
#include <stddef.h>
#include <stdint.h>

struct pgo_buf;

/*
 * elf: the binary at path, whose build-id is bid (bid_len 0: none). If the binary has a
 * .gnu_debuglink, append to msg a sentence on its debug file (not found where looked;
 * found but another build: CRC32 and build-ids of both; found and matching) and return 1;
 * return 0 if the binary has no .gnu_debuglink, -1 on allocation failure.
 */
int symbolize_debuglink_explain(Elf *elf, const char *path, const uint8_t *bid, int bid_len,
			      struct pgo_buf *msg);

#endif
