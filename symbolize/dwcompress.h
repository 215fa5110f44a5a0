/* SPDX-License-Identifier: MIT */
/*
 * Debug sections compressed in a way this libelf cannot undo. A .debug_* section with
 * SHF_COMPRESSED carries its algorithm in the compression header (ch_type); libelf before
 * elfutils 0.189 (Debian 12 has 0.188) decompresses zlib only, so a binary built by gcc 13
 * or later with -gz=zstd, or whose debug sections binutils 2.40's objcopy
 * --compress-debug-sections=zstd compressed, looks to libdw as if it had no DWARF at all. This names the algorithm and the way out,
 * so the user is not told to "build with -g" a binary that was.
 */
#ifndef PGO_SYMBOLIZE_DWCOMPRESS_H
#define PGO_SYMBOLIZE_DWCOMPRESS_H

#include <gelf.h>

struct pgo_buf;

/*
 * If elf (the file at path) has a .debug_* section compressed with anything but zlib,
 * append to msg a sentence naming the algorithm and how to decompress the file, and
 * return 1; return 0 if it has none, -1 on allocation failure.
 */
int symbolize_dwcompress_explain(Elf *elf, const char *path, struct pgo_buf *msg);

#endif
