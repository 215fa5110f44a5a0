// SPDX-License-Identifier: MIT
/*
 * The frame-pointer census of a binary, read from its CFI, and the --call-graph auto
 * choice made from it (symbolize/fpcensus.h).
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/buf.h"
#include "symbolize/fpcensus.h"

/*
 * Does the function at [start, start + size) keep a frame pointer? Asked of its CFI
 * (.eh_frame), which is what the compiler itself says: with a frame pointer the CFA is
 * defined from %rbp (DWARF register 6) once the prologue has run, without one it is
 * always %rsp-based. Byte patterns are not reliable: gcc schedules other instructions
 * between push %rbp and mov %rsp,%rbp, and shrink-wrapping moves both past early exits.
 * A few points inside the body are probed, since the prologue and epilogue still use
 * %rsp. A function whose CFA is %rsp + 8 at every point probed has no stack frame at
 * all (a small leaf: gcc gives it no frame pointer even with -fno-omit-frame-pointer):
 * it says nothing either way and returns -1. Without CFI, the fallback looks for
 * push %rbp followed closely by mov %rsp,%rbp (48 89 e5 / 48 8b ec) near the entry.
 */
static int has_frame_pointer(Dwarf_CFI *cfi, uint64_t start, uint64_t size,
			     const unsigned char *code, size_t n)
{
	size_t i, j;
	int k, framed = 0, probed = 0;

	if (cfi) {
		for (k = 1; k <= 7; k++) {
			Dwarf_Frame *frame = NULL;
			Dwarf_Op *ops;
			size_t nops;
			int fp, cfa;

			if (dwarf_cfi_addrframe(cfi, start + size * (uint64_t)k / 8, &frame))
				continue;
			cfa = !dwarf_frame_cfa(frame, &ops, &nops) && nops >= 1;
			fp = cfa && (ops[0].atom == DW_OP_breg6 ||
				     (ops[0].atom == DW_OP_bregx && ops[0].number == 6));
			probed++;
			if (!cfa || ops[0].atom != DW_OP_breg7 || ops[0].number != 8)
				framed = 1;
			free(frame);
			if (fp)
				return 1;
		}
		return probed && !framed ? -1 : 0;
	}
	for (i = 0; i < n && i < 64; i++) {
		if (code[i] != 0x55)
			continue;
		for (j = i + 1; j + 3 <= n && j < i + 16; j++)
			if (code[j] == 0x48 && ((code[j + 1] == 0x89 && code[j + 2] == 0xe5) ||
						(code[j + 1] == 0x8b && code[j + 2] == 0xec)))
				return 1;
	}
	return 0;
}

/* Start-up code from crt1.o/crti.o/crtbegin.o: its frame pointers say nothing of the user's. */
static int is_crt_function(const char *name)
{
	static const char *const crt[] = {
		"_start", "_init", "_fini", "deregister_tm_clones", "register_tm_clones",
		"__do_global_dtors_aux", "frame_dummy", "__libc_csu_init", "__libc_csu_fini",
		"_dl_relocate_static_pie",
	};
	size_t i;

	for (i = 0; i < sizeof(crt) / sizeof(crt[0]); i++)
		if (!strcmp(name, crt[i]))
			return 1;
	return 0;
}

static int census_symtab(Elf *elf, Dwarf_CFI *cfi, Elf_Scn *symscn, size_t *with_fp,
			 size_t *functions)
{
	GElf_Shdr sh;
	Elf_Data *data;
	size_t i, n;

	if (!gelf_getshdr(symscn, &sh) || !sh.sh_entsize)
		return 0;
	data = elf_getdata(symscn, NULL);
	if (!data)
		return 0;
	n = sh.sh_size / sh.sh_entsize;
	for (i = 0; i < n; i++) {
		GElf_Sym sym;
		GElf_Shdr tsh;
		Elf_Scn *tscn;
		Elf_Data *tdata;
		const char *name;
		uint64_t off;
		int fp;

		if (!gelf_getsym(data, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
		    sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE || sym.st_size < 4)
			continue;
		name = elf_strptr(elf, sh.sh_link, sym.st_name);
		if (!name || is_crt_function(name))
			continue;
		tscn = elf_getscn(elf, sym.st_shndx);
		if (!tscn || !gelf_getshdr(tscn, &tsh) || tsh.sh_type != SHT_PROGBITS ||
		    !(tsh.sh_flags & SHF_EXECINSTR) || sym.st_value < tsh.sh_addr ||
		    sym.st_value - tsh.sh_addr >= tsh.sh_size)
			continue;
		tdata = elf_getdata(tscn, NULL);
		if (!tdata || !tdata->d_buf)
			continue;
		off = sym.st_value - tsh.sh_addr;
		if (off >= tdata->d_size)
			continue;
		fp = has_frame_pointer(cfi, sym.st_value, sym.st_size,
				       (const unsigned char *)tdata->d_buf + off,
				       tdata->d_size - off < sym.st_size ? tdata->d_size - off : sym.st_size);
		if (fp < 0)
			continue; /* no stack frame: the same in either kind of build */
		(*functions)++;
		if (fp)
			(*with_fp)++;
	}
	return 0;
}

int symbolize_fp_census(const char *path, size_t *with_fp, size_t *functions)
{
	Elf_Scn *scn = NULL, *symtab = NULL, *dynsym = NULL;
	Dwarf_CFI *cfi = NULL;
	GElf_Ehdr eh;
	Elf *elf;
	int fd, ret = -1;

	*with_fp = *functions = 0;
	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh) || eh.e_machine != EM_X86_64) {
		errno = ENOEXEC;
		goto out;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB)
			symtab = scn;
		else if (sh.sh_type == SHT_DYNSYM)
			dynsym = scn;
	}
	cfi = dwarf_getcfi_elf(elf);
	if (symtab)
		census_symtab(elf, cfi, symtab, with_fp, functions);
	if (!*functions && dynsym)
		census_symtab(elf, cfi, dynsym, with_fp, functions);
	ret = 0;
out:
	if (cfi)
		dwarf_cfi_end(cfi);
	elf_end(elf);
	close(fd);
	return ret;
}

/* execvp's search, for the file the census reads. Returns a new string or NULL. */
static char *find_command(const char *cmd)
{
	const char *path = getenv("PATH"), *p, *e;
	struct pgo_buf b = PGO_BUF_INIT;

	if (strchr(cmd, '/'))
		return strdup(cmd);
	for (p = path ? path : "/usr/local/bin:/usr/bin:/bin"; ; p = e + 1) {
		e = strchrnul(p, ':');
		pgo_buf_reset(&b);
		if (pgo_buf_addf(&b, "%.*s/%s", e == p ? 1 : (int)(e - p), e == p ? "." : p, cmd))
			break;
		if (!access(b.data, X_OK))
			return pgo_buf_detach(&b);
		if (!*e)
			break;
	}
	pgo_buf_release(&b);
	return NULL;
}

enum collect_callgraph symbolize_callgraph_auto(const char *cmd, char *why, size_t why_len)
{
	char *path = find_command(cmd);
	size_t fp = 0, n = 0;
	enum collect_callgraph mode = COLLECT_CALLGRAPH_DWARF_UNWOUND;

	if (!path) {
		snprintf(why, why_len, "%s not found", cmd);
	} else if (symbolize_fp_census(path, &fp, &n)) {
		snprintf(why, why_len, "%s is not an x86-64 ELF binary", cmd);
	} else if (!n) {
		snprintf(why, why_len, "%s has no function with a stack frame to check", cmd);
	} else if (2 * fp > n) {
		/* a majority: an -fno-omit-frame-pointer build (a few asm or crt functions lack one) */
		mode = COLLECT_CALLGRAPH_FP;
		snprintf(why, why_len, "%s keeps frame pointers (%zu of %zu functions with a stack "
			 "frame)", cmd, fp, n);
	} else {
		snprintf(why, why_len, "%s omits frame pointers (%zu of %zu functions with a stack "
			 "frame keep one)", cmd, fp, n);
	}
	free(path);
	return mode;
}
