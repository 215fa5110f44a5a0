// SPDX-License-Identifier: MIT
/*
 * The symbolizer on files it must refuse, and the .gnu_debuglink CRC. Regression for the
 * fuzz-symtab crash: a file libdwfl rejects (not ELF, a truncated ELF) leaked its file
 * descriptor, because libdwfl keeps a descriptor it was given only on success; after
 * ~1000 inputs the fuzzer's own open() failed. And the hint of wanted addresses
 * (symbolize_symtab_want): a walk outside the functions it names must give what it gives
 * without a hint, by reading the unit's line table again whole.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbolize/debuglink.h"
#include "symbolize/symtab.h"
#include "lib/alloc.h"
#include "lib/hashmap.h"
#include "lib/buf.h"
#include "lib/report.h"
#include "tests/unit/dwarf-builds.h"
#include "tests/unit/test.h"

static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/* Write data to a new temp file; its path goes to path (a mkstemp template). */
static int temp_file(char *path, const void *data, size_t len)
{
	int fd = mkstemp(path);

	if (fd < 0)
		return -1;
	if (write(fd, data, len) != (ssize_t)len) {
		close(fd);
		return -1;
	}
	return close(fd);
}

static int test_rejected_files_keep_no_fd(void)
{
	static const uint8_t not_elf[] = "not an ELF file\n";
	/* a 64-bit little-endian ELF header cut after e_ident */
	static const uint8_t cut_elf[] = { 0x7f, 'E', 'L', 'F', 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
	const struct { const void *data; size_t len; } cases[] = {
		{ not_elf, sizeof(not_elf) - 1 }, { cut_elf, sizeof(cut_elf) }, { "", 0 },
	};
	struct pgo_strtab names = PGO_STRTAB_INIT;
	size_t i;
	int k, before = open_fds();

	pgo_report_set_verbosity(-1);
	T_ASSERT(before > 0);
	for (i = 0; i < PGO_ARRAY_SIZE(cases); i++) {
		char path[] = "/tmp/pgo-symtab-test.XXXXXX";
		struct symbolize_symtab *st = NULL;

		T_ASSERT(temp_file(path, cases[i].data, cases[i].len) == 0);
		for (k = 0; k < 3; k++) {
			T_ASSERT(symbolize_symtab_open(path, &names, SYMBOLIZE_SYMTAB_QUIET, &st) == -1);
			T_ASSERT(st == NULL);
		}
		unlink(path);
		T_ASSERT_EQ_U64(open_fds(), before);
	}
	pgo_strtab_release(&names);
	return T_OK;
}

/* A function's address and size from nm -S (0 if not found). */
static uint64_t fn_addr(const char *path, const char *name, uint64_t *size)
{
	char cmd[512], line[256];
	unsigned long long a = 0, n = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm -S '%s' | awk '$4 == \"%s\" { print $1, $2 }'", path, name);
	p = popen(cmd, "r");
	if (p && fgets(line, sizeof(line), p) && sscanf(line, "%llx %llx", &a, &n) != 2)
		a = 0;
	if (p)
		pclose(p);
	*size = n;
	return a;
}

/* Every line address of a function as foreach_line gives it: "addr name:line/discr..." lines. */
static int print_line(const struct symbolize_sym *sym, void *data)
{
	struct pgo_buf *b = data;
	uint32_t i;

	pgo_buf_addf(b, "%llx %u", (unsigned long long)sym->sym_start, sym->nr_frames);
	for (i = 0; i < sym->nr_frames; i++)
		pgo_buf_addf(b, " %u:%u/%u@%u", sym->frames[i].name, sym->frames[i].line, sym->frames[i].discr,
			     sym->frames[i].file);
	pgo_buf_addch(b, '\n');
	return 0;
}

static int walk(struct symbolize_symtab *st, uint64_t start, uint64_t size, struct pgo_buf *out)
{
	pgo_buf_reset(out);
	return symbolize_symtab_foreach_line(st, start, size, print_line, out) == 0 && out->len > 0 ? 0 : -1;
}

/* Run walk with stderr in a file, verbosity 2; *said: whether the line table was read whole. */
static int walk_quoted(struct symbolize_symtab *st, uint64_t start, uint64_t size, struct pgo_buf *out,
		       int *said)
{
	char log[] = "/tmp/pgo-symtab-log.XXXXXX", text[4096];
	int fd = mkstemp(log), saved = dup(2), err;
	ssize_t n;

	if (fd < 0 || saved < 0)
		return -1;
	fflush(stderr);
	dup2(fd, 2);
	pgo_report_set_verbosity(2);
	err = walk(st, start, size, out);
	pgo_report_set_verbosity(0);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	n = pread(fd, text, sizeof(text) - 1, 0);
	text[n > 0 ? n : 0] = 0;
	*said = strstr(text, "line table read whole") != NULL;
	close(fd);
	unlink(log);
	return err;
}

static int test_want_then_elsewhere(void)
{
	struct pgo_strtab names = PGO_STRTAB_INIT;
	struct symbolize_symtab *whole = NULL, *hinted = NULL;
	struct pgo_buf a = PGO_BUF_INIT, b = PGO_BUF_INIT;
	uint64_t work, work_size, gen, gen_size;
	char path[256];
	int said = -1;

	T_ASSERT(build_all() == 1);
	snprintf(path, sizeof(path), "%s/gcc-O2", dir);
	work = fn_addr(path, "work", &work_size);
	gen = fn_addr(path, "gen", &gen_size);
	T_ASSERT(work && gen && work_size && gen_size);
	T_ASSERT(symbolize_symtab_open(path, &names, SYMBOLIZE_SYMTAB_NEED_DWARF, &whole) == 0);
	T_ASSERT(symbolize_symtab_open(path, &names, SYMBOLIZE_SYMTAB_NEED_DWARF, &hinted) == 0);
	T_ASSERT(symbolize_symtab_want(hinted, &work, 1) == 0);
	/* inside the hint: the partial table, no second read, the same lines */
	T_ASSERT(walk(whole, work, work_size, &a) == 0);
	T_ASSERT(walk_quoted(hinted, work, work_size, &b, &said) == 0);
	T_ASSERT(said == 0);
	T_ASSERT(a.len == b.len && !memcmp(a.data, b.data, a.len));
	/* outside it: read again whole, and still the same lines */
	T_ASSERT(walk(whole, gen, gen_size, &a) == 0);
	T_ASSERT(walk_quoted(hinted, gen, gen_size, &b, &said) == 0);
	printf("# gen(): %zu bytes of lines, table read whole: %d\n", b.len, said);
	T_ASSERT(said == 1);
	T_ASSERT(a.len == b.len && !memcmp(a.data, b.data, a.len));
	symbolize_symtab_free(whole);
	symbolize_symtab_free(hinted);
	pgo_buf_release(&a);
	pgo_buf_release(&b);
	pgo_strtab_release(&names);
	return T_OK;
}

static const struct t_case cases[] = {
	{ "fuzz-symtab crash: a rejected file leaks no descriptor", test_rejected_files_keep_no_fd },
	{ "a walk outside the wanted functions reads the line table whole", test_want_then_elsewhere },
	{ "remove the built programs", dwarf_builds_cleanup },
};

T_MAIN(cases)
