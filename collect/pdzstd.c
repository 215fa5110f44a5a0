// SPDX-License-Identifier: MIT
/*
 * Decompression of perf record -z's zstd stream (collect/pdzstd.h). libzstd does the
 * decoding: it is the reference implementation of the format, and perf writes with it.
 */
#include <stdlib.h>
#include <zstd.h>

#include "collect/pdformat.h"
#include "collect/pdzstd.h"
#include "lib/alloc.h"
#include "lib/buf.h"
#include "lib/report.h"

struct collect_pdzstd {
	ZSTD_DStream *ds;
	uint8_t *out;
	size_t len, cap;
};

struct collect_pdzstd *collect_pdzstd_new(void)
{
	struct collect_pdzstd *z = pgo_calloc(1, sizeof(*z));

	if (!z)
		return NULL;
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
