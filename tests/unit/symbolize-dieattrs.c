// SPDX-License-Identifier: MIT
/*
 * The values symbolize/dies.h reads of function DIEs against libdw's, on the programs of
 * dwarf-builds.h and on the C library's debug file (libc6-dbg). convert-scopetree.c
 * compares which DIEs the scope chains hold; this compares what symbolization
 * (symbolize/symtab.c) then reads of them through symbolize_die_attrs: for every subprogram
 * and inlined subroutine of every unit, the name as symtab.c interns it (the linkage name
 * along DW_AT_abstract_origin / DW_AT_specification, else the name, else "[unknown]"),
 * DW_AT_decl_line and whether the chain has one, the call site (DW_AT_call_file,
 * DW_AT_call_line, DW_AT_GNU_discriminator), the entry pc (dwarf_entrypc), and for those
 * and the lexical blocks the address ranges as the scope tree takes them (the DIE's own
 * pcs, or its .debug_ranges list). Where the raw reader leaves a value to libdw (strx,
 * addrx, rnglistx, sdata, a reference out of the unit) the converter asks libdw too:
 * that is counted, not compared. The raw reader must have answered for DIEs of every
 * kind itself, and a control changes each raw answer by one and requires the comparison
 * to see every change.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize/dies.h"
#include "symbolize/linetab.h"
#include "symbolize/symtab.h"
#include "tests/unit/dwarf-builds.h"
#include "tests/unit/test.h"

#ifndef DW_AT_GNU_discriminator
#define DW_AT_GNU_discriminator 0x2136
#endif

enum { K_NAME, K_DECL, K_CALL, K_ENTRY, K_RANGES, NR_K };
static const char *const kind_name[NR_K] = { "name", "decl_line", "call site", "entry pc", "ranges" };

struct tally {
	size_t units, raw_units, unreadable, dies, calls, range_lists;
	size_t followed;              /* names and lines read through an origin or specification */
	size_t raw[NR_K];             /* answered by symbolize/dies.h */
	size_t libdw[NR_K];           /* left to libdw, as the converter does */
	size_t mismatches[NR_K];
	int perturb;                  /* control: every raw answer changed by one */
};

static void mismatch(struct tally *n, int k, const char *path, const struct symbolize_dieunit *u,
		     const uint8_t *p, const char *raw, const char *dw)
{
	if (n->mismatches[k]++ < 5 && !n->perturb)
		printf("# %s: DIE 0x%" PRIx64 ": %s %s (dies.h) != %s (libdw)\n", path,
		       symbolize_die_offset(u, p), kind_name[k], raw, dw);
}

/*
 * symtab.c's own_name reads names and DW_AT_decl_line along the chain of origins and
 * specifications with symbolize_symtab_die_name (own_name goes to the abstract origin at
 * once for an instance that has none of them; the chain reaches the same DIE first).
 * 0, or -1 where the converter asks libdw.
 */
static int raw_name(const struct symbolize_dieunit *u, const struct symbolize_die_attrs *a, const char **name,
		    uint64_t *line, int *has_line, int *depth)
{
	if (symbolize_symtab_die_name(u, a, name, line, has_line, depth) < 0)
		return -1;
	if (!*name)
		*name = "[unknown]";
	return 0;
}

/* symtab.c's die_name: what libdw gives. */
static const char *dw_name(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	const char *s = NULL;

	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &attr) ||
	    dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr))
		s = dwarf_formstring(&attr);
	if (!s && dwarf_attr_integrate(die, DW_AT_name, &attr))
		s = dwarf_formstring(&attr);
	return s ? s : "[unknown]";
}

/* symtab.c's die_udata, unclamped: the value, or 0 if absent or not a constant. */
static uint64_t dw_udata(Dwarf_Die *die, unsigned at, int integrate)
{
	Dwarf_Attribute attr;
	Dwarf_Word w;

	if (!(integrate ? dwarf_attr_integrate(die, at, &attr) : dwarf_attr(die, at, &attr)) ||
	    dwarf_formudata(&attr, &w) != 0)
		return 0;
	return w;
}

static void check_name(const struct symbolize_dieunit *u, const uint8_t *p, const struct symbolize_die_attrs *a,
		       Dwarf_Die *die, const char *path, struct tally *n)
{
	const char *raw, *dw = dw_name(die);
	uint64_t line, dw_line = dw_udata(die, DW_AT_decl_line, 1);
	int depth, has_line, dw_has_line = dwarf_hasattr_integrate(die, DW_AT_decl_line);
	char a_s[64], b_s[64], name[512];

	if (raw_name(u, a, &raw, &line, &has_line, &depth) < 0) {
		n->libdw[K_NAME]++;
		n->libdw[K_DECL]++;
		return;
	}
	n->raw[K_NAME]++;
	n->raw[K_DECL]++;
	n->followed += depth > 0;
	snprintf(name, sizeof(name), n->perturb ? "%s~" : "%s", raw);
	if (strcmp(name, dw))
		mismatch(n, K_NAME, path, u, p, name, dw);
	line += n->perturb != 0;
	if (line != dw_line || has_line != dw_has_line) {
		snprintf(a_s, sizeof(a_s), "%" PRIu64 "%s", line, has_line ? "" : " (none)");
		snprintf(b_s, sizeof(b_s), "%" PRIu64 "%s", dw_line, dw_has_line ? "" : " (none)");
		mismatch(n, K_DECL, path, u, p, a_s, b_s);
	}
}

/* symtab.c's own_call against read_call: the DIE's own attributes, not integrated. */
static void check_call(const struct symbolize_dieunit *u, const uint8_t *p, const struct symbolize_die_attrs *a,
		       Dwarf_Die *die, const char *path, struct tally *n)
{
	static const int slot[3] = { SYMBOLIZE_AT_CALL_FILE, SYMBOLIZE_AT_CALL_LINE, SYMBOLIZE_AT_DISCRIMINATOR };
	static const unsigned at[3] = { DW_AT_call_file, DW_AT_call_line, DW_AT_GNU_discriminator };
	uint64_t v[3] = { 0, 0, 0 }, w[3];
	Dwarf_Attribute attr;
	int i, has_file = a->at[SYMBOLIZE_AT_CALL_FILE].form != 0;
	int dw_has_file = dwarf_attr(die, DW_AT_call_file, &attr) != NULL;
	char a_s[96], b_s[96];

	for (i = 0; i < 3; i++)
		if (a->at[slot[i]].form && symbolize_die_udata(u, &a->at[slot[i]], &v[i]) < 0) {
			n->libdw[K_CALL]++;
			return;
		}
	for (i = 0; i < 3; i++)
		w[i] = dw_udata(die, at[i], 0);
	n->raw[K_CALL]++;
	n->calls += has_file;
	v[1] += n->perturb != 0;
	if (memcmp(v, w, sizeof(v)) || has_file != dw_has_file) {
		snprintf(a_s, sizeof(a_s), "file %" PRIu64 "%s line %" PRIu64 " discriminator %" PRIu64, v[0],
			 has_file ? "" : " (none)", v[1], v[2]);
		snprintf(b_s, sizeof(b_s), "file %" PRIu64 "%s line %" PRIu64 " discriminator %" PRIu64, w[0],
			 dw_has_file ? "" : " (none)", w[1], w[2]);
		mismatch(n, K_CALL, path, u, p, a_s, b_s);
	}
}

/* symtab.c's symbolize_symtab_inline_entry: DW_AT_entry_pc, else DW_AT_low_pc, or none. */
static void check_entry(const struct symbolize_dieunit *u, const uint8_t *p, const struct symbolize_die_attrs *a,
			Dwarf_Die *die, const char *path, struct tally *n)
{
	uint64_t e = 0;
	Dwarf_Addr dw_e = 0;
	int r = symbolize_die_addr(u, a->at[SYMBOLIZE_AT_ENTRY_PC].form ? &a->at[SYMBOLIZE_AT_ENTRY_PC]
				 : &a->at[SYMBOLIZE_AT_LOW_PC], &e);
	int dw_r = dwarf_entrypc(die, &dw_e) == 0;
	char a_s[40], b_s[40];

	if (r < 0) {
		n->libdw[K_ENTRY]++;
		return;
	}
	n->raw[K_ENTRY]++;
	if (n->perturb && r)
		e++;
	else if (n->perturb)
		r = 1;                     /* an entry (at 0) where there is none */
	if (r != dw_r || (r && e != dw_e)) {
		snprintf(a_s, sizeof(a_s), r ? "0x%" PRIx64 : "(none)", e);
		snprintf(b_s, sizeof(b_s), dw_r ? "0x%" PRIx64 : "(none)", (uint64_t)dw_e);
		mismatch(n, K_ENTRY, path, u, p, a_s, b_s);
	}
}

struct ranges {
	uint64_t *v;                  /* lo, hi pairs */
	size_t n, alloc;
};

static int add_range(void *arg, uint64_t lo, uint64_t hi)
{
	struct ranges *r = arg;

	if (PGO_ALLOC_GROW(r->v, 2 * r->n + 2, r->alloc) < 0)
		return -1;
	r->v[2 * r->n] = lo;
	r->v[2 * r->n + 1] = hi;
	r->n++;
	return 0;
}

/*
 * scopetree.c's add_scope: no ranges without DW_AT_low_pc and DW_AT_ranges, the DIE's own
 * [low, high) where symbolize_die_read took it, its .debug_ranges list where
 * symbolize_die_ranges reads it; dwarf_ranges otherwise, and here always.
 */
static void check_ranges(const struct symbolize_dieunit *u, const struct symbolize_die *d, Dwarf_Die *die,
			 const char *path, struct tally *n, struct ranges *raw, struct ranges *dw)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t o = 0;
	size_t i;
	int r = 1;
	char a_s[64], b_s[64];

	raw->n = dw->n = 0;
	if (d->has_lowpc || d->has_ranges) {
		if (d->simple_pc)
			r = add_range(raw, d->lo, d->hi) < 0 ? -1 : 1;
		else if ((r = symbolize_die_ranges(u, d, add_range, raw)) > 0)
			n->range_lists++;
	}
	if (r == 0) {
		n->libdw[K_RANGES]++;
		return;
	}
	while (r > 0 && (o = dwarf_ranges(die, o, &base, &lo, &hi)) > 0)
		if (add_range(dw, lo, hi) < 0)
			r = -1;
	if (r < 0) {
		mismatch(n, K_RANGES, path, u, d->p, "(out of memory)", "");
		return;
	}
	n->raw[K_RANGES]++;
	if (n->perturb) {
		if (raw->n)
			raw->v[2 * raw->n - 1]++;  /* the last range a byte longer */
		else if (add_range(raw, 1, 2) < 0) /* a range where there is none */
			return;
	}
	for (i = 0; i < raw->n && i < dw->n; i++)
		if (raw->v[2 * i] != dw->v[2 * i] || raw->v[2 * i + 1] != dw->v[2 * i + 1])
			break;
	if (raw->n != dw->n || i < raw->n) {
		if (i < raw->n)
			snprintf(a_s, sizeof(a_s), "#%zu [0x%" PRIx64 ", 0x%" PRIx64 ") of %zu", i, raw->v[2 * i],
				 raw->v[2 * i + 1], raw->n);
		else
			snprintf(a_s, sizeof(a_s), "%zu ranges", raw->n);
		if (i < dw->n)
			snprintf(b_s, sizeof(b_s), "#%zu [0x%" PRIx64 ", 0x%" PRIx64 ") of %zu", i, dw->v[2 * i],
				 dw->v[2 * i + 1], dw->n);
		else
			snprintf(b_s, sizeof(b_s), "%zu ranges", dw->n);
		mismatch(n, K_RANGES, path, u, d->p, a_s, b_s);
	}
}

static void check_die(const struct symbolize_dieunit *u, const struct symbolize_die *d, const char *path,
		      struct tally *n, struct ranges *raw, struct ranges *dw)
{
	struct symbolize_die_attrs a;
	Dwarf_Die die;

	if (symbolize_die_libdw(u, d->p, &die) < 0) {
		mismatch(n, K_NAME, path, u, d->p, "a DIE", "none");
		return;
	}
	n->dies++;
	if (d->tag != DW_TAG_lexical_block) {
		if (symbolize_die_attrs(u, d->p, &a) < 0 || a.tag != d->tag) {
			n->libdw[K_NAME]++;
			n->libdw[K_DECL]++;
			n->libdw[K_CALL]++;
			n->libdw[K_ENTRY]++;
		} else {
			check_name(u, d->p, &a, &die, path, n);
			check_call(u, d->p, &a, &die, path, n);
			check_entry(u, d->p, &a, &die, path, n);
		}
	}
	check_ranges(u, d, &die, path, n, raw, dw);
}

/* Every DIE of the unit in .debug_info's order: each is followed by its children, if any. */
static void check_unit(const struct symbolize_dwsecs *s, Dwarf_Die *cu, const char *path, void *arg)
{
	struct tally *n = arg;
	struct ranges raw = { 0 }, dw = { 0 };
	struct symbolize_dieunit u;
	struct symbolize_die d;
	const uint8_t *p;

	n->units++;
	if (symbolize_dieunit_open(&u, s, cu) < 0)
		return;                    /* the converter's scopes are libdw's: nothing read raw */
	n->raw_units++;
	for (p = symbolize_die_pos(&u, dwarf_dieoffset(cu)); p && p < u.end; p = d.attrs_end) {
		int r = symbolize_die_read(&u, p, &d);

		if (r < 0) {
			n->unreadable++;
			break;
		}
		if (r > 0 && (d.tag == DW_TAG_subprogram || d.tag == DW_TAG_inlined_subroutine ||
			      d.tag == DW_TAG_lexical_block))
			check_die(&u, &d, path, n, &raw, &dw);
	}
	free(raw.v);
	free(dw.v);
	symbolize_dieunit_release(&u);
}

static size_t total_mismatches(const struct tally *n)
{
	size_t k, t = 0;

	for (k = 0; k < NR_K; k++)
		t += n->mismatches[k];
	return t;
}

static void report(const char *path, const struct tally *n)
{
	printf("# %s: %zu units (%zu read directly, %zu unreadable), %zu DIEs (%zu names through "
	       "origins, %zu call sites, %zu range lists); dies.h/libdw answered: names %zu/%zu, "
	       "decl_line %zu/%zu, calls %zu/%zu, entry pcs %zu/%zu, ranges %zu/%zu; %zu mismatches\n",
	       path, n->units, n->raw_units, n->unreadable, n->dies, n->followed, n->calls, n->range_lists, n->raw[K_NAME], n->libdw[K_NAME], n->raw[K_DECL],
	       n->libdw[K_DECL], n->raw[K_CALL], n->libdw[K_CALL], n->raw[K_ENTRY], n->libdw[K_ENTRY],
	       n->raw[K_RANGES], n->libdw[K_RANGES], total_mismatches(n));
}

static void add_tally(struct tally *to, const struct tally *n)
{
	size_t k;

	to->units += n->units;
	to->raw_units += n->raw_units;
	to->unreadable += n->unreadable;
	to->dies += n->dies;
	to->followed += n->followed;
	to->calls += n->calls;
	to->range_lists += n->range_lists;
	for (k = 0; k < NR_K; k++) {
		to->raw[k] += n->raw[k];
		to->libdw[k] += n->libdw[k];
		to->mismatches[k] += n->mismatches[k];
	}
}

static int test_built_programs(void)
{
	struct tally all = { 0 };
	char path[256];
	size_t i, k;

	T_ASSERT(build_all() == 1);
	for (i = 0; i < PGO_ARRAY_SIZE(builds); i++) {
		struct tally one = { 0 };

		snprintf(path, sizeof(path), "%s/%s", dir, builds[i][2]);
		T_ASSERT(dwarf_each_unit(path, check_unit, &one) == 0);
		report(builds[i][2], &one);
		T_ASSERT(one.units >= 3 && one.dies > 200);
		T_ASSERT_EQ_U64(one.raw_units, one.units);
		T_ASSERT_EQ_U64(one.unreadable, 0);
		/*
		 * c.c's 200 functions: gcc's forms for all of it are read raw; clang's DWARF 5
		 * names and pcs are strx and addrx, left to libdw, its call sites' constants not
		 */
		for (k = 0; k < NR_K; k++)
			T_ASSERT(one.raw[k] > 200 || (k != K_CALL && !strcmp(builds[i][0], "clang")));
		add_tally(&all, &one);
	}
	report("all builds", &all);
	/* -O2 inlines twice(): call sites, entry pcs and (gcc) .debug_ranges lists read raw */
	T_ASSERT(all.calls > 10 && all.range_lists > 0);
	for (k = 0; k < NR_K; k++)
		T_ASSERT(all.raw[k] > 200);
	T_ASSERT_EQ_U64(total_mismatches(&all), 0);
	return T_OK;
}

/*
 * C++: linkage names, a constructor and a member defined out of their class (an abstract
 * DIE with DW_AT_specification, concrete ones with DW_AT_abstract_origin to it), a
 * template and a lambda inlined: names found two references away.
 */
static const char *cc_cpp =
	"namespace ns {\n"
	"struct Acc {\n"
	"\tint v;\n"
	"\texplicit Acc(int x);\n"
	"\t~Acc();\n"
	"\tint add(int x);\n"
	"\ttemplate <class F> int apply(F f) { return f(v); }\n"
	"\tstatic int sq(int x) { return x * x; }\n"
	"};\n"
	"Acc::Acc(int x) : v(x) {}\n"
	"Acc::~Acc() { v = 0; }\n"
	"int Acc::add(int x) { v += sq(x) + (x & 1 ? 1 : 0); return v; }\n"
	"}\n"
	"__attribute__((noinline)) int run(int n) {\n"
	"\tns::Acc a(n);\n"
	"\tint s = 0;\n"
	"\tfor (int i = 0; i < n; i++)\n"
	"\t\ts += a.add(i) + a.apply([&](int v) { return v ^ i; });\n"
	"\treturn s;\n"
	"}\n"
	"int main(int argc, char **argv) { (void)argv; return run(argc * 1000) & 1; }\n";

static const char *const cc_builds[][3] = {
	{ "g++", "-O2 -g", "g++-O2" },
	{ "g++", "-O2 -gdwarf-4", "g++-O2-d4" },
	{ "clang++", "-O2 -gdwarf-4", "clang++-O2-d4" },
};

static int test_cpp_programs(void)
{
	struct tally all = { 0 };
	char path[256], cmd[512];
	size_t i;

	T_ASSERT(build_all() == 1);
	T_ASSERT(write_file("cc.cpp", cc_cpp) == 0);
	for (i = 0; i < PGO_ARRAY_SIZE(cc_builds); i++) {
		struct tally one = { 0 };

		snprintf(cmd, sizeof(cmd), "cd %s && %s %s -o %s cc.cpp", dir, cc_builds[i][0], cc_builds[i][1],
			 cc_builds[i][2]);
		T_ASSERT(system(cmd) == 0);
		snprintf(path, sizeof(path), "%s/%s", dir, cc_builds[i][2]);
		T_ASSERT(dwarf_each_unit(path, check_unit, &one) == 0);
		report(cc_builds[i][2], &one);
		T_ASSERT_EQ_U64(one.raw_units, one.units);
		T_ASSERT_EQ_U64(one.unreadable, 0);
		T_ASSERT(one.raw[K_NAME] > 5 && one.followed > 2);
		add_tally(&all, &one);
	}
	report("all C++ builds", &all);
	T_ASSERT(all.calls > 2);
	T_ASSERT_EQ_U64(total_mismatches(&all), 0);
	return T_OK;
}

/* Each raw answer changed by one must be seen: else the case above proves nothing. */
static int test_control_perturbed(void)
{
	struct tally n = { 0 };
	char path[256];
	size_t k;

	T_ASSERT(build_all() == 1);
	n.perturb = 1;
	snprintf(path, sizeof(path), "%s/gcc-O2-d4", dir);
	T_ASSERT(dwarf_each_unit(path, check_unit, &n) == 0);
	report("control, each raw answer changed", &n);
	for (k = 0; k < NR_K; k++) {
		T_ASSERT(n.raw[k] > 10);
		T_ASSERT_EQ_U64(n.mismatches[k], n.raw[k]);
	}
	T_ASSERT(n.calls > 0 && n.range_lists > 0);
	return T_OK;
}

static int test_libc_debug_file(void)
{
	struct tally n = { 0 };
	char path[512];
	size_t k;

	if (libc_debug_file(path, sizeof(path)) < 0)
		return t_skip("no separate debug file for libc (install libc6-dbg)");
	T_ASSERT(dwarf_each_unit(path, check_unit, &n) == 0);
	report(path, &n);
	T_ASSERT(n.units > 100 && n.raw_units * 10 > n.units * 9);
	for (k = 0; k < NR_K; k++)
		T_ASSERT(n.raw[k] > 1000);
	T_ASSERT_EQ_U64(total_mismatches(&n), 0);
	return T_OK;
}

/* More files to compare, colon-separated in PGO_DIEATTRS_FILES (a benchmark's binaries). */
static int test_more_files(void)
{
	const char *env = getenv("PGO_DIEATTRS_FILES");
	char path[512];
	size_t total = 0;

	if (!env || !*env)
		return t_skip("PGO_DIEATTRS_FILES not set");
	while (*env) {
		struct tally n = { 0 };
		size_t len = strcspn(env, ":");

		snprintf(path, sizeof(path), "%.*s", (int)len, env);
		env += len + (env[len] == ':');
		if (!*path)
			continue;
		T_ASSERT(dwarf_each_unit(path, check_unit, &n) == 0);
		report(path, &n);
		total += total_mismatches(&n);
	}
	T_ASSERT_EQ_U64(total, 0);
	return T_OK;
}

/*
 * A DW_FORM_ref_addr value is any offset: symbolize_die_ref hands it to symbolize_die_pos,
 * which computed info + off before testing off (a pointer overflow, UBSan's report on a
 * hostile file, found in review). Run under -fsanitize=undefined to see it.
 */
static int test_pos_out_of_section(void)
{
	static const uint8_t info[32] = { 0 };
	static const uint8_t ref[8] = { 0xf8, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	struct symbolize_dieunit u;
	struct symbolize_die_attr a;

	memset(&u, 0, sizeof(u));
	u.info = info;
	u.info_size = sizeof(info);
	u.unit_off = 0;
	u.end = info + sizeof(info);
	u.version = 4;
	u.addr_size = u.offset_size = 8;
	T_ASSERT(symbolize_die_pos(&u, 11) == info + 11);
	T_ASSERT(symbolize_die_pos(&u, 0) == NULL);
	T_ASSERT(symbolize_die_pos(&u, sizeof(info)) == NULL);
	T_ASSERT(symbolize_die_pos(&u, UINT64_MAX - 7) == NULL);
	T_ASSERT(symbolize_die_pos(&u, (uint64_t)1 << 63) == NULL);
	memset(&a, 0, sizeof(a));
	a.form = DW_FORM_ref_addr;
	a.p = ref;
	T_ASSERT(symbolize_die_ref(&u, &a) == NULL);
	return T_OK;
}

static const struct t_case cases[] = {
	{ "symbolize_die_pos: offsets past .debug_info are none, without overflow", test_pos_out_of_section },
	{ "function DIE attributes equal libdw's on gcc and clang builds", test_built_programs },
	{ "function DIE attributes equal libdw's on g++ and clang++ builds", test_cpp_programs },
	{ "control: every raw answer changed by one is seen", test_control_perturbed },
	{ "function DIE attributes equal libdw's on libc6-dbg's libc debug file", test_libc_debug_file },
	{ "function DIE attributes equal libdw's on $PGO_DIEATTRS_FILES", test_more_files },
	{ "remove the built programs", dwarf_builds_cleanup },
};

T_MAIN(cases)
