// SPDX-License-Identifier: MIT
/* Growable, always NUL-terminated byte buffer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/alloc.h"
#include "lib/buf.h"

int pgo_buf_grow(struct pgo_buf *b, size_t extra)
{
	if (b->len + extra + 1 < b->len)
		return pgo_error("out of memory");
	if (b->len + extra + 1 <= b->alloc)
		return 0;
	/* nothing reads past data[len]: the new tail need not be zeroed */
	if (pgo_alloc_grow_uninit((void **)&b->data, b->len + extra + 1, &b->alloc, 1) < 0)
		return -1;
	b->data[b->len] = '\0';
	return 0;
}

int pgo_buf_add(struct pgo_buf *b, const void *data, size_t len)
{
	if (pgo_buf_grow(b, len))
		return -1;
	if (len)
		memcpy(b->data + b->len, data, len);
	b->len += len;
	b->data[b->len] = '\0';
	return 0;
}

int pgo_buf_adds(struct pgo_buf *b, const char *s)
{
	return pgo_buf_add(b, s, strlen(s));
}

int pgo_buf_addch(struct pgo_buf *b, char c)
{
	return pgo_buf_add(b, &c, 1);
}

/*
 * Formatted straight into the room the buffer has; only what does not fit is formatted
 * twice (measuring first was half of writing a text profile).
 */
int pgo_buf_vaddf(struct pgo_buf *b, const char *fmt, va_list ap)
{
	size_t room = b->alloc - b->len;
	va_list cp;
	int n;

	va_copy(cp, ap);
	n = b->data ? vsnprintf(b->data + b->len, room, fmt, cp) : vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0) {
		if (b->data)
			b->data[b->len] = '\0';
		return pgo_error("bad format string");
	}
	if (b->data && (size_t)n < room) {
		b->len += (size_t)n;
		return 0;
	}
	if (pgo_buf_grow(b, (size_t)n)) {
		if (b->data)
			b->data[b->len] = '\0';
		return -1;
	}
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
	return 0;
}

int pgo_buf_addf(struct pgo_buf *b, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = pgo_buf_vaddf(b, fmt, ap);
	va_end(ap);
	return ret;
}

const char *pgo_buf_str(const struct pgo_buf *b)
{
	return b->data ? b->data : "";
}

void pgo_buf_reset(struct pgo_buf *b)
{
	b->len = 0;
	if (b->data)
		b->data[0] = '\0';
}

void pgo_buf_release(struct pgo_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->alloc = 0;
}

char *pgo_buf_detach(struct pgo_buf *b)
{
	char *p = b->data;

	b->data = NULL;
	b->len = b->alloc = 0;
	return p;
}
