// SPDX-License-Identifier: MIT
/*
 * collect/unwtab.c's rows against the outside truth, libdw's dwarf_cfi_addrframe, at every
 * instruction address of real binaries (libc, ld.so, a -O2 program without frame pointers,
 * bash): where a row says rsp/rbp + N, libdw must say the same, with the return address at
 * CFA - 8 and rbp where the row keeps it; where the row says "no FDE", libdw must find none.
 * Rows may be more cautious than libdw (unsupported), never different.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <unistd.h>

#include "collect/unwtab.h"
#include "test.h"

struct cmp_stats {
	unsigned long checked, unsupported, gaps, plt, signal, end;
};

/* libdw's rule for a register: 0 same value, 1 undefined, 2 at CFA + *off, 3 other. */
static int reg_rule(Dwarf_Frame *fr, int reg, int64_t *off)
{
	Dwarf_Op mem[3], *ops;
	size_t n;

	if (dwarf_frame_register(fr, reg, mem, &ops, &n))
		return 3;
	if (n == 0)
		return ops ? 1 : 0;
	if (n == 1 && ops[0].atom == DW_OP_call_frame_cfa) {
		*off = 0;
		return 2;
	}
	if (n == 2 && ops[0].atom == DW_OP_call_frame_cfa && ops[1].atom == DW_OP_plus_uconst) {
		*off = (int64_t)ops[1].number;
		return 2;
	}
	if (n == 3 && ops[0].atom == DW_OP_call_frame_cfa && ops[1].atom == DW_OP_consts &&
	    ops[2].atom == DW_OP_plus) {
		*off = (int64_t)ops[1].number;
		return 2;
	}
	return 3;
}

static int check_file(const char *path, struct cmp_stats *cs)
{
	struct collect_unwtab t;
	GElf_Phdr ph;
	size_t nph, i;
	Elf *elf;
	Dwarf_CFI *cfi;
	int fd, bad = 0;

	if (access(path, R_OK))
		return T_SKIP;
	if (collect_unwtab_build(path, &t)) {
		fprintf(stderr, "# %s: %s\n", path, t.why);
		return T_FAIL;
	}
	printf("# %s: %zu rows from %u FDEs of %s (%u left out, %u with unsupported rules)\n", path,
	       t.nr, t.fdes, t.section, t.fdes_bad, t.fdes_unsupported);
	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	cfi = dwarf_getcfi_elf(elf);
	T_ASSERT(cfi);
	T_ASSERT(!elf_getphdrnum(elf, &nph));
	for (i = 0; i < nph && bad < 10; i++) {
		uint64_t a;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		for (a = ph.p_vaddr; a < ph.p_vaddr + ph.p_filesz && bad < 10; a++) {
			uint64_t off = a - ph.p_vaddr + ph.p_offset;
			const struct offcpu_unwind_row *r = collect_unwtab_find(&t, off);
			unsigned int cfa = r ? OFFCPU_ROW_CFA(r->kind) : OFFCPU_CFA_NONE;
			Dwarf_Frame *fr = NULL;
			Dwarf_Op *ops;
			size_t n;
			int64_t roff = 0;
			int rr;

			if (dwarf_cfi_addrframe(cfi, a, &fr)) {
				if (cfa != OFFCPU_CFA_NONE) {
					fprintf(stderr, "# %s: %#llx: libdw has no FDE, the row has kind %u\n",
						path, (unsigned long long)a, r->kind);
					bad++;
				}
				cs->gaps++;
				continue;
			}
			cs->checked++;
			if (cfa == OFFCPU_CFA_NONE) {
				fprintf(stderr, "# %s: %#llx: libdw has a frame, the table none\n", path,
					(unsigned long long)a);
				bad++;
			} else if (cfa == OFFCPU_CFA_UNSUPPORTED) {
				cs->unsupported++;
			} else if (cfa == OFFCPU_CFA_END) {
				cs->end++;
				if (reg_rule(fr, 16, &roff) != 1) {
					fprintf(stderr, "# %s: %#llx: end row, libdw's rip is defined\n", path,
						(unsigned long long)a);
					bad++;
				}
			} else if (cfa == OFFCPU_CFA_PLT) {
				cs->plt++;
				T_ASSERT(!dwarf_frame_cfa(fr, &ops, &n));
				T_ASSERT(n == 9 && ops[0].atom == DW_OP_breg7 && ops[0].number == 8);
			} else if (cfa == OFFCPU_CFA_SIGNAL) {
				cs->signal++;
				T_ASSERT(!dwarf_frame_cfa(fr, &ops, &n));
				T_ASSERT(n == 2 && ops[0].atom == DW_OP_breg7 &&
					 ops[0].number == OFFCPU_SIGFRAME_RSP && ops[1].atom == DW_OP_deref);
			} else {
				int ok;

				T_ASSERT(!dwarf_frame_cfa(fr, &ops, &n));
				ok = n == 1 && ops[0].atom == DW_OP_bregx &&
				     ops[0].number == (cfa == OFFCPU_CFA_RSP ? 7u : 6u) &&
				     (int64_t)ops[0].number2 == r->cfa_off;
				ok = ok && reg_rule(fr, 16, &roff) == 2 && roff == -8;
				rr = reg_rule(fr, 6, &roff);
				if (OFFCPU_ROW_RBP(r->kind) == OFFCPU_RBP_SAME)
					ok = ok && rr == 0;
				else if (OFFCPU_ROW_RBP(r->kind) == OFFCPU_RBP_SAVED)
					ok = ok && rr == 2 && roff == 8 * r->rbp_off;
				if (!ok) {
					fprintf(stderr, "# %s: %#llx: row kind %#x cfa_off %u rbp_off %d; libdw: "
						"%zu ops, op0 %#x %llu %lld, rbp rule %d off %lld\n", path,
						(unsigned long long)a, r->kind, r->cfa_off, r->rbp_off, n,
						n ? ops[0].atom : 0, n ? (unsigned long long)ops[0].number : 0,
						n ? (long long)ops[0].number2 : 0, rr, (long long)roff);
					bad++;
				}
			}
			free(fr);
		}
	}
	dwarf_cfi_end(cfi);
	elf_end(elf);
	close(fd);
	collect_unwtab_release(&t);
	return bad ? T_FAIL : T_OK;
}

static int report(const char *path, int r, const struct cmp_stats *cs)
{
	printf("# %s: %lu addresses agree with libdw (%lu plt, %lu signal, %lu outermost), %lu more "
	       "cautious (unsupported), %lu without FDE in both\n", path, cs->checked - cs->unsupported,
	       cs->plt, cs->signal, cs->end, cs->unsupported, cs->gaps);
	return r;
}

static int test_libc(void)
{
	struct cmp_stats cs = { 0 };
	const char *p = "/lib/x86_64-linux-gnu/libc.so.6";
	int r = check_file(p, &cs);

	if (r == T_OK) {
		/* glibc's __restore_rt and its PLT stubs are there */
		T_ASSERT(cs.signal > 0);
		T_ASSERT(cs.checked > 1000000);
		/* nearly everything is followed */
		T_ASSERT(cs.unsupported * 100 < cs.checked);
	}
	return report(p, r, &cs);
}

static int test_ldso(void)
{
	struct cmp_stats cs = { 0 };
	const char *p = "/lib64/ld-linux-x86-64.so.2";

	return report(p, check_file(p, &cs), &cs);
}

static int test_helper(void)
{
	struct cmp_stats cs = { 0 };
	char path[4096];
	const char *b = getenv("PGO_BUILD");
	int r;

	snprintf(path, sizeof(path), "%s/tests/helpers/nofp-waits", b ? b : "build");
	r = check_file(path, &cs);
	if (r == T_OK)
		T_ASSERT(cs.plt > 0 && cs.unsupported == 0);
	return report(path, r, &cs);
}

static int test_bash(void)
{
	struct cmp_stats cs = { 0 };
	const char *p = "/bin/bash";

	return report(p, check_file(p, &cs), &cs);
}

/* Not x86-64 ELF, or no CFI: a reason, no rows. */
static int test_refuses(void)
{
	static const char junk[] = "not an ELF file at all";
	struct collect_unwtab t;

	T_ASSERT(collect_unwtab_build_mem(junk, sizeof(junk), &t) == -1);
	T_ASSERT(t.why[0] && !t.rows && !t.nr);
	T_ASSERT(collect_unwtab_build("/nonexistent/file", &t) == -1);
	return T_OK;
}

static const struct t_case cases[] = {
	{ "libc rows agree with dwarf_cfi_addrframe", test_libc },
	{ "ld.so rows agree with dwarf_cfi_addrframe", test_ldso },
	{ "a -O2 program's rows agree, PLT included", test_helper },
	{ "bash rows agree with dwarf_cfi_addrframe", test_bash },
	{ "bad input gives a reason and no rows", test_refuses },
};

T_MAIN(cases)
