// SPDX-License-Identifier: MIT
/*
 * The scope tree read by symbolize/dies.h against the same tree read by libdw, on the
 * programs of dwarf-builds.h (gcc and clang, DWARF 4 and 5, -O0/-O2, cold sections,
 * -ffunction-sections, compressed sections, a shared library) and on the C library's
 * debug file (libc6-dbg). At every line-table address of every unit, and the byte after
 * it, the inline chain (the DIEs, outermost first) and how far it holds must be the same,
 * and the raw reader must have read every unit of the built programs itself. A control
 * compares with a tree cut at two levels and requires the comparison to see it.
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
#include "symbolize/scopetree.h"
#include "tests/unit/dwarf-builds.h"
#include "tests/unit/test.h"

#define DEPTH 64

struct tally {
	size_t units, raw_units, libdw_reads, lookups, deep, mismatches;
	int cut;                      /* control: libdw's tree only two levels deep */
};

static void mismatch(struct tally *n, const char *path, uint64_t pc, const char *what)
{
	if (n->mismatches++ < 5)
		printf("# %s: %s differs at 0x%llx\n", path, what, (unsigned long long)pc);
}

static void compare_at(struct symbolize_scopetree *raw, struct symbolize_scopetree *dw, uint64_t pc,
		       const char *path, struct tally *n)
{
	Dwarf_Die a[DEPTH], b[DEPTH];
	Dwarf_Addr ea, eb;
	int na = symbolize_scopetree_chain(raw, pc, a, DEPTH, &ea);
	int nb = symbolize_scopetree_chain(dw, pc, b, DEPTH, &eb), i;

	n->lookups++;
	if (na > 2)
		n->deep++;
	if (na != nb) {
		mismatch(n, path, pc, "chain length");
		return;
	}
	for (i = 0; i < na; i++)
		if (dwarf_dieoffset(&a[i]) != dwarf_dieoffset(&b[i])) {
			mismatch(n, path, pc, "chain DIE");
			return;
		}
	if (ea != eb)
		mismatch(n, path, pc, "chain end");
}

static void check_unit(const struct symbolize_dwsecs *s, Dwarf_Die *cu, const char *path, struct tally *n)
{
	struct symbolize_scopetree raw, dw;
	struct symbolize_linetab t;
	size_t i;

	if (symbolize_linetab_read(&t, s, cu, NULL, 0) != 0)
		return;                    /* no line table: no addresses to ask about */
	if (symbolize_scopetree_build(&raw, cu, s, DEPTH) < 0 ||
	    symbolize_scopetree_build(&dw, cu, NULL, n->cut ? 2 : DEPTH) < 0) {
		mismatch(n, path, 0, "build");
		symbolize_linetab_release(&t);
		return;
	}
	n->units++;
	n->raw_units += raw.unit != NULL;
	for (i = 0; i < t.nr_rows; i++) {
		uint64_t a = symbolize_line_addr(&t, symbolize_linetab_row(&t, i));

		compare_at(&raw, &dw, a, path, n);
		compare_at(&raw, &dw, a + 1, path, n);
	}
	n->libdw_reads += raw.libdw_reads;
	symbolize_scopetree_release(&raw);
	symbolize_scopetree_release(&dw);
	symbolize_linetab_release(&t);
}

static void check_one(const struct symbolize_dwsecs *s, Dwarf_Die *cu, const char *path, void *n)
{
	check_unit(s, cu, path, n);
}

static int check_file(const char *path, struct tally *n)
{
	return dwarf_each_unit(path, check_one, n);
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
		T_ASSERT(check_file(path, &one) == 0);
		printf("# %s: %zu units (%zu read directly, %zu lists left to libdw), %zu lookups, "
		       "%zu in inlined code\n", builds[i][2], one.units, one.raw_units, one.libdw_reads,
		       one.lookups, one.deep);
		T_ASSERT(one.units >= 3 && one.lookups > 800);
		T_ASSERT_EQ_U64(one.raw_units, one.units);
		T_ASSERT_EQ_U64(one.libdw_reads, 0);
		n.deep += one.deep;
		n.mismatches += one.mismatches;
	}
	/* -O2 inlines twice() into work() and main(): chains below the function are compared */
	T_ASSERT(n.deep > 40);
	T_ASSERT_EQ_U64(n.mismatches, 0);
	return T_OK;
}

/* A tree with two levels where there are more must differ: else the case above proves nothing. */
static int test_control_cut_tree(void)
{
	struct tally n = { 0 };
	char path[256];

	T_ASSERT(build_all() == 1);
	n.cut = 1;
	snprintf(path, sizeof(path), "%s/gcc-O2", dir);
	T_ASSERT(check_file(path, &n) == 0);
	printf("# cut at two levels: %zu of %zu lookups differ\n", n.mismatches, n.lookups);
	T_ASSERT(n.lookups > 800 && n.mismatches > 0);
	return T_OK;
}

static int test_libc_debug_file(void)
{
	struct tally n = { 0 };
	char path[512];

	if (libc_debug_file(path, sizeof(path)) < 0)
		return t_skip("no separate debug file for libc (install libc6-dbg)");
	T_ASSERT(check_file(path, &n) == 0);
	printf("# %s: %zu units (%zu read directly, %zu lists left to libdw), %zu lookups, %zu in "
	       "inlined code\n", path, n.units, n.raw_units, n.libdw_reads, n.lookups, n.deep);
	T_ASSERT(n.units > 100 && n.lookups > 100000);
	T_ASSERT(n.raw_units * 10 > n.units * 9);
	T_ASSERT_EQ_U64(n.mismatches, 0);
	return T_OK;
}

static const struct t_case cases[] = {
	{ "inline chains equal libdw's on gcc and clang builds", test_built_programs },
	{ "control: a tree cut at two levels is seen", test_control_cut_tree },
	{ "inline chains equal libdw's on libc6-dbg's libc debug file", test_libc_debug_file },
	{ "remove the built programs", dwarf_builds_cleanup },
};

T_MAIN(cases)
