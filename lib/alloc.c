// SPDX-License-Identifier: MIT
/* Checked allocation: report out-of-memory once and let the caller unwind. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/alloc.h"
#include "lib/report.h"

int pgo_alloc_grow_uninit(void **ptr, size_t nr, size_t *alloc, size_t size)
{
	size_t n;
	void *p;

	if (nr <= *alloc)
		return 0;
	n = *alloc ? *alloc : 16;
	while (n < nr) {
		if (n > SIZE_MAX / 2)
			return pgo_error("out of memory (%zu elements)", nr);
		n *= 2;
	}
	if (size && n > SIZE_MAX / size)
		return pgo_error("out of memory (%zu elements of %zu bytes)", n, size);
	p = realloc(*ptr, n * size);
	if (!p)
		return pgo_error("out of memory (%zu bytes)", n * size);
	*ptr = p;
	*alloc = n;
	return 0;
}

int pgo_alloc_grow(void **ptr, size_t nr, size_t *alloc, size_t size)
{
	size_t old = *alloc;

	if (nr <= old)
		return 0;
	if (pgo_alloc_grow_uninit(ptr, nr, alloc, size) < 0)
		return -1;
	memset((char *)*ptr + old * size, 0, (*alloc - old) * size);
	return 0;
}

void *pgo_calloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		pgo_error("out of memory (%zu x %zu bytes)", n, size);
	return p;
}

char *pgo_strdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		pgo_error("out of memory");
	return p;
}

char *pgo_strndup(const char *s, size_t n)
{
	char *p = strndup(s, n);

	if (!p)
		pgo_error("out of memory");
	return p;
}
