// SPDX-License-Identifier: MIT
/*
 * The symbolizer on files it must refuse, and the .gnu_debuglink CRC. Regression for the
 * fuzz-symtab crash: a file libdwfl rejects (not ELF, a truncated ELF) leaked its file
 * descriptor, because libdwfl keeps a descriptor it was given only on success; after
 * ~1000 inputs the fuzzer's own open() failed.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "convert/debuglink.h"
#include "convert/symtab.h"
#include "lib/alloc.h"
#include "lib/hashmap.h"
#include "lib/report.h"
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
		struct convert_symtab *st = NULL;

		T_ASSERT(temp_file(path, cases[i].data, cases[i].len) == 0);
		for (k = 0; k < 3; k++) {
			T_ASSERT(convert_symtab_open(path, &names, CONVERT_SYMTAB_QUIET, &st) == -1);
			T_ASSERT(st == NULL);
		}
		unlink(path);
		T_ASSERT_EQ_U64(open_fds(), before);
	}
	pgo_strtab_release(&names);
	return T_OK;
}

static const struct t_case cases[] = {
	{ "fuzz-symtab crash: a rejected file leaks no descriptor", test_rejected_files_keep_no_fd },
};

T_MAIN(cases)
