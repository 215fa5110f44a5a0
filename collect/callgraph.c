// SPDX-License-Identifier: MIT
/*
 * Call-graph modes of the collector (collect/callgraph.h): option parsing, attr bits,
 * ring sizing, and the frame-pointer census behind --call-graph auto.
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

#include "collect/callgraph.h"
#include "lib/buf.h"
#include "lib/parse.h"
#include "lib/report.h"

/*
 * Why 4096 bytes by default, not perf's 8192: measured with `--call-graph dwarf,65528`
 * and `pgo convert -v`, which prints the stack bytes each complete unwind read (from the
 * sampled %rsp to the highest stack word the CFI needed, up to _start or clone) and the
 * share of complete unwinds that a copy of 1..32 KiB holds (bench/unwind.sh measures it):
 *
 *   program (gcc -O2, Debian 12 libs)          p50    p95     max   <=2K  <=4K  <=8K  <=16K
 *   tests/helpers/unwind-chain (no FP build)   376    384    1888   100   100   100   100
 *   examples/threads                           256    384     512   100   100   100   100
 *   sqlite 3.40 in-memory insert/index/join   1120   2120    2792    94   100   100   100
 *   gcc 12 cc1 -O2 on convert/profile.c       1632   6784   43568    66    91    96    98
 *   python3 3.11 json + sort                  1752   7792   21016    85    87    95    99
 *
 * 4 KiB keeps every stack of the small programs and of the sqlite workload complete (95%
 * need 2.1 KiB) at half perf's bytes per sample; compilers and interpreters with big
 * recursive frames need 8-16 KiB for 95%. convert counts the stacks that ran past the
 * copy, warns above 5%, and prints the size that would have sufficed (p95), so those
 * users know to pass dwarf,8192 or more.
 */

int collect_callgraph_parse(const char *s, enum collect_callgraph *mode, uint32_t *stack_size)
{
	const char *comma;
	uint64_t v;

	*stack_size = COLLECT_DWARF_STACK_DEFAULT;
	if (!strcmp(s, "none")) {
		*mode = COLLECT_CALLGRAPH_NONE;
		return 0;
	}
	if (!strcmp(s, "fp")) {
		*mode = COLLECT_CALLGRAPH_FP;
		return 0;
	}
	if (!strcmp(s, "auto")) {
		*mode = COLLECT_CALLGRAPH_AUTO;
		return 0;
	}
	if (strncmp(s, "dwarf", 5) || (s[5] && s[5] != ','))
		return pgo_error("invalid call-graph mode '%s' (use auto, fp, dwarf[,SIZE] or none)", s);
	*mode = COLLECT_CALLGRAPH_DWARF;
	if (!s[5])
		return 0;
	comma = s + 5;
	{
		char num[32];
		size_t n = strlen(comma + 1);
		uint64_t mul = 1;

		if (n && (comma[n] == 'k' || comma[n] == 'K')) {
			mul = 1024;
			n--;
		}
		if (!n || n >= sizeof(num))
			goto bad;
		memcpy(num, comma + 1, n);
		num[n] = '\0';
		if (pgo_parse_u64_range(num, 1, COLLECT_DWARF_STACK_MAX, &v))
			goto bad;
		v *= mul;
		if (v < 8 || v > COLLECT_DWARF_STACK_MAX || v % 8)
			goto bad;
	}
	*stack_size = (uint32_t)v;
	return 0;
bad:
	return pgo_error("invalid stack size in '%s' (bytes to copy per sample: a multiple of 8 "
			 "from 8 to %u, e.g. dwarf,16384)", s, COLLECT_DWARF_STACK_MAX);
}

const char *collect_callgraph_name(enum collect_callgraph mode)
{
	switch (mode) {
	case COLLECT_CALLGRAPH_NONE:
		return "none";
	case COLLECT_CALLGRAPH_FP:
		return "fp";
	case COLLECT_CALLGRAPH_DWARF:
		return "dwarf";
	case COLLECT_CALLGRAPH_AUTO:
		return "auto";
	}
	return "?";
}

void collect_callgraph_attr(struct perf_event_attr *a, enum collect_callgraph mode,
			    uint32_t stack_size)
{
	switch (mode) {
	case COLLECT_CALLGRAPH_FP:
		a->sample_type |= PERF_SAMPLE_CALLCHAIN;
		break;
	case COLLECT_CALLGRAPH_DWARF:
		/* the kernel part of the stack still comes from the kernel's own walk */
		a->sample_type |= PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		a->exclude_callchain_user = 1;
		a->sample_regs_user = COLLECT_DWARF_REGS_X86_64;
		a->sample_stack_user = stack_size;
		/*
		 * perf record does the same: perf's unwinders read .eh_frame_hdr through the
		 * process maps, and that lives in a read-only (not executable) segment.
		 */
		a->mmap_data = 1;
		break;
	default:
		break;
	}
}

static unsigned int pow2_at_least(uint64_t v)
{
	unsigned int p = 1;

	while (p < v && p < (1U << 30))
		p <<= 1;
	return p;
}

unsigned int collect_callgraph_ring_pages(enum collect_callgraph mode, uint32_t stack_size,
					  unsigned int freq, unsigned int poll_ms,
					  unsigned int min_pages)
{
	uint64_t per_sample, bytes, pages;

	if (mode != COLLECT_CALLGRAPH_DWARF)
		return min_pages;
	/* header + ip/tid/time/cpu/period/id + kernel chain + 17 regs + stack + sizes */
	per_sample = 8 + 48 + 8 * 32 + 8 + 8 * 17 + 16 + stack_size;
	/*
	 * One ring per CPU gets at most one running thread's samples at a time, so about
	 * freq per second; hold four drain periods so a late wakeup loses nothing.
	 */
	bytes = per_sample * freq * (uint64_t)poll_ms * 4 / 1000;
	pages = pow2_at_least((bytes + 4095) / 4096);
	if (pages < min_pages)
		pages = min_pages;
	if (pages > 4096) /* 16 MiB per CPU is plenty up to 20 kHz with the default size */
		pages = 4096;
	return (unsigned int)pages;
}

/* ---- --call-graph auto ---- */

/*
 * Does the function at [start, start + size) keep a frame pointer? Asked of its CFI
 * (.eh_frame), which is what the compiler itself says: with a frame pointer the CFA is
 * defined from %rbp (DWARF register 6) once the prologue has run, without one it is
 * always %rsp-based. Byte patterns are not reliable: gcc schedules other instructions
 * between push %rbp and mov %rsp,%rbp, and shrink-wrapping moves both past early exits.
 * A few points inside the body are probed, since the prologue and epilogue still use
 * %rsp. Without CFI, the fallback looks for push %rbp followed closely by
 * mov %rsp,%rbp (48 89 e5 / 48 8b ec) near the entry.
 */
static int has_frame_pointer(Dwarf_CFI *cfi, uint64_t start, uint64_t size,
			     const unsigned char *code, size_t n)
{
	size_t i, j;
	int k;

	if (cfi) {
		for (k = 1; k <= 7; k++) {
			Dwarf_Frame *frame = NULL;
			Dwarf_Op *ops;
			size_t nops;
			int fp;

			if (dwarf_cfi_addrframe(cfi, start + size * (uint64_t)k / 8, &frame))
				continue;
			fp = !dwarf_frame_cfa(frame, &ops, &nops) && nops >= 1 &&
			     (ops[0].atom == DW_OP_breg6 ||
			      (ops[0].atom == DW_OP_bregx && ops[0].number == 6));
			free(frame);
			if (fp)
				return 1;
		}
		return 0;
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
		(*functions)++;
		if (has_frame_pointer(cfi, sym.st_value, sym.st_size, (const unsigned char *)tdata->d_buf + off,
				      tdata->d_size - off < sym.st_size ? tdata->d_size - off : sym.st_size))
			(*with_fp)++;
	}
	return 0;
}

int collect_callgraph_fp_census(const char *path, size_t *with_fp, size_t *functions)
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

enum collect_callgraph collect_callgraph_detect(const char *cmd, char *why, size_t why_len)
{
	char *path = find_command(cmd);
	size_t fp = 0, n = 0;
	enum collect_callgraph mode = COLLECT_CALLGRAPH_DWARF;

	if (!path) {
		snprintf(why, why_len, "%s not found", cmd);
	} else if (collect_callgraph_fp_census(path, &fp, &n)) {
		snprintf(why, why_len, "%s is not an x86-64 ELF binary", cmd);
	} else if (!n) {
		snprintf(why, why_len, "%s has no function symbols to check", cmd);
	} else if (2 * fp > n) {
		/* a majority: an -fno-omit-frame-pointer build (a few asm or crt functions lack one) */
		mode = COLLECT_CALLGRAPH_FP;
		snprintf(why, why_len, "%s keeps frame pointers (%zu of %zu functions)", cmd, fp, n);
	} else {
		snprintf(why, why_len, "%s omits frame pointers (%zu of %zu functions keep one)", cmd, fp, n);
	}
	free(path);
	return mode;
}
