// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the binaries given with -b (ELF through libdwfl and our own segment,
 * symbol, CU-range and line-table code), and for one without DWARF the .gnu_debuglink
 * explanation, which finds the named debug file, CRCs it and reads its build-id note.
 * The input is written as DIR/bin and DIR/hot.debug (the seeds' debuglink name), so the
 * debug-file path runs on fuzzed bytes too. The lookups run after a hint of one wanted
 * address (partial line tables, and their reading whole for the other addresses).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "symbolize/symtab.h"
#include "lib/hashmap.h"
#include "lib/report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[] = "/tmp/pgo-fuzz-symtab.XXXXXX";

static void put(const char *name, const uint8_t *data, size_t size)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || (size && write(fd, data, size) != (ssize_t)size))
		abort();
	close(fd);
}

static int count_line(uint64_t addr, void *data)
{
	(void)addr;
	return ++*(int *)data > 256;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pgo_strtab names = PGO_STRTAB_INIT;
	struct symbolize_symtab *st = NULL;
	char path[64];
	uint64_t off, vaddr;
	int lines = 0;

	pgo_report_set_verbosity(-1);
	if (dir[sizeof(dir) - 2] == 'X' && !mkdtemp(dir))
		abort();
	put("bin", data, size);
	put("hot.debug", data, size);
	snprintf(path, sizeof(path), "%s/bin", dir);
	if (symbolize_symtab_open(path, &names, SYMBOLIZE_SYMTAB_NEED_DWARF | SYMBOLIZE_SYMTAB_QUIET, &st) &&
	    symbolize_symtab_open(path, &names, SYMBOLIZE_SYMTAB_QUIET, &st))
		goto out;
	if (!symbolize_symtab_offset_to_vaddr(st, 0x1000, &vaddr) && symbolize_symtab_want(st, &vaddr, 1) < 0)
		PGO_BUG("want failed");
	for (off = 0; off < 0x4000; off += 0x40) {
		struct symbolize_sym s;
		uint8_t word[8];

		if (symbolize_symtab_offset_to_vaddr(st, off, &vaddr))
			continue;
		s = symbolize_symtab_lookup(st, vaddr);
		if (s.nr_frames && !s.frames)
			PGO_BUG("frames without an array");
		symbolize_symtab_read(st, vaddr, word, sizeof(word));
		symbolize_symtab_is_indirect_call(st, vaddr);
		symbolize_symtab_frame_ready(st, vaddr);
	}
	if (!symbolize_symtab_offset_to_vaddr(st, 0x1000, &vaddr))
		symbolize_symtab_foreach_line_addr(st, vaddr, 0x1000, count_line, &lines);
out:
	symbolize_symtab_free(st);
	pgo_strtab_release(&names);
	return 0;
}
