// SPDX-License-Identifier: MIT
/*
 * symbolize/linetab.c against libdw, row by row: programs built here with gcc and clang
 * (DWARF 4 and 5, -O0/-O2, cold sections, -ffunction-sections, compressed sections, a
 * shared library, #line files) and the C library's own debug file (libc6-dbg: thousands
 * of units, assembler-written ones among them). Every unit's rows (address, line,
 * discriminator, end of sequence, file name), its file table and the row each address
 * resolves to must be libdw's, and no unit may need the libdw fallback. A control
 * changes one decoded row and requires the comparison to notice.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbolize/linetab.h"
#include "lib/alloc.h"
#include "tests/unit/dwarf-builds.h"
#include "tests/unit/linetab-rows.h"
#include "tests/unit/test.h"

struct tally {
	size_t units, rows, lookups, fallbacks, mismatches;
	/* partial tables: rows kept, rows of the same units whole, lookups compared */
	size_t part_units, part_rows, part_whole_rows, part_lookups, part_fallbacks;
	int outside;                  /* control: compare lookups outside the ranges instead */
};

static void mismatch(struct tally *n, const char *path, const char *what, size_t i)
{
	if (n->mismatches++ < 5)
		printf("# %s: %s differs at %zu\n", path, what, i);
}

/* libdw's first row at or above addr, by a plain scan. */
static size_t lower_index(Dwarf_Lines *lines, size_t nlines, Dwarf_Addr addr)
{
	size_t i;

	for (i = 0; i < nlines; i++) {
		Dwarf_Addr a;

		dwarf_lineaddr(dwarf_onesrcline(lines, i), &a);
		if (a >= addr)
			break;
	}
	return i;
}

#define MAX_RANGES 4096

/* The range holding addr, or NULL. */
static const struct symbolize_linerange *range_of(const struct symbolize_linerange *r, size_t n, uint64_t addr)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (addr >= r[i].lo && addr < r[i].hi)
			return &r[i];
	return NULL;
}

/*
 * The unit read again keeping only the rows for a few hundred small ranges (some starting
 * past a row, some holding no row start, one long): every address in them must find the
 * row the whole table finds, and a walk from the lower bound up to the range's end must
 * see the same rows.
 */
static void check_partial(const struct symbolize_dwsecs *s, Dwarf_Die *cu, const char *path,
			  const struct symbolize_linetab *t, struct tally *n)
{
	static struct symbolize_linerange r[MAX_RANGES];
	struct symbolize_linetab p;
	size_t nr = 0, i, j;
	uint64_t prev_hi = 0;

	/* at every 29th distinct row address (gc'd functions' rows all sit near 0) */
	for (i = j = 0; i < t->nr_rows && nr < MAX_RANGES; i++) {
		uint64_t a = symbolize_line_addr(t, symbolize_linetab_row(t, i)), lo, len;

		if (i && a == symbolize_line_addr(t, symbolize_linetab_row(t, i - 1)))
			continue;
		if (j++ % 29)
			continue;
		lo = a + (j % 3 == 1);
		len = j == 59 ? 256 : 1 + (j % 7) * 4;
		if (nr && lo < prev_hi)
			continue;
		r[nr].lo = lo;
		r[nr++].hi = prev_hi = lo + len;
	}
	if (!nr)
		return;
	if (symbolize_linetab_read(&p, s, cu, r, nr) != 0) {
		mismatch(n, path, "partial read", 0);
		return;
	}
	n->part_units++;
	n->part_rows += p.nr_rows;
	n->part_whole_rows += t->nr_rows;
	if (!p.partial)
		n->part_fallbacks++;
	for (i = 0; i < t->nr_rows; i++) {
		uint64_t a0 = symbolize_line_addr(t, symbolize_linetab_row(t, i));
		int k;

		for (k = -1; k <= 1; k++) {
			uint64_t a = a0 + (uint64_t)(int64_t)k;
			const struct symbolize_linerange *in = range_of(r, nr, a);
			size_t fw, fp;

			if (n->outside ? in != NULL : in == NULL)
				continue;
			n->part_lookups++;
			if (!linetab_same_row(t, symbolize_linetab_find(t, a), &p, symbolize_linetab_find(&p, a)))
				mismatch(n, path, "partial lookup", i);
			if (!in)
				continue;
			fw = symbolize_linetab_lower(t, a);
			fp = symbolize_linetab_lower(&p, a);
			for (j = 0; fw + j < t->nr_rows &&
				    symbolize_line_addr(t, symbolize_linetab_row(t, fw + j)) < in->hi; j++)
				if (!linetab_same_row(t, fw + j, &p, fp + j))
					mismatch(n, path, "partial walk", i);
		}
	}
	symbolize_linetab_release(&p);
}

/* One unit: ours (perturbed at row `perturb` if not SIZE_MAX) against libdw's. */
static void check_unit(const struct symbolize_dwsecs *s, Dwarf_Die *cu, const char *path, size_t perturb,
		       struct tally *n)
{
	struct symbolize_linetab t;
	Dwarf_Lines *lines;
	Dwarf_Files *files;
	size_t nlines, nfiles, i;
	Dwarf_Attribute attr;

	if (!dwarf_attr(cu, DW_AT_stmt_list, &attr) || dwarf_getsrclines(cu, &lines, &nlines) != 0)
		return;
	n->units++;
	if (symbolize_linetab_read(&t, s, cu, NULL, 0) != 0) {
		n->fallbacks++;
		printf("# %s: unit %s needs libdw\n", path, dwarf_diename(cu));
		return;
	}
	if (perturb < t.nr_rows)
		((struct symbolize_line *)symbolize_linetab_row(&t, perturb))->line++;
	if (t.nr_rows != nlines)
		mismatch(n, path, "row count", nlines);
	for (i = 0; i < nlines && i < t.nr_rows; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		const struct symbolize_line *r = symbolize_linetab_row(&t, i);
		Dwarf_Addr a;
		int line;
		unsigned disc;
		bool end;
		const char *name = dwarf_linesrc(l, NULL, NULL), *ours = symbolize_linetab_file(&t, r->file);

		dwarf_lineaddr(l, &a);
		dwarf_lineno(l, &line);
		dwarf_linediscriminator(l, &disc);
		dwarf_lineendsequence(l, &end);
		if (a != symbolize_line_addr(&t, r) || line != r->line || disc != r->discr || end != (bool)r->end_seq)
			mismatch(n, path, "row", i);
		if ((name || ours) && (!name || !ours || strcmp(name, ours)))
			mismatch(n, path, "row file", i);
		n->rows++;
	}
	/* every row's address, and the byte after it, resolve to the same row */
	for (i = 0; i < nlines; i++) {
		Dwarf_Addr a;
		int k;

		dwarf_lineaddr(dwarf_onesrcline(lines, i), &a);
		for (k = 0; k < 2; k++) {
			Dwarf_Line *want = dwarf_getsrc_die(cu, a + k);
			size_t got = symbolize_linetab_find(&t, a + k);

			/* the rows are equal (above): the same row is the same index */
			if (got != SIZE_MAX ? want != dwarf_onesrcline(lines, got) : want != NULL)
				mismatch(n, path, "lookup", i);
			/* and the first row at or above each address */
			if (symbolize_linetab_lower(&t, a + k) != (k ? lower_index(lines, nlines, a + 1) : lower_index(lines, nlines, a)))
				mismatch(n, path, "lower bound", i);
			n->lookups++;
		}
	}
	if (dwarf_getsrcfiles(cu, &files, &nfiles) == 0) {
		if (nfiles != t.nr_files)
			mismatch(n, path, "file count", nfiles);
		for (i = 0; i < nfiles; i++) {
			const char *name = dwarf_filesrc(files, i, NULL, NULL), *ours = symbolize_linetab_file(&t, (uint32_t)i);

			if (!name || !ours || strcmp(name, ours))
				mismatch(n, path, "file table", i);
		}
	}
	check_partial(s, cu, path, &t, n);
	symbolize_linetab_release(&t);
}

struct file_check {
	size_t perturb;
	struct tally *n;
};

static void check_one(const struct symbolize_dwsecs *s, Dwarf_Die *cu, const char *path, void *arg)
{
	struct file_check *c = arg;

	check_unit(s, cu, path, c->perturb, c->n);
}

static int check_file(const char *path, size_t perturb, struct tally *n)
{
	struct file_check c = { perturb, n };

	return dwarf_each_unit(path, check_one, &c);
}

static int test_built_programs(void)
{
	struct tally n = { 0 };
	char path[256];
	size_t i;

	T_ASSERT(build_all() == 1);
	for (i = 0; i < PGO_ARRAY_SIZE(builds); i++) {
		struct tally one = { 0 };

		snprintf(path, sizeof(path), "%s/%s", dir, builds[i][2]);
		T_ASSERT(check_file(path, SIZE_MAX, &one) == 0);
		printf("# %s: %zu units, %zu rows, %zu lookups; partial: %zu of %zu rows kept, %zu lookups\n",
		       builds[i][2], one.units, one.rows, one.lookups, one.part_rows, one.part_whole_rows,
		       one.part_lookups);
		T_ASSERT(one.units >= 3 && one.rows > 400);
		/* the point of a partial table: far fewer rows; and it must not fall back */
		T_ASSERT(one.part_units == one.units && one.part_rows * 2 < one.part_whole_rows);
		T_ASSERT(one.part_lookups > 200);
		n.units += one.units;
		n.rows += one.rows;
		n.fallbacks += one.fallbacks + one.part_fallbacks;
		n.mismatches += one.mismatches;
	}
	T_ASSERT_EQ_U64(n.fallbacks, 0);
	T_ASSERT_EQ_U64(n.mismatches, 0);
	return T_OK;
}

/* Outside its ranges a partial table is not the whole one: else the case above proves nothing. */
static int test_control_partial_outside(void)
{
	struct tally n = { 0 };
	char path[256];

	T_ASSERT(build_all() == 1);
	n.outside = 1;
	snprintf(path, sizeof(path), "%s/gcc-O2", dir);
	T_ASSERT(check_file(path, SIZE_MAX, &n) == 0);
	printf("# outside the ranges: %zu of %zu lookups differ\n", n.mismatches, n.part_lookups);
	T_ASSERT(n.part_lookups > 200 && n.mismatches > 0);
	return T_OK;
}

/* The comparison must see a one-line change: otherwise the case above proves nothing. */
static int test_control_sees_a_changed_row(void)
{
	struct tally n = { 0 };
	char path[256];

	T_ASSERT(build_all() == 1);
	snprintf(path, sizeof(path), "%s/gcc-O2", dir);
	T_ASSERT(check_file(path, 3, &n) == 0);
	T_ASSERT(n.mismatches > 0);
	return T_OK;
}

/* The C library's separate debug file (libc6-dbg), found by the build-id of libc.so.6. */
static int test_libc_debug_file(void)
{
	struct tally n = { 0 };
	char path[512];

	if (libc_debug_file(path, sizeof(path)) < 0)
		return t_skip("no separate debug file for libc (install libc6-dbg)");
	T_ASSERT(check_file(path, SIZE_MAX, &n) == 0);
	printf("# %s: %zu units, %zu rows, %zu lookups, %zu need libdw; partial: %zu of %zu rows kept, "
	       "%zu lookups, %zu read whole\n", path, n.units, n.rows, n.lookups, n.fallbacks, n.part_rows,
	       n.part_whole_rows, n.part_lookups, n.part_fallbacks);
	T_ASSERT(n.units > 100 && n.rows > 10000);
	T_ASSERT_EQ_U64(n.fallbacks, 0);
	T_ASSERT_EQ_U64(n.mismatches, 0);
	return T_OK;
}

static const struct t_case cases[] = {
	{ "rows, files and lookups equal libdw's on gcc and clang builds", test_built_programs },
	{ "control: a changed row is seen", test_control_sees_a_changed_row },
	{ "control: a partial table differs outside its ranges", test_control_partial_outside },
	{ "rows equal libdw's on libc6-dbg's libc debug file", test_libc_debug_file },
	{ "remove the built programs", dwarf_builds_cleanup },
};

T_MAIN(cases)
