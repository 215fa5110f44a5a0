// SPDX-License-Identifier: MIT
/*
 * Symbolizer over libdwfl (symbolize/symtab.h): opening a binary, its segments, ELF
 * symbols and compile units. The module is reported at bias 0, so module addresses are
 * the link-time vaddrs of the ELF file, for PIE and non-PIE alike.
 */
#include <dwarf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbolize/debuglink.h"
#include "symbolize/dwcompress.h"
#include "symbolize/symtab_internal.h"
#include "lib/buf.h"
#include "lib/alloc.h"
#include "lib/radixsort.h"
#include "lib/report.h"

/* Report through `report` (pgo_error, pgo_warn), or as debug output for a quiet open. */
#define ST_REPORT(flags, report, ...)                                                 \
	do {                                                                          \
		if ((flags) & SYMBOLIZE_SYMTAB_QUIET)                                   \
			pgo_debug(1, __VA_ARGS__);                                    \
		else                                                                  \
			report(__VA_ARGS__);                                          \
	} while (0)
#define ST_ERROR(flags, ...) ST_REPORT(flags, pgo_error, __VA_ARGS__)
#define ST_WARN(flags, ...) ST_REPORT(flags, pgo_warn, __VA_ARGS__)

static char *debuginfo_path;

static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

uint32_t symbolize_symtab_intern(struct symbolize_symtab *st, const char *s)
{
	long id;

	if (!s)
		return SYMBOLIZE_NO_NAME;
	id = pgo_strtab_intern(st->names, s);
	return id < 0 ? SYMBOLIZE_NO_NAME : (uint32_t)id;
}

static int read_segments(struct symbolize_symtab *st, Elf *elf, int flags)
{
	size_t i, phnum;
	GElf_Ehdr ehdr;

	if (!gelf_getehdr(elf, &ehdr) || elf_getphdrnum(elf, &phnum) < 0) {
		ST_ERROR(flags, "'%s': cannot read the ELF header: %s", st->path, elf_errmsg(-1));
		return -1;
	}
	st->is_dyn = ehdr.e_type == ET_DYN;
	st->machine = ehdr.e_machine;
	for (i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (PGO_ALLOC_GROW_UNINIT(st->segs, st->nr_segs + 1, st->alloc_segs) < 0)
			return -1;
		st->segs[st->nr_segs].offset = ph.p_offset;
		st->segs[st->nr_segs].filesz = ph.p_filesz;
		st->segs[st->nr_segs].vaddr = ph.p_vaddr;
		st->segs[st->nr_segs].exec = !!(ph.p_flags & PF_X);
		st->nr_segs++;
	}
	if (!st->nr_segs) {
		ST_ERROR(flags, "'%s' has no loadable segments", st->path);
		return -1;
	}
	return 0;
}

/* by address, stable: qsort (a merge sort through a callback) was 1-2% of a convert */
#define FSYM_START_KEY(e) ((e)->start)
PGO_RADIX_SORT(sort_fsym, struct fsym, uint64_t, FSYM_START_KEY)

/*
 * Buckets of the sorted symbols by address for sym_of, about one a symbol: the symbols
 * at or below an address in bucket b are those below sym_buckets[b + 1], those above it
 * are at or after sym_buckets[b]. Without memory, sym_of searches them all.
 */
static void bucket_symbols(struct symbolize_symtab *st)
{
	uint64_t span;
	size_t n = 1, b, i;

	if (st->nr_syms < 16 || st->nr_syms > UINT32_MAX)
		return;
	span = st->syms[st->nr_syms - 1].start - st->syms[0].start;
	while (n < st->nr_syms)
		n *= 2;
	/* the smallest shift that puts the span in n buckets */
	for (st->sym_shift = 0; st->sym_shift < 63 && (span >> st->sym_shift) >= n; st->sym_shift++)
		;
	if (!(st->sym_buckets = malloc((n + 1) * sizeof(*st->sym_buckets))))
		return;
	st->nr_sym_buckets = n;
	for (b = i = 0; b <= n; b++) {
		while (i < st->nr_syms && (st->syms[i].start - st->syms[0].start) >> st->sym_shift < b)
			i++;
		st->sym_buckets[b] = (uint32_t)i;
	}
}

static int read_symbols(struct symbolize_symtab *st)
{
	int n = dwfl_module_getsymtab(st->mod), i;
	size_t k, m;

	/* room for all: the array grows to hundreds of KB, copied and faulted in again as it grew */
	if (n > 1 && PGO_ALLOC_GROW_UNINIT(st->syms, (size_t)n, st->alloc_syms) < 0)
		return -1;
	for (i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		const char *name = dwfl_module_getsym_info(st->mod, i, &sym, &addr, &shndx, NULL, NULL);
		int bind;

		if (!name || !name[0] || GELF_ST_TYPE(sym.st_info) != STT_FUNC || shndx == SHN_UNDEF)
			continue;
		bind = GELF_ST_BIND(sym.st_info);
		st->syms[st->nr_syms].start = addr;
		st->syms[st->nr_syms].size = sym.st_size;
		st->syms[st->nr_syms].name = symbolize_symtab_intern(st, name);
		/* prefer sized, then global, then weak symbols among aliases */
		st->syms[st->nr_syms].rank = (sym.st_size ? 4 : 0) + (bind == STB_GLOBAL ? 2 : 0) +
					     (bind == STB_WEAK ? 1 : 0);
		st->nr_syms++;
	}
	/* of the symbols at one address, the first of the highest rank in table order */
	sort_fsym(st->syms, st->nr_syms);
	for (k = m = 0; k < st->nr_syms; k++)
		if (!m || st->syms[m - 1].start != st->syms[k].start)
			st->syms[m++] = st->syms[k];
		else if (st->syms[k].rank > st->syms[m - 1].rank)
			st->syms[m - 1] = st->syms[k];
	st->nr_syms = m;
	bucket_symbols(st);
	return 0;
}

static int cmp_range(const void *a, const void *b)
{
	const struct cu_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Where a skeleton unit says its .dwo is (DW_AT_dwo_name, under DW_AT_comp_dir); NULL if
 * it does not say or memory is short. */
static char *dwo_path(Dwarf_Die *skel)
{
	Dwarf_Attribute a;
	const char *name = dwarf_formstring(dwarf_attr(skel, DW_AT_dwo_name, &a));
	const char *dir = dwarf_formstring(dwarf_attr(skel, DW_AT_comp_dir, &a));
	char *p;

	if (!name)
		name = dwarf_formstring(dwarf_attr(skel, DW_AT_GNU_dwo_name, &a));
	if (!name)
		return NULL;
	if (name[0] == '/' || !dir)
		return strdup(name);
	return asprintf(&p, "%s/%s", dir, name) < 0 ? NULL : p;
}

static int read_cus(struct symbolize_symtab *st)
{
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie, subdie;
	uint8_t unit_type;
	Dwarf_Half version;

	while (dwarf_get_units(st->dwarf, cu, &cu, &version, &unit_type, &cudie, &subdie) == 0) {
		Dwarf_Addr base, lo, hi;
		ptrdiff_t o = 0;

		if (unit_type != DW_UT_compile && unit_type != DW_UT_partial &&
		    unit_type != DW_UT_skeleton)
			continue;
		if (PGO_ALLOC_GROW_UNINIT(st->cus, st->nr_cus + 1, st->alloc_cus) < 0 ||
		    PGO_ALLOC_GROW_UNINIT(st->scope_dies, st->nr_cus + 1, st->alloc_scope_dies) < 0)
			return -1;
		st->cus[st->nr_cus] = cudie;
		st->scope_dies[st->nr_cus] = cudie;
		if (unit_type == DW_UT_skeleton) {
			/* libdw found the .dwo (DW_AT_dwo_name under DW_AT_comp_dir), or not */
			st->nr_skeletons++;
			if (subdie.addr && subdie.cu)
				st->scope_dies[st->nr_cus] = subdie;
			else if (!st->nr_no_dwo++)
				st->no_dwo = dwo_path(&cudie);
		}
		while ((o = dwarf_ranges(&cudie, o, &base, &lo, &hi)) > 0) {
			if (hi <= lo)
				continue;
			if (PGO_ALLOC_GROW_UNINIT(st->ranges, st->nr_ranges + 1, st->alloc_ranges) < 0)
				return -1;
			st->ranges[st->nr_ranges].lo = lo;
			st->ranges[st->nr_ranges].hi = hi;
			st->ranges[st->nr_ranges].cu = st->nr_cus;
			st->nr_ranges++;
		}
		st->nr_cus++;
	}
	if (st->nr_ranges > 1)
		qsort(st->ranges, st->nr_ranges, sizeof(*st->ranges), cmp_range);
	if (st->nr_cus) {
		st->trees = pgo_calloc(st->nr_cus, sizeof(*st->trees));
		st->have_tree = pgo_calloc(st->nr_cus, 1);
		st->lines = pgo_calloc(st->nr_cus, sizeof(*st->lines));
		if (!st->trees || !st->have_tree || !st->lines)
			return -1;
		st->have_secs = symbolize_dwsecs_get(st->dwarf, &st->secs) == 0;
		if (!st->have_secs)
			pgo_debug(1, "'%s': no .debug_line to read directly (compressed the GNU way, "
				  "relocatable, or none): libdw reads its line tables", st->path);
	}
	return 0;
}

int symbolize_symtab_open(const char *path, struct pgo_strtab *names, int flags,
			struct symbolize_symtab **out)
{
	struct symbolize_symtab *st;
	GElf_Addr bias, bid_vaddr;
	struct stat sb;
	Elf *elf;
	int fd;

	*out = NULL;
	st = pgo_calloc(1, sizeof(*st));
	if (!st)
		return -1;
	st->names = names;
	st->path = pgo_strdup(path);
	if (!st->path)
		goto fail;
	/* paths come from the perf.data: a FIFO there must not block us (O_NONBLOCK) */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		ST_ERROR(flags, "cannot open '%s': %s", path, strerror(errno));
		goto fail;
	}
	if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode)) {
		close(fd);
		ST_ERROR(flags, "'%s' is not a regular file (an ELF binary is)", path);
		goto fail;
	}
	st->dwfl = dwfl_begin(&callbacks);
	if (!st->dwfl) {
		close(fd);
		ST_ERROR(flags, "cannot start libdwfl: %s", dwfl_errmsg(-1));
		goto fail;
	}
	dwfl_report_begin(st->dwfl);
	/* dwfl takes the fd, but only on success; bias 0 keeps link-time addresses */
	st->mod = dwfl_report_elf(st->dwfl, path, path, fd, 0, false);
	dwfl_report_end(st->dwfl, NULL, NULL);
	if (!st->mod) {
		close(fd);
		ST_ERROR(flags, "'%s' is not a readable ELF file: %s", path, dwfl_errmsg(-1));
		goto fail;
	}
	elf = dwfl_module_getelf(st->mod, &bias);
	if (!elf) {
		ST_ERROR(flags, "'%s' is not a readable ELF file: %s", path, dwfl_errmsg(-1));
		goto fail;
	}
	st->elf = elf;
	if (read_segments(st, elf, flags) < 0)
		goto fail;
	if (read_symbols(st) < 0)
		goto fail;
	st->build_id_len = dwfl_module_build_id(st->mod, &st->build_id, &bid_vaddr);
	if (st->build_id_len < 0)
		st->build_id_len = 0;
	st->dwarf = dwfl_module_getdwarf(st->mod, &st->dwbias);
	if (st->dwarf && read_cus(st) < 0)
		goto fail;
	if (st->nr_no_dwo)
		ST_WARN(flags, "'%s' was built with -gsplit-dwarf, and %zu of its %zu split units have "
			"no .dwo file where the build left it (%s): their functions have no inline "
			"or source-line detail. Keep the .dwo files in place, or build without "
			"-gsplit-dwarf (.dwp packages are not read)", path, st->nr_no_dwo,
			st->nr_skeletons, st->no_dwo ? st->no_dwo : "no DW_AT_dwo_name");
	if (!st->dwarf && (flags & SYMBOLIZE_SYMTAB_NEED_DWARF)) {
		struct pgo_buf why = PGO_BUF_INIT;

		if (symbolize_dwcompress_explain(elf, path, &why) > 0)
			ST_ERROR(flags, "'%s': %s", path, pgo_buf_str(&why));
		else if (symbolize_debuglink_explain(elf, path, st->build_id, st->build_id_len, &why) > 0)
			ST_ERROR(flags, "'%s' has no debug info (DWARF): %s", path, pgo_buf_str(&why));
		else
			ST_ERROR(flags, "'%s' has no debug info (DWARF); build it with -g (or install "
				  "its debug symbols)", path);
		pgo_buf_release(&why);
		goto fail;
	}
	*out = st;
	return 0;
fail:
	symbolize_symtab_free(st);
	return -1;
}

void symbolize_symtab_free(struct symbolize_symtab *st)
{
	if (!st)
		return;
	if (st->dwfl)
		dwfl_end(st->dwfl);
	pgo_u64map_release(&st->cache);
	pgo_u64map_release(&st->fn_dies);
	pgo_u64map_release(&st->inl_entries);
	pgo_u64map_release(&st->file_ids);
	free(st->dies);
	free(st->unit_ids);
	for (size_t i = 0; st->have_tree && i < st->nr_cus; i++)
		if (st->have_tree[i])
			symbolize_scopetree_release(&st->trees[i]);
	free(st->trees);
	free(st->have_tree);
	for (size_t i = 0; st->lines && i < st->nr_cus; i++) {
		symbolize_linetab_release(&st->lines[i].t);
		free(st->lines[i].file_ids);
	}
	free(st->lines);
	free(st->want);
	free(st->syms);
	free(st->sym_buckets);
	free(st->cus);
	free(st->scope_dies);
	free(st->no_dwo);
	free(st->ranges);
	free(st->results);
	free(st->frames);
	free(st->segs);
	free(st->path);
	free(st);
}

int symbolize_symtab_has_dwarf(const struct symbolize_symtab *st)
{
	return st->dwarf != NULL;
}

int symbolize_symtab_build_id(const struct symbolize_symtab *st, const uint8_t **id)
{
	*id = st->build_id;
	return st->build_id_len;
}

int symbolize_symtab_is_pie_or_dso(const struct symbolize_symtab *st)
{
	return st->is_dyn;
}

int symbolize_symtab_machine(const struct symbolize_symtab *st)
{
	return st->machine;
}

int symbolize_symtab_foreach_producer(const struct symbolize_symtab *st,
				      int (*fn)(const char *producer, void *data), void *data)
{
	for (size_t i = 0; i < st->nr_cus; i++) {
		Dwarf_Attribute a;
		Dwarf_Die die = st->scope_dies[i];
		const char *s = dwarf_formstring(dwarf_attr_integrate(&die, DW_AT_producer, &a));
		int r;

		if (!s) {
			die = st->cus[i];
			s = dwarf_formstring(dwarf_attr_integrate(&die, DW_AT_producer, &a));
		}
		if (s && (r = fn(s, data)) != 0)
			return r;
	}
	return 0;
}

int symbolize_symtab_offset_to_vaddr(const struct symbolize_symtab *st, uint64_t off, uint64_t *vaddr)
{
	size_t i;
	int found = 0;

	/* prefer the executable segment when a page is shared by two segments */
	for (i = 0; i < st->nr_segs; i++) {
		const struct seg *s = &st->segs[i];

		if (off < s->offset || off - s->offset >= s->filesz)
			continue;
		*vaddr = off - s->offset + s->vaddr;
		found = 1;
		if (s->exec)
			return 0;
	}
	return found ? 0 : -1;
}

const void *symbolize_symtab_bytes(const struct symbolize_symtab *st, uint64_t vaddr, size_t *avail)
{
	size_t i, size;
	const char *raw = st->elf ? elf_rawfile(st->elf, &size) : NULL;

	*avail = 0;
	if (!raw)
		return NULL;
	for (i = 0; i < st->nr_segs; i++) {
		const struct seg *s = &st->segs[i];
		uint64_t off;

		if (vaddr < s->vaddr || vaddr - s->vaddr >= s->filesz)
			continue;
		off = s->offset + (vaddr - s->vaddr);
		if (off >= size)
			return NULL;
		*avail = s->filesz - (vaddr - s->vaddr);
		if (*avail > size - off)
			*avail = size - off;
		return raw + off;
	}
	return NULL;
}

int symbolize_symtab_read(const struct symbolize_symtab *st, uint64_t vaddr, void *buf, size_t len)
{
	size_t avail;
	const void *p = symbolize_symtab_bytes(st, vaddr, &avail);

	if (!p || len > avail)
		return -1;
	memcpy(buf, p, len);
	return 0;
}

/* Length of an FF /2 instruction from its ModRM byte on (ModRM, SIB, displacement). */
static unsigned modrm_len(const uint8_t *p, unsigned avail)
{
	unsigned mod = p[0] >> 6, rm = p[0] & 7, n = 1;

	if (mod != 3 && rm == 4) {
		if (avail < 2)
			return 0;
		n++;
		if (mod == 0 && (p[1] & 7) == 5)
			n += 4;
	}
	if (mod == 0 && rm == 5)
		n += 4;
	else if (mod == 1)
		n += 1;
	else if (mod == 2)
		n += 4;
	return n;
}

int symbolize_symtab_is_indirect_call(const struct symbolize_symtab *st, uint64_t ret)
{
	uint8_t code[8];
	unsigned len;

	if (ret < sizeof(code) || symbolize_symtab_read(st, ret - sizeof(code), code, sizeof(code)) < 0)
		return 0;
	/* a direct call (E8 rel32) is the common case: rule it out first */
	if (code[3] == 0xe8)
		return 0;
	for (len = 2; len <= 7; len++) {
		const uint8_t *insn = code + sizeof(code) - len;

		if (insn[0] == 0xff && ((insn[1] >> 3) & 7) == 2 && 1 + modrm_len(insn + 1, len - 1) == len)
			return 1;
	}
	return 0;
}

int symbolize_symtab_frame_ready(struct symbolize_symtab *st, uint64_t addr)
{
	struct symbolize_sym sym = symbolize_symtab_lookup(st, addr);
	uint8_t code[48];
	size_t n = sizeof(code), i;

	if (sym.sym_name == SYMBOLIZE_NO_NAME)
		return 0;
	if (sym.sym_size && sym.sym_size < n)
		n = sym.sym_size;
	if (n < 4 || symbolize_symtab_read(st, sym.sym_start, code, n) < 0)
		return 0;
	/* gcc may schedule other instructions into the prologue: look for mov %rsp,%rbp */
	for (i = 0; i + 3 <= n; i++)
		if (code[i] == 0x48 && code[i + 1] == 0x89 && code[i + 2] == 0xe5)
			return addr >= sym.sym_start + i + 3;
	return 0;
}

int symbolize_symtab_foreach_function(const struct symbolize_symtab *st,
				    int (*fn)(uint32_t name, void *data), void *data)
{
	size_t i;
	int ret;

	for (i = 0; i < st->nr_syms; i++)
		if ((ret = fn(st->syms[i].name, data)))
			return ret;
	return 0;
}
