// SPDX-License-Identifier: MIT
/* LLVM text sample profile writer (convert/llvm.h). */
#include <stdio.h>
#include <string.h>

#include "convert/internal.h"
#include "convert/llvm.h"
#include "convert/sampleprof.h"
#include "lib/atomicfile.h"
#include "lib/buf.h"
#include "lib/report.h"

/*
 * Numbers are formatted here rather than by pgo_buf_addf: vsnprintf per field was most of
 * writing the profile (sqlite3: ~40,000 lines).
 */
static void put_u64(struct pgo_buf *b, uint64_t v)
{
	char d[20];
	size_t n = sizeof(d);

	do {
		d[--n] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	pgo_buf_add(b, d + n, sizeof(d) - n);
}

static int offset_text(struct pgo_buf *b, int depth, uint32_t off)
{
	static const char spaces[] = "                                ";
	int16_t line = (int16_t)(off >> 16);
	int d;

	if (line < 0)
		return 0;
	for (d = depth; d > 0; d -= (int)sizeof(spaces) - 1)
		pgo_buf_add(b, spaces, d < (int)sizeof(spaces) - 1 ? (size_t)d : sizeof(spaces) - 1);
	put_u64(b, (uint64_t)line);
	if (off & 0xffff) {
		pgo_buf_addch(b, '.');
		put_u64(b, off & 0xffff);
	}
	return 1;
}

/*
 * LLVM's total is the sum of the body's line counts (each the max over its
 * instructions) and of the inlined totals, not the sum over instructions that
 * AutoFDO keeps; recompute it.
 */
static uint64_t llvm_total(const struct sp_fn *f)
{
	uint64_t t = 0;
	size_t i;

	for (i = 0; i < f->nr_pos; i++)
		if ((int16_t)(f->pos[i].offset >> 16) >= 0)
			t += f->pos[i].count;
	for (i = 0; i < f->nr_cs; i++)
		if ((int16_t)(f->cs[i].offset >> 16) >= 0)
			t += llvm_total(f->cs[i].fn);
	return t;
}

static void put_body(const struct sp_profile *sp, const struct sp_fn *f, int depth,
		     struct pgo_buf *b)
{
	size_t i, k;

	for (i = 0; i < f->nr_pos; i++) {
		if (!offset_text(b, depth, f->pos[i].offset))
			continue;
		pgo_buf_add(b, ": ", 2);
		put_u64(b, f->pos[i].count);
		for (k = 0; k < f->pos[i].nr_targets; k++) {
			pgo_buf_addch(b, ' ');
			pgo_buf_adds(b, sp_str(sp, f->pos[i].targets[k].name));
			pgo_buf_addch(b, ':');
			put_u64(b, f->pos[i].targets[k].count);
		}
		pgo_buf_addch(b, '\n');
	}
	for (i = 0; i < f->nr_cs; i++) {
		const struct sp_fn *c = f->cs[i].fn;

		if (!offset_text(b, depth, f->cs[i].offset))
			continue;
		pgo_buf_add(b, ": ", 2);
		pgo_buf_adds(b, sp_str(sp, c->name));
		pgo_buf_addch(b, ':');
		put_u64(b, llvm_total(c));
		pgo_buf_addch(b, '\n');
		put_body(sp, c, depth + 1, b);
	}
}

int convert_llvm_write(struct convert_profile *p, const char *path, uint64_t *functions)
{
	struct sp_profile sp;
	struct pgo_buf b = PGO_BUF_INIT;
	size_t i;
	int err = -1;

	if (sp_build(p, SP_DISCR_LLVM, 0, &sp) < 0)
		return -1;
	if (!sp.nr_fns) {
		sp_release(&sp);
		return pgo_error("no samples with line information in the binary; build it with -g "
				 "(and keep its .dwo files, if -gsplit-dwarf)");
	}
	for (i = 0; i < sp.nr_fns; i++) {
		const struct sp_fn *f = sp.fns[i];

		pgo_buf_addf(&b, "%s:%llu:%llu\n", sp_str(&sp, f->name), (unsigned long long)llvm_total(f),
			     (unsigned long long)f->head);
		put_body(&sp, f, 1, &b);
	}
	if (!b.data) {
		pgo_error("out of memory writing '%s'", path);
		goto out;
	}
	if (pgo_write_file_atomic(path, b.data, b.len) < 0) /* "-" is stdout */
		goto out;
	*functions = sp.nr_fns;
	err = 0;
out:
	pgo_buf_release(&b);
	sp_release(&sp);
	return err;
}
