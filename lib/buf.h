/* SPDX-License-Identifier: MIT */
/*
 * Growable byte buffer (git's strbuf, reduced). Invariants: `data` is either NULL
 * (len == 0, nothing allocated: the PGO_BUF_INIT state) or NUL-terminated at data[len].
 * On allocation failure the append functions report, leave the buffer unchanged and
 * return -1.
 */
#ifndef PGO_LIB_BUF_H
#define PGO_LIB_BUF_H

#include <stdarg.h>
#include <stddef.h>

#include "lib/report.h"

struct pgo_buf {
	char *data;
	size_t len;
	size_t alloc;
};
#define PGO_BUF_INIT { NULL, 0, 0 }

int pgo_buf_grow(struct pgo_buf *b, size_t extra);
int pgo_buf_add(struct pgo_buf *b, const void *data, size_t len);
int pgo_buf_adds(struct pgo_buf *b, const char *s);
int pgo_buf_addch(struct pgo_buf *b, char c);
int pgo_buf_addf(struct pgo_buf *b, const char *fmt, ...) PGO_PRINTF(2, 3);
int pgo_buf_vaddf(struct pgo_buf *b, const char *fmt, va_list ap) PGO_PRINTF(2, 0);
/* Never NULL: "" for an empty buffer. Borrowed. */
const char *pgo_buf_str(const struct pgo_buf *b);
void pgo_buf_reset(struct pgo_buf *b);   /* len = 0, keeps the allocation */
void pgo_buf_release(struct pgo_buf *b); /* frees, back to PGO_BUF_INIT */
/* Hand over the storage (NUL-terminated, may be NULL if empty); the caller frees it. */
char *pgo_buf_detach(struct pgo_buf *b);

#endif
