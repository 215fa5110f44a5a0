// SPDX-License-Identifier: MIT
/*
 * Decompression of perf record -z's zstd stream (collect/pdzstd.h). libzstd does the
 * decoding: it is the reference implementation of the format, and perf writes with it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zstd.h>

#include "collect/pdformat.h"
#include "collect/pdzstd.h"
#include "lib/alloc.h"
#include "lib/buf.h"
#include "lib/report.h"

/* Output past this much is written to a temporary file (collect_pdzstd_spill). */
#define SPILL_AT (4u << 20)

struct collect_pdzstd {
	ZSTD_DStream *ds;
	uint8_t *out;                  /* output [spilled, spilled + len) */
	size_t len, cap;
	uint64_t spilled;              /* output bytes before out[0], in the file */
	int fd;                        /* the temporary file; -1 none yet, -2 none possible */
	char *dir;
	uint8_t *map;                  /* collect_pdzstd_finish(): the file, mapped */
	size_t map_len;
};

struct collect_pdzstd *collect_pdzstd_new(void)
{
	struct collect_pdzstd *z = pgo_calloc(1, sizeof(*z));

	if (!z)
		return NULL;
	z->fd = -1;
	z->ds = ZSTD_createDStream();
	if (!z->ds || ZSTD_isError(ZSTD_initDStream(z->ds))) {
		pgo_error("cannot set up zstd decompression (out of memory?)");
		collect_pdzstd_free(z);
		return NULL;
	}
	return z;
}

void collect_pdzstd_free(struct collect_pdzstd *z)
{
	if (!z)
		return;
	ZSTD_freeDStream(z->ds);
	free(z->out);
	if (z->map)
		munmap(z->map, z->map_len);
	if (z->fd >= 0)
		close(z->fd);
	free(z->dir);
	free(z);
}

/* Room for at least one zstd block's output past len, within limit. */
static int grow(struct collect_pdzstd *z, size_t limit, const char **why)
{
	size_t want = ZSTD_DStreamOutSize(), cap;
	uint8_t *p;

	if (z->cap - z->len >= want)
		return 0;
	if (z->cap >= limit) {
		if (z->len < z->cap)
			return 0;
		*why = "decompressed data too large";
		return -1;
	}
	cap = z->cap ? z->cap * 2 : 4 * want;
	if (cap - z->len < want)
		cap = z->len + want;
	if (cap > limit)
		cap = limit;
	p = realloc(z->out, cap);
	if (!p) {
		*why = "out of memory";
		return -1;
	}
	z->out = p;
	z->cap = cap;
	return 0;
}

int collect_pdzstd_feed(struct collect_pdzstd *z, const void *payload, size_t len, size_t limit,
			const char **why)
{
	ZSTD_inBuffer in = { payload, len, 0 };

	/* until the payload is consumed and the last call left room (nothing held back) */
	for (;;) {
		ZSTD_outBuffer out;
		size_t ret;

		if (grow(z, limit, why) < 0)
			return -1;
		out.dst = z->out + z->len;
		out.size = z->cap - z->len;
		out.pos = 0;
		ret = ZSTD_decompressStream(z->ds, &out, &in);
		if (ZSTD_isError(ret)) {
			*why = ZSTD_getErrorName(ret);
			return -1;
		}
		z->len += out.pos;
		if (in.pos == in.size && out.pos < out.size)
			return 0;
	}
}

int collect_pdzstd_reset(struct collect_pdzstd *z)
{
	if (ZSTD_isError(ZSTD_DCtx_reset(z->ds, ZSTD_reset_session_only)))
		return pgo_error("cannot reset zstd decompression");
	return 0;
}

const uint8_t *collect_pdzstd_data(const struct collect_pdzstd *z, size_t *len)
{
	*len = z->len;
	return z->out;
}

uint64_t collect_pdzstd_base(const struct collect_pdzstd *z)
{
	return z->spilled;
}

/* An unnamed file in $TMPDIR (else /tmp) for the output; -2 if there is none to be had. */
static int open_spill(struct collect_pdzstd *z)
{
	const char *dir = getenv("TMPDIR");

	if (!dir || !*dir)
		dir = "/tmp";
	z->dir = strdup(dir);
	z->fd = z->dir ? open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600) : -1;
	if (z->fd < 0) {
		pgo_debug(1, "no temporary file in '%s' (%s): compressed records stay decompressed "
			  "in memory", dir, strerror(errno));
		z->fd = -2;
	}
	return z->fd;
}

static int write_all(struct collect_pdzstd *z, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t w = write(z->fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return pgo_error_errno("cannot write decompressed records to a temporary file "
					       "in '%s' (set TMPDIR to a directory with room)", z->dir);
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

int collect_pdzstd_spill(struct collect_pdzstd *z, uint64_t upto, int all)
{
	size_t n = (size_t)(upto - z->spilled);

	if (upto < z->spilled || n > z->len)
		PGO_BUG("spill past the output");
	if ((!all && n < SPILL_AT) || z->fd == -2 || (z->fd == -1 && open_spill(z) < 0) || !n)
		return 0;
	if (write_all(z, z->out, n))
		return -1;
	memmove(z->out, z->out + n, z->len - n);
	z->len -= n;
	z->spilled += n;
	return 0;
}

const uint8_t *collect_pdzstd_finish(struct collect_pdzstd *z, uint64_t *total, int *in_file)
{
	*total = z->spilled + z->len;
	*in_file = 0;
	if (!z->spilled)
		return z->out;             /* small: never left memory */
	if (collect_pdzstd_spill(z, *total, 1))
		return NULL;
	z->map = mmap(NULL, (size_t)*total, PROT_READ, MAP_SHARED, z->fd, 0);
	if (z->map == MAP_FAILED) {
		z->map = NULL;
		pgo_error_errno("cannot map the decompressed records");
		return NULL;
	}
	z->map_len = (size_t)*total;
	free(z->out);
	z->out = NULL;
	z->len = z->cap = 0;
	*in_file = 1;
	return z->map;
}

/* Payload bytes of a compressed record at most: its size is 16 bits, header included. */
#define ZREC_PAYLOAD (65535 - 8)

struct collect_pdzenc {
	ZSTD_CCtx *cc;
	struct pgo_buf frame;
};

struct collect_pdzenc *collect_pdzenc_new(int level)
{
	struct collect_pdzenc *e = pgo_calloc(1, sizeof(*e));

	if (!e)
		return NULL;
	e->cc = ZSTD_createCCtx();
	if (!e->cc || ZSTD_isError(ZSTD_CCtx_setParameter(e->cc, ZSTD_c_compressionLevel, level))) {
		pgo_error("cannot set up zstd compression at level %d", level);
		collect_pdzenc_free(e);
		return NULL;
	}
	return e;
}

void collect_pdzenc_free(struct collect_pdzenc *e)
{
	if (!e)
		return;
	ZSTD_freeCCtx(e->cc);
	pgo_buf_release(&e->frame);
	free(e);
}

int collect_pdzenc_records(struct collect_pdzenc *e, const void *data, size_t len, struct pgo_buf *out)
{
	ZSTD_inBuffer in = { data, len, 0 };
	size_t bound = ZSTD_compressBound(len) + 64, at = 0, ret;
	ZSTD_outBuffer o;

	if (pgo_buf_grow(&e->frame, bound))
		return -1;
	o.dst = e->frame.data;
	o.size = bound;
	o.pos = 0;
	/* the stream goes on; a flush ends the batch at a block boundary */
	do {
		ret = ZSTD_compressStream2(e->cc, &o, &in, ZSTD_e_flush);
		if (ZSTD_isError(ret))
			return pgo_error("zstd compression failed: %s", ZSTD_getErrorName(ret));
	} while (ret && o.pos < o.size);
	if (ret)
		return pgo_error("zstd compression failed: output past its bound");
	while (at < o.pos) {
		size_t n = o.pos - at < ZREC_PAYLOAD ? o.pos - at : ZREC_PAYLOAD;
		struct perf_event_header h = { PD_RECORD_COMPRESSED, 0, (uint16_t)(sizeof(h) + n) };

		if (pgo_buf_add(out, &h, sizeof(h)) || pgo_buf_add(out, (const char *)o.dst + at, n))
			return -1;
		at += n;
	}
	return 0;
}
