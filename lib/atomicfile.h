/* SPDX-License-Identifier: MIT */
/*
 * Output files that appear whole or not at all: write to a temporary file in the same
 * directory (".NAME.tmp.XXXXXX"), then fsync and rename() it over NAME on commit.
 * A crash or kill at any moment leaves the previous NAME (if any) untouched; at worst a
 * stray temporary file remains. "-" means stdout, and an existing device or FIFO
 * (/dev/null, a named pipe) is written in place: neither can be replaced atomically.
 */
#ifndef PGO_LIB_ATOMICFILE_H
#define PGO_LIB_ATOMICFILE_H

#include <stdio.h>

struct pgo_atomic_file {
	char *path;  /* final name (new) */
	char *tmp;   /* temporary name (new), NULL for stdout */
	FILE *fp;    /* open for writing; use it freely until commit/abort */
	int fd;
	int in_place; /* a device or FIFO opened directly */
};
#define PGO_ATOMIC_FILE_INIT { NULL, NULL, NULL, -1, 0 }

/* Create the temporary file. Reports and returns -1 if the directory is not writable. */
int pgo_atomic_open(struct pgo_atomic_file *af, const char *path);
/* Flush, check for write errors (ENOSPC, EIO), fsync, close, rename. On failure the
 * temporary file is removed and NAME is untouched. Returns 0 or -1. Always releases af. */
int pgo_atomic_commit(struct pgo_atomic_file *af);
/* Discard: close and unlink the temporary file. Safe on an INIT or committed struct. */
void pgo_atomic_abort(struct pgo_atomic_file *af);

/* Convenience: write `len` bytes atomically to `path`. */
int pgo_write_file_atomic(const char *path, const void *data, size_t len);
/* Read a whole file (up to max bytes; larger is an error naming the file). The result
 * is new and NUL-terminated; *len excludes the NUL. */
int pgo_read_file(const char *path, size_t max, char **data, size_t *len);

#endif
