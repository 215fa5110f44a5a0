// SPDX-License-Identifier: MIT
/* The .gcda writer (convert/gcda.h). */
#include <string.h>

#include "convert/gcda.h"
#include "lib/atomicfile.h"
#include "lib/report.h"

#define GCDA_MAGIC 0x67636461u             /* "gcda" */
#define TAG_FUNCTION 0x01000000u
#define TAG_ARC_COUNTS 0x01a10000u
#define TAG_OBJECT_SUMMARY 0xa1000000u

/* Words in the byte order of the notes (gcc reads its own order, or swapped). */
static int put_u32(struct pgo_buf *b, const struct convert_gcno *g, uint32_t v)
{
	if (g->swapped)
		v = __builtin_bswap32(v);
	return pgo_buf_add(b, &v, 4);
}

/* gcc's crc32_unsigned: CRC-32 (0x04c11db7, most significant bit first) over a word */
static uint32_t crc32_word(uint32_t crc, uint32_t v)
{
	int i;

	for (i = 0; i < 32; i++, v <<= 1)
		crc = (crc << 1) ^ (((v ^ crc) & 0x80000000u) ? 0x04c11db7u : 0);
	return crc;
}

int convert_gcda_encode(const struct convert_gcno *g, uint64_t *const *counts, uint64_t sum_max,
			struct pgo_buf *out)
{
	uint32_t checksum = 0;
	size_t i, k;
	int err = 0;

	for (i = 0; i < g->nr_fns; i++) {
		checksum = crc32_word(checksum, g->fns[i].ident);
		checksum = crc32_word(checksum, g->fns[i].lineno_checksum);
		checksum = crc32_word(checksum, g->fns[i].cfg_checksum);
	}
	err |= put_u32(out, g, GCDA_MAGIC) | put_u32(out, g, g->version) | put_u32(out, g, g->stamp) |
	       put_u32(out, g, checksum);
	/* gcc 12 keeps sum_max in 32 bits */
	err |= put_u32(out, g, TAG_OBJECT_SUMMARY) | put_u32(out, g, 8) | put_u32(out, g, 1) |
	       put_u32(out, g, sum_max > UINT32_MAX ? UINT32_MAX : (uint32_t)sum_max);
	for (i = 0; i < g->nr_fns && !err; i++) {
		const struct convert_gcno_fn *f = &g->fns[i];

		err |= put_u32(out, g, TAG_FUNCTION) | put_u32(out, g, 12) | put_u32(out, g, f->ident) |
		       put_u32(out, g, f->lineno_checksum) | put_u32(out, g, f->cfg_checksum);
		if (!f->nr_counted)
			continue;
		if (f->nr_counted > (UINT32_MAX - 8) / 8)
			return pgo_error("%s: too many arcs to count", pgo_strtab_str(&g->strs, f->name));
		err |= put_u32(out, g, TAG_ARC_COUNTS) | put_u32(out, g, (uint32_t)(f->nr_counted * 8));
		for (k = 0; k < f->nr_counted && !err; k++) {
			uint64_t c = counts && counts[i] ? counts[i][k] : 0;

			err |= put_u32(out, g, (uint32_t)c) | put_u32(out, g, (uint32_t)(c >> 32));
		}
	}
	/* the end of the file ends the records, as libgcov writes them */
	return err ? -1 : 0;
}

int convert_gcda_write(const char *path, const struct convert_gcno *g, uint64_t *const *counts,
		       uint64_t sum_max)
{
	struct pgo_buf b = PGO_BUF_INIT;
	int ret = convert_gcda_encode(g, counts, sum_max, &b);

	if (!ret)
		ret = pgo_write_file_atomic(path, b.data, b.len);
	pgo_buf_release(&b);
	return ret;
}
