// SPDX-License-Identifier: MIT
/* Explain debug sections compressed with an algorithm libelf cannot read (symbolize/dwcompress.h). */
#include <elf.h>
#include <elfutils/libdwfl.h>
#include <stdio.h>
#include <string.h>

#include "symbolize/dwcompress.h"
#include "lib/buf.h"

#ifndef ELFCOMPRESS_ZSTD
#define ELFCOMPRESS_ZSTD 2 /* the gABI's number; glibc 2.36's elf.h predates it */
#endif

int symbolize_dwcompress_explain(Elf *elf, const char *path, struct pgo_buf *msg)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx) < 0)
		return 0;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;
		char algo[48];
		GElf_Shdr sh;
		GElf_Chdr ch;

		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_COMPRESSED) ||
		    !(name = elf_strptr(elf, shstrndx, sh.sh_name)) || strncmp(name, ".debug_", 7))
			continue;
		if (!gelf_getchdr(scn, &ch))
			snprintf(algo, sizeof(algo), "an unreadable compression header");
		else if (ch.ch_type == ELFCOMPRESS_ZLIB)
			continue;
		else if (ch.ch_type == ELFCOMPRESS_ZSTD)
			snprintf(algo, sizeof(algo), "zstd");
		else
			snprintf(algo, sizeof(algo), "algorithm %u", (unsigned)ch.ch_type);
		return pgo_buf_addf(msg, "its debug info (%s) is compressed with %s, which this libelf "
				    "(elfutils %s) cannot read; decompress it (objcopy "
				    "--decompress-debug-sections '%s') or build with -gz=zlib",
				    name, algo, dwfl_version(NULL), path) < 0 ? -1 : 1;
	}
	return 0;
}
