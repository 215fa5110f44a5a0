// SPDX-License-Identifier: MIT
/*
 * Entry blocks (symbolize/entryblock.h) against objdump: at every label objdump's disassembly
 * of a file shows, the instructions up to the first jump, return or trap, or up to but not
 * including the first nop (padding, with the line of what it aligns), must be the ones
 * symbolize_entryblock_insns gives, address by address; none if the label starts with a nop. The files: libc (hand-written
 * assembly: AVX2/AVX-512 forms, endbr64, multi-byte nops), libdw and this test itself (gcc
 * -O2). A control drops nops from objdump's block ends: every block that then goes past one
 * must differ, and only those. And the blocks that begin at every instruction, not only at
 * labels, must match too.
 */
#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbolize/entryblock.h"
#include "symbolize/symtab.h"
#include "lib/hashmap.h"
#include "lib/report.h"
#include "tests/unit/test.h"

#define MAXI 32

struct tally {
	long compared, same, differ, long_blocks, nop_ends, nop_passed;
};

/* objdump's mnemonic with prefixes (bnd, notrack, rep, cs, data16 ...) stripped */
static const char *mnemonic(const char *text)
{
	static const char *const prefixes[] = { "bnd ", "notrack ", "rep ", "repz ", "repnz ",
						"lock ", "data16 ", "cs ", "ds ", "ss ", "es ",
						"fs ", "gs ", "addr32 " };
	size_t i;

	while (*text == ' ' || *text == '\t')
		text++;
	for (i = 0; i < sizeof(prefixes) / sizeof(*prefixes); i++)
		if (!strncmp(text, prefixes[i], strlen(prefixes[i]))) {
			text += strlen(prefixes[i]);
			i = (size_t)-1;
		}
	return text;
}

/* 1: ends the block, 2: ends it as a nop, 0: does not, -1: objdump could not decode it */
static int ends(const char *text)
{
	const char *m = mnemonic(text);

	if (!strncmp(m, "(bad)", 5))
		return -1;
	if (!strncmp(m, "nop", 3) || !strncmp(m, "xchg   %ax,%ax", 14))
		return 2;
	if (m[0] == 'j' || !strncmp(m, "loop", 4) || !strncmp(m, "ret", 3) || !strncmp(m, "iret", 4) ||
	    !strncmp(m, "ud2", 3) || !strncmp(m, "hlt", 3) || !strncmp(m, "int", 3) ||
	    /* transactions: ends of blocks by Zydis's categories */
	    !strncmp(m, "xabort", 6) || !strncmp(m, "xbegin", 6) || !strncmp(m, "xend", 4))
		return 1;
	return 0;
}

static void compare(struct symbolize_entryblock *eb, uint64_t start, const uint64_t *want, size_t nw,
		    int nops_end, int passed_nop, struct tally *t, const char *name)
{
	uint64_t got[MAXI];
	size_t n = symbolize_entryblock_insns(eb, start, 0, got, MAXI), i;

	t->compared++;
	t->nop_passed += passed_nop;
	if (n == nw && (!n || !memcmp(got, want, n * sizeof(*got)))) {
		t->same++;
		return;
	}
	if (t->differ++ < 5 && nops_end) {
		fprintf(stderr, "# %s at %#llx: objdump %zu instructions, entryblock %zu", name,
			(unsigned long long)start, nw, n);
		for (i = 0; i < n && i < nw; i++)
			if (got[i] != want[i])
				break;
		fprintf(stderr, ", first difference at instruction %zu\n", i);
	}
}

/*
 * Disassemble path with objdump and compare every label's entry block. nops_end 0 is the
 * control: a nop does not end objdump's block.
 */
static int check_file(const char *path, int nops_end, struct tally *t)
{
	struct pgo_strtab names = PGO_STRTAB_INIT;
	struct symbolize_symtab *st = NULL;
	struct symbolize_entryblock *eb = NULL;
	char cmd[512], line[1024], name[256] = "";
	uint64_t start = 0, want[MAXI];
	size_t nw = 0;
	int state = 0; /* 0 no label, 1 in a block, 2 block done or given up */
	int passed_nop = 0;
	FILE *p;

	if (symbolize_symtab_open(path, &names, SYMBOLIZE_SYMTAB_QUIET, &st) < 0)
		return -1;
	if (symbolize_entryblock_open(st, &eb) < 0 || !eb) {
		symbolize_symtab_free(st);
		pgo_strtab_release(&names);
		return -1;
	}
	snprintf(cmd, sizeof(cmd), "objdump -d -w --no-show-raw-insn '%s'", path);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while (fgets(line, sizeof(line), p)) {
		unsigned long long a;
		char lbl[256];
		int off, e;

		if (sscanf(line, "%llx <%255[^>]>:", &a, lbl) == 2 && line[0] != ' ') {
			if (state == 1) /* the next label came first: no block end in this one */
				t->long_blocks++;
			start = a, nw = 0, state = 1, passed_nop = 0;
			snprintf(name, sizeof(name), "%s", lbl);
			continue;
		}
		if (state != 1 || sscanf(line, " %llx:%n", &a, &off) != 1 || line[off] != '\t')
			continue;
		e = ends(line + off + 1);
		if (e < 0) {
			state = 2;
			continue;
		}
		if (e == 2 && !nops_end)
			e = 0, passed_nop = 1;
		if (nw == MAXI) { /* longer than entryblock looks: it must say unknown */
			compare(eb, start, want, 0, nops_end, passed_nop, t, name);
			t->long_blocks++;
			state = 2;
			continue;
		}
		want[nw++] = a;
		if (e) {
			t->nop_ends += e == 2;
			compare(eb, start, want, e == 2 ? nw - 1 : nw, nops_end, passed_nop, t, name);
			state = 2;
		}
	}
	pclose(p);
	symbolize_entryblock_free(eb);
	symbolize_symtab_free(st);
	pgo_strtab_release(&names);
	return 0;
}

/*
 * The blocks that begin at every instruction of a label (up to the next label), not only at
 * the label: 842k blocks over every instruction form these files use, where a wrong length
 * would shift every address after it. Returns the number of
 * blocks compared, -1 on failure; *differ gets those that differ.
 */
static long check_every(const char *path, long *differ)
{
	struct pgo_strtab names = PGO_STRTAB_INIT;
	struct symbolize_symtab *st = NULL;
	struct symbolize_entryblock *eb = NULL;
	char cmd[512], line[1024];
	static uint64_t addr[1 << 16];
	static int end[1 << 16];
	size_t nr = 0, k, j;
	long compared = 0;
	int more = 1, stop = 0;
	FILE *p;

	*differ = 0;
	if (symbolize_symtab_open(path, &names, SYMBOLIZE_SYMTAB_QUIET, &st) < 0)
		return -1;
	if (symbolize_entryblock_open(st, &eb) < 0 || !eb) {
		symbolize_symtab_free(st);
		pgo_strtab_release(&names);
		return -1;
	}
	snprintf(cmd, sizeof(cmd), "objdump -d -w --no-show-raw-insn '%s'", path);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while (more) {
		unsigned long long a;
		char lbl[256];
		int off, e;

		more = fgets(line, sizeof(line), p) != NULL;
		if (!more || (sscanf(line, "%llx <%255[^>]>:", &a, lbl) == 2 && line[0] != ' ')) {
			/* the label before is complete: a block from each of its instructions */
			for (k = 0; k < nr; k++) {
				uint64_t got[MAXI];
				size_t n, want;

				for (j = k; j < nr && j - k < MAXI && !end[j]; j++)
					;
				if (j == nr)
					continue; /* no end before the next label, or undecodable */
				want = j - k == MAXI ? 0 : end[j] == 2 ? j - k : j - k + 1;
				n = symbolize_entryblock_insns(eb, addr[k], 0, got, MAXI);
				compared++;
				if (n != want || (n && memcmp(got, addr + k, n * sizeof(*got)))) {
					if ((*differ)++ < 5)
						fprintf(stderr, "# %s: block at %#llx: objdump %zu instructions, "
							"entryblock %zu\n", path, (unsigned long long)addr[k],
							want, n);
				}
			}
			nr = 0;
			stop = 0;
			continue;
		}
		off = 0; /* sscanf may stop before %n */
		if (stop || sscanf(line, " %llx:%n", &a, &off) != 1 || line[off] != '\t')
			continue;
		e = ends(line + off + 1);
		/* nothing from an undecodable instruction on in this label */
		if (e < 0 || nr == 1 << 16) {
			stop = 1;
			continue;
		}
		addr[nr] = a;
		end[nr++] = e;
	}
	pclose(p);
	symbolize_entryblock_free(eb);
	symbolize_symtab_free(st);
	pgo_strtab_release(&names);
	return compared;
}

static char self[4096], pgo[4096 + 16];
/*
 * This test's own file (/proc/self/exe would be objdump's in objdump), and the pgo of the
 * same build (bin/pgo beside tests/): with libdw, libelf and libbpf linked in, 3000 gcc -O2
 * functions with their symbols.
 */
static const char *const files[] = {
	"/lib/x86_64-linux-gnu/libc.so.6",
	"/usr/lib/x86_64-linux-gnu/libdw.so.1",
	self,
	pgo,
};

static int test_objdump(void)
{
	size_t i;
	long total = 0, nops = 0;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	T_ASSERT(n > 0 && (size_t)n < sizeof(self) - 1);
	self[n] = 0;
	snprintf(pgo, sizeof(pgo), "%s", self);
	T_ASSERT(strrchr(pgo, '/'));
	strcpy(strrchr(pgo, '/'), "/../bin/pgo");
	for (i = 0; i < sizeof(files) / sizeof(*files); i++) {
		struct tally t = { 0 };

		T_ASSERT(check_file(files[i], 1, &t) == 0);
		printf("# %s: %ld entry blocks compared, %ld the same, %ld differ (%ld end at a nop); "
		       "%ld longer than %d instructions or run into the next label\n", files[i],
		       t.compared, t.same, t.differ, t.nop_ends, t.long_blocks, MAXI);
		T_ASSERT(t.differ == 0);
		total += t.compared;
		nops += t.nop_ends;
	}
	T_ASSERT(total > 5000);
	T_ASSERT(nops > 10);
	return T_OK;
}

static int test_control(void)
{
	size_t i;
	long passed = 0;

	for (i = 0; i < sizeof(files) / sizeof(*files); i++) {
		struct tally c = { 0 };

		T_ASSERT(check_file(files[i], 0, &c) == 0);
		printf("# control, %s: %ld of %ld entry blocks differ, %ld of them go past a nop\n",
		       files[i], c.differ, c.compared, c.nop_passed);
		T_ASSERT(c.differ == c.nop_passed);
		passed += c.nop_passed;
	}
	T_ASSERT(passed > 10);
	return T_OK;
}

static int test_every(void)
{
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(*files); i++) {
		long differ, n = check_every(files[i], &differ);

		T_ASSERT(n >= 0);
		printf("# %s: %ld blocks from every instruction, %ld differ\n", files[i], n, differ);
		T_ASSERT(differ == 0);
		T_ASSERT(n > 1000);
	}
	return T_OK;
}

static const struct t_case cases[] = {
	{ "entry blocks match objdump's disassembly (libc, libdw, this test)", test_objdump },
	{ "control: blocks that do not end at nops differ", test_control },
	{ "blocks from every instruction match objdump's", test_every },
};

T_MAIN(cases)
