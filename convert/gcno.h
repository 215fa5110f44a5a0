/* SPDX-License-Identifier: MIT */
/*
 * gcc's coverage notes (.gcno, written by `gcc -ftest-coverage`), read for the gcov route
 * (convert/gcov.h): per function its identity and checksums, its blocks (0 is the entry,
 * 1 the exit), its arcs in the order gcc wrote them (the order of the counters in a
 * .gcda), and the source lines of each block.
 *
 * The format is gcc's gcov-io.h of gcc 12 and later ("B22*" and up): 32-bit words in the
 * writer's byte order, records of (tag, length in bytes, payload), strings as a length
 * in bytes (with the NUL) followed by the bytes, unpadded. Header: magic "gcno", version,
 * stamp, checksum, the compile's working directory, the unexecuted-blocks flag. Records:
 * FUNCTION (ident, lineno checksum, cfg checksum, assembler name, artificial, source
 * file, start line and column, end line and column), BLOCKS (the number of blocks), ARCS
 * (a source block, then destination and flags per arc), LINES (a block, then line
 * numbers, a 0 followed by a file name switches file, 0 and an empty string end it).
 * Unknown records (gcc 14's conditions, gcc 15's paths) are skipped. Every length and
 * count is checked against the file; a bad file is reported naming it and the field.
 */
#ifndef PGO_CONVERT_GCNO_H
#define PGO_CONVERT_GCNO_H

#include <stddef.h>
#include <stdint.h>

#include "lib/hashmap.h"

#define GCNO_ARC_ON_TREE 1u      /* not counted: gcc derives it from the others */
#define GCNO_ARC_FAKE 2u         /* a call that may not return, to the exit block */
#define GCNO_ARC_FALLTHROUGH 4u

#define GCNO_MAX_BLOCKS (1u << 22)
#define GCNO_MAX_FILE_SIZE (512u << 20)

struct convert_gcno_arc {
	uint32_t src, dst, flags;
};

/* One line of a block: the file (a string id in convert_gcno.strs) and the line. */
struct convert_gcno_line {
	uint32_t block, file, line;
};

struct convert_gcno_fn {
	uint32_t ident, lineno_checksum, cfg_checksum;
	uint32_t name;                 /* string id in convert_gcno.strs */
	uint32_t source;               /* string id */
	uint32_t artificial, start_line, end_line;
	uint32_t nr_blocks;
	struct convert_gcno_arc *arcs; /* in file order */
	size_t nr_arcs;
	struct convert_gcno_line *lines; /* in file order */
	size_t nr_lines;
	size_t nr_counted;             /* arcs without GCNO_ARC_ON_TREE */
};

struct convert_gcno {
	uint32_t magic;                /* as read in the file's byte order: "gcno" */
	int swapped;                   /* written in the other byte order */
	uint32_t version, stamp, checksum;
	char *cwd;
	struct pgo_strtab strs;        /* function names and file names, each once */
	struct convert_gcno_fn *fns;
	size_t nr_fns, alloc_fns;
};

/* gcc's major version of a gcov version word ("B22*" is 12), 0 if not one. */
unsigned convert_gcno_gcc_major(uint32_t version);

/*
 * Parse the notes in data (path names the file in messages). Returns 0, or -1 after
 * reporting; *g is then released.
 */
int convert_gcno_parse(const char *path, const void *data, size_t len, struct convert_gcno *g);
/* Read and parse the file at path. */
int convert_gcno_read(const char *path, struct convert_gcno *g);
void convert_gcno_release(struct convert_gcno *g);

#endif
