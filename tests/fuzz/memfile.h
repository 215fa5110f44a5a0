/* SPDX-License-Identifier: MIT */
/*
 * Fuzz-target helper: put the input in an anonymous memory file and give readers that
 * take a path (the perf.data reader maps its file) a /proc/self/fd name for it.
 */
#ifndef PGO_TESTS_FUZZ_MEMFILE_H
#define PGO_TESTS_FUZZ_MEMFILE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static inline int fuzz_memfile(const uint8_t *data, size_t size, char *path, size_t pathlen)
{
	int fd = memfd_create("fuzz-input", 0);
	size_t off = 0;

	if (fd < 0)
		abort();
	while (off < size) {
		ssize_t n = write(fd, data + off, size - off);

		if (n <= 0)
			abort();
		off += (size_t)n;
	}
	snprintf(path, pathlen, "/proc/self/fd/%d", fd);
	return fd;
}

#endif
