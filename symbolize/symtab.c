// SPDX-License-Identifier: MIT
/*
 * Symbolizer over libdwfl (symbolize/symtab.h). The module is reported at bias 0, so
 * module addresses are the link-time vaddrs of the ELF file, for PIE and non-PIE alike.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbolize/debuglink.h"
#include "symbolize/dies.h"
#include "symbolize/dwcompress.h"
#include "symbolize/linetab.h"
#include "symbolize/scopetree.h"
#include "symbolize/symtab.h"
#include "lib/buf.h"
#include "lib/alloc.h"
#include "lib/hashmap.h"
#include "lib/radixsort.h"
#include "lib/report.h"

#ifndef DW_AT_GNU_discriminator
#define DW_AT_GNU_discriminator 0x2136
#endif

struct seg {
	uint64_t offset, filesz, vaddr;
	int exec;
};

/* CU address ranges: clang emits no .debug_aranges, which dwfl_module_addrdie needs */
struct cu_range {
	uint64_t lo, hi;
	uint32_t cu;
};

/* ELF function symbols sorted by address: dwfl_module_addrinfo scans all symbols per call */
struct fsym {
	uint64_t start, size;
	uint32_t name;
	int rank;                      /* which of several symbols at one address wins */
};

/* What a subprogram or inlined-subroutine DIE gives a frame, read once per DIE. */
struct die_info {
	uint32_t name, decl_line, unit;
	uint32_t call_file, call_line, call_discr; /* inlined subroutines, once has_call */
	int has_call;
};

/* A unit's line table: ours (symbolize/linetab.h), or libdw's where ours cannot read it. */
enum { LINES_UNREAD, LINES_OURS, LINES_LIBDW };
#define FILE_UNSET (SYMBOLIZE_NO_NAME - 1)

struct cu_lines {
	struct symbolize_linetab t;
	uint32_t *file_ids;            /* file index -> name id, FILE_UNSET until needed */
	int state;
};

#define MAX_DEPTH 64   /* scopes of an inline chain kept */

/* The last inline chain read: it holds for [lo, end) of unit cu (symbolize_scopetree_chain). */
struct span {
	size_t cu;
	Dwarf_Addr lo, end;
	int valid, nr;
	uint64_t gen;                 /* counts the chains read */
	struct symbolize_sym_frame frames[MAX_DEPTH];
};

struct cached {
	uint32_t sym_name;
	uint64_t sym_start, sym_size;
	uint32_t first, nr;
};

struct symbolize_symtab {
	char *path;
	struct pgo_strtab *names;
	Dwfl *dwfl;
	Dwfl_Module *mod;
	Elf *elf;
	Dwarf *dwarf;
	Dwarf_Addr dwbias;
	const uint8_t *build_id;
	int build_id_len;
	int is_dyn;
	int machine;                  /* e_machine */
	struct seg *segs;
	size_t nr_segs, alloc_segs;
	struct pgo_u64map cache;      /* addr -> index + 1 into results */
	struct cached *results;
	size_t nr_results, alloc_results;
	struct symbolize_sym_frame *frames;
	size_t nr_frames, alloc_frames;
	struct fsym *syms;
	size_t nr_syms, alloc_syms;
	uint32_t *sym_buckets;        /* bucket b: the first symbol at or above syms[0].start +
					 (b << sym_shift); nr_sym_buckets + 1 of them, or NULL */
	size_t nr_sym_buckets;
	unsigned sym_shift;
	Dwarf_Die *cus;               /* per unit: its DIE in the binary (ranges, line table) */
	Dwarf_Die *scope_dies;        /* per unit: the DIE its scopes hang from, the split unit's
					 in its .dwo for a skeleton (-gsplit-dwarf), else cus[i] */
	size_t nr_cus, alloc_cus, alloc_scope_dies;
	size_t nr_skeletons, nr_no_dwo; /* split units, and those whose .dwo was not found */
	char *no_dwo;                 /* the first of those: its .dwo's path */
	struct cu_range *ranges;
	size_t nr_ranges, alloc_ranges;
	size_t last_range;            /* cu_of's last answer */
	struct symbolize_scopetree *trees; /* per CU, read on its first lookup */
	unsigned char *have_tree;
	struct symbolize_dwsecs secs;
	int have_secs;
	struct cu_lines *lines;       /* per CU, read on its first lookup */
	struct symbolize_linerange *want; /* symbolize_symtab_want(): unit addresses, sorted, disjoint */
	size_t nr_want;
	struct span span;
	struct pgo_u64map fn_dies;    /* function DIE (die_key) -> index + 1 into dies */
	struct pgo_u64map inl_entries; /* frame.inl -> its entry + 1 */
	struct die_info *dies;
	size_t nr_dies, alloc_dies;
	struct pgo_u64map file_ids;   /* libdw's file name pointer -> name id */
	uint64_t *unit_ids;           /* per unit: own_unit_id + 1, 0 until asked */
};

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

static uint32_t intern(struct symbolize_symtab *st, const char *s)
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
		st->syms[st->nr_syms].name = intern(st, name);
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

/*
 * The function symbol containing addr (sized symbols only reach their size). The binary
 * search over all symbols (a dozen steps, 1% of a convert) is narrowed to a bucket's.
 */
static const struct fsym *sym_of(const struct symbolize_symtab *st, uint64_t addr)
{
	size_t lo = 0, hi = st->nr_syms;
	const struct fsym *f;

	if (st->sym_buckets && addr >= st->syms[0].start) {
		uint64_t b = (addr - st->syms[0].start) >> st->sym_shift;

		if (b < st->nr_sym_buckets) {
			lo = st->sym_buckets[b];
			hi = st->sym_buckets[b + 1];
		} else {
			lo = st->sym_buckets[st->nr_sym_buckets];
		}
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (st->syms[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	f = &st->syms[lo - 1];
	if (f->size && addr - f->start >= f->size)
		return NULL;
	if (!f->size && lo < st->nr_syms && addr >= st->syms[lo].start)
		return NULL;
	return f;
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

/* The CU whose ranges contain pc (a DWARF address), or NULL. */
static Dwarf_Die *cu_of(struct symbolize_symtab *st, Dwarf_Addr pc)
{
	size_t lo = 0, hi = st->nr_ranges, k;
	const struct cu_range *r;

	/*
	 * Addresses come in runs inside one range (a function's rows): the previous answer
	 * stands while pc is in its range and below the next range's start, where the search
	 * below would end and look back from. The search was 3% of graphviz's convert.
	 */
	if (st->last_range < st->nr_ranges) {
		r = &st->ranges[st->last_range];
		if (pc >= r->lo && pc < r->hi && (st->last_range + 1 == st->nr_ranges || pc < r[1].lo))
			return &st->cus[r->cu];
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (st->ranges[mid].lo <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* ranges of different CUs rarely overlap; look back a few in case they do */
	for (k = 0; k < 8 && lo > 0; k++) {
		r = &st->ranges[--lo];
		if (pc < r->hi) {
			st->last_range = lo;
			return &st->cus[r->cu];
		}
	}
	return NULL;
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

static uint32_t die_name(struct symbolize_symtab *st, Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	const char *s = NULL;

	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &attr) ||
	    dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr))
		s = dwarf_formstring(&attr);
	if (!s && dwarf_attr_integrate(die, DW_AT_name, &attr))
		s = dwarf_formstring(&attr);
	return intern(st, s ? s : "[unknown]");
}

static uint32_t die_udata(Dwarf_Die *die, unsigned int at, int integrate)
{
	Dwarf_Attribute attr;
	Dwarf_Word w;

	if (!(integrate ? dwarf_attr_integrate(die, at, &attr) : dwarf_attr(die, at, &attr)))
		return 0;
	if (dwarf_formudata(&attr, &w) != 0)
		return 0;
	return w > UINT32_MAX ? UINT32_MAX : (uint32_t)w;
}

/*
 * A file name from libdw's file tables as a name id. libdw returns the same pointer for
 * the same entry of a CU's table, so the pointer is looked up first and the string
 * hashed only once per entry: every resolved address has a file.
 */
static uint32_t intern_file(struct symbolize_symtab *st, const char *s)
{
	uint64_t *v;
	uint32_t id;
	int ret;

	if (!s)
		return SYMBOLIZE_NO_NAME;
	ret = pgo_u64map_get(&st->file_ids, (uint64_t)(uintptr_t)s, &v);
	if (ret == 0)
		return (uint32_t)*v;
	id = intern(st, s);
	if (ret > 0)
		*v = id;
	return id;
}

/* Do the wanted ranges hold all of unit addresses [lo, hi)? */
static bool wanted(const struct symbolize_symtab *st, uint64_t lo, uint64_t hi)
{
	size_t a = convert_linerange_above(st->want, 0, st->nr_want, lo);

	return a < st->nr_want && st->want[a].lo <= lo && hi <= st->want[a].hi;
}

static void lines_drop(struct cu_lines *l)
{
	symbolize_linetab_release(&l->t);
	free(l->file_ids);
	l->file_ids = NULL;
	l->state = LINES_UNREAD;
}

/*
 * The line table of CU cu, read on first use; NULL if libdw has to be asked. Lookups
 * will ask about unit addresses [lo, hi) (lo == hi: only its file names): a table read
 * for the wanted ranges alone is read again whole if they do not hold them.
 */
static struct cu_lines *lines_of(struct symbolize_symtab *st, size_t cu, uint64_t lo, uint64_t hi)
{
	struct cu_lines *l = &st->lines[cu];
	bool whole = lo < hi && !wanted(st, lo, hi);
	size_t i;

	if (l->state == LINES_OURS && l->t.partial && whole) {
		pgo_debug(2, "'%s': unit %zu: 0x%" PRIx64 " not wanted, its line table read whole",
			  st->path, cu, lo);
		lines_drop(l);
	}
	if (l->state == LINES_UNREAD) {
		const char *name = dwarf_diename(&st->cus[cu]);
		size_t nw = whole ? 0 : st->nr_want;

		l->state = LINES_LIBDW;
		if (!st->have_secs)
			return NULL;
		if (symbolize_linetab_read(&l->t, &st->secs, &st->cus[cu], st->want, nw) != 0) {
			pgo_debug(1, "'%s': unit %s: line table left to libdw", st->path, name ? name : "?");
			return NULL;
		}
		pgo_debug(3, "'%s': unit %s: line table %s, %zu rows in %zu sequences", st->path,
			  name ? name : "?", l->t.partial ? "partial" : "whole", l->t.nr_rows, l->t.nr_seqs);
		l->file_ids = malloc((l->t.nr_files ? l->t.nr_files : 1) * sizeof(*l->file_ids));
		if (!l->file_ids) {
			symbolize_linetab_release(&l->t);
			return NULL;
		}
		for (i = 0; i < l->t.nr_files; i++)
			l->file_ids[i] = FILE_UNSET;
		l->state = LINES_OURS;
	}
	return l->state == LINES_OURS ? l : NULL;
}

/*
 * The unit holding module addresses [addr, addr + size) (NULL if none), and its line
 * table if ours (*l).
 */
static Dwarf_Die *unit_of(struct symbolize_symtab *st, uint64_t addr, uint64_t size, struct cu_lines **l)
{
	Dwarf_Die *cudie = st->dwarf ? cu_of(st, addr - st->dwbias) : NULL;
	uint64_t pc = addr - st->dwbias;

	*l = cudie ? lines_of(st, (size_t)(cudie - st->cus), pc, pc + (size ? size : 1)) : NULL;
	return cudie;
}

/* the union below does not depend on the order of equal starts */
#define WANT_KEY(e) ((e)->lo)
PGO_RADIX_SORT(sort_want, struct symbolize_linerange, uint64_t, WANT_KEY)

int symbolize_symtab_want(struct symbolize_symtab *st, const uint64_t *addrs, size_t n)
{
	struct symbolize_linerange *w = NULL;
	size_t i, m = 0;

	if (n && !(w = malloc(n * sizeof(*w))))
		return pgo_error("out of memory");
	for (i = 0; i < n; i++) {
		const struct fsym *fs = sym_of(st, addrs[i]);
		uint64_t lo = addrs[i], hi = addrs[i] + 1;

		if (fs && fs->size && addrs[i] - fs->start < fs->size) {
			lo = fs->start;
			hi = fs->start + fs->size;
		}
		if (lo < st->dwbias || hi <= lo)
			continue;
		w[m].lo = lo - st->dwbias;
		w[m++].hi = hi - st->dwbias;
	}
	sort_want(w, m);
	for (i = n = 0; i < m; i++) {
		if (n && w[i].lo <= w[n - 1].hi) {
			if (w[i].hi > w[n - 1].hi)
				w[n - 1].hi = w[i].hi;
		} else {
			w[n++] = w[i];
		}
	}
	for (i = 0; st->lines && i < st->nr_cus; i++)
		if (st->lines[i].state == LINES_OURS && st->lines[i].t.partial)
			lines_drop(&st->lines[i]);
	free(st->want);
	st->want = n ? w : NULL;
	st->nr_want = n;
	if (!n)
		free(w);
	return 0;
}

static __attribute__((noinline)) uint32_t file_id_new(struct symbolize_symtab *st, struct cu_lines *l,
						       uint32_t idx)
{
	return l->file_ids[idx] = intern(st, symbolize_linetab_file(&l->t, idx));
}

/* inline, the interning out of line: the call for every line's file was 1% of a convert */
static inline uint32_t file_id(struct symbolize_symtab *st, struct cu_lines *l, uint32_t idx)
{
	if (idx >= l->t.nr_files)
		return SYMBOLIZE_NO_NAME;
	if (l->file_ids[idx] == FILE_UNSET)
		return file_id_new(st, l, idx);
	return l->file_ids[idx];
}

/* A unit's file index idx (DW_AT_call_file) as a name id. */
static uint32_t file_of_index(struct symbolize_symtab *st, Dwarf_Die *cudie, uint32_t idx)
{
	struct cu_lines *l = lines_of(st, (size_t)(cudie - st->cus), 0, 0);
	Dwarf_Files *files;
	size_t nfiles;

	if (l)
		return file_id(st, l, idx);
	if (dwarf_getsrcfiles(cudie, &files, &nfiles) != 0 || idx >= nfiles)
		return SYMBOLIZE_NO_NAME;
	return intern_file(st, dwarf_filesrc(files, idx, NULL, NULL));
}

static void read_call(struct symbolize_symtab *st, Dwarf_Die *cudie, Dwarf_Die *inl, struct die_info *d)
{
	Dwarf_Attribute attr;

	d->call_file = dwarf_attr(inl, DW_AT_call_file, &attr)
		       ? file_of_index(st, cudie, die_udata(inl, DW_AT_call_file, 0)) : SYMBOLIZE_NO_NAME;
	d->call_line = die_udata(inl, DW_AT_call_line, 0);
	d->call_discr = die_udata(inl, DW_AT_GNU_discriminator, 0);
	d->has_call = 1;
}

static struct die_info *fn_info(struct symbolize_symtab *st, size_t cu, Dwarf_Die *die, const uint8_t *p,
				int need_call, int depth, struct die_info *tmp, uint32_t *slot);

/*
 * The line gcc gives a member function that has no DW_AT_decl_line of its own: a lambda's
 * operator() (artificial, no declaration) and the members the compiler defines (copy
 * constructors, destructors) take the location of their class, and so do their offsets
 * in gcc's profile reader. The class is the type `this` points to (DW_AT_object_pointer).
 * 0 if die has no such parameter.
 */
static uint32_t class_decl_line(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	Dwarf_Die d;
	int i;

	if (!dwarf_formref_die(dwarf_attr_integrate(die, DW_AT_object_pointer, &attr), &d))
		return 0;
	for (i = 0; i < 8 && dwarf_formref_die(dwarf_attr(&d, DW_AT_type, &attr), &d); i++) {
		switch (dwarf_tag(&d)) {
		case DW_TAG_const_type: case DW_TAG_volatile_type: case DW_TAG_pointer_type:
		case DW_TAG_reference_type: case DW_TAG_rvalue_reference_type:
		case DW_TAG_restrict_type: case DW_TAG_typedef:
			continue;
		case DW_TAG_class_type: case DW_TAG_structure_type: case DW_TAG_union_type:
			return die_udata(&d, DW_AT_decl_line, 1);
		default:
			return 0;
		}
	}
	return 0;
}

/*
 * The compile unit die belongs to, as symbolize_sym_frame.unit; 0 if that says nothing about
 * where its function was compiled: a partial unit (dwz moves DIEs several units share
 * there), or one of gcc's link-time units ("<artificial>"), which hold the out-of-line
 * clones LTO makes (foo.isra.0) under declarations of their own, with no way back to the
 * unit of foo.
 */
static uint32_t unit_of_die(const struct symbolize_symtab *st, Dwarf_Die *die)
{
	Dwarf_Die cu;
	const char *name;
	uint64_t off;

	if (!dwarf_diecu(die, &cu, NULL, NULL) || dwarf_tag(&cu) != DW_TAG_compile_unit ||
	    ((name = dwarf_diename(&cu)) && !strcmp(name, "<artificial>")))
		return 0;
	off = dwarf_dieoffset(&cu);
	/* a split unit's offset is its .dwo's, the same in every .dwo: tell them apart by
	 * where libdw holds the DIE instead */
	if (dwarf_cu_getdwarf(cu.cu) != st->dwarf)
		off = (uint64_t)(uintptr_t)cu.addr >> 3;
	/* the unit DIE follows the unit's header: never 0 */
	return (uint32_t)off ? (uint32_t)off : 1;
}

/*
 * The key of a DIE in the caches: where libdw holds it, which tells apart DIEs of the
 * binary, of a dwz file and of each .dwo of -gsplit-dwarf (their offsets repeat).
 */
static uint64_t die_key(const Dwarf_Die *die)
{
	return (uint64_t)(uintptr_t)die->addr;
}

/*
 * Name and DW_AT_decl_line of die. An instance (inlined, or an out-of-line copy) that has
 * neither itself takes its abstract origin's, which dwarf_attr_integrate would reach by
 * following DW_AT_abstract_origin for each attribute: the origin is read once for all its
 * instances (sqlite3VdbeExec has thousands; following them was 8% of a convert).
 */
static void read_name(struct symbolize_symtab *st, Dwarf_Die *die, int depth, uint32_t *name,
		      uint32_t *decl_line, uint32_t *unit)
{
	Dwarf_Attribute attr;
	Dwarf_Die origin;

	if (depth < 8 && dwarf_hasattr(die, DW_AT_abstract_origin) &&
	    !dwarf_hasattr(die, DW_AT_linkage_name) && !dwarf_hasattr(die, DW_AT_MIPS_linkage_name) &&
	    !dwarf_hasattr(die, DW_AT_name) && !dwarf_hasattr(die, DW_AT_decl_line) &&
	    dwarf_formref_die(dwarf_attr(die, DW_AT_abstract_origin, &attr), &origin) &&
	    /* an origin in the same file (not a dwz alt file's) */
	    dwarf_cu_getdwarf(origin.cu) == dwarf_cu_getdwarf(die->cu)) {
		struct die_info tmp;
		const struct die_info *o = fn_info(st, SIZE_MAX, &origin, NULL, 0, depth + 1, &tmp, NULL);

		*name = o->name;
		*decl_line = o->decl_line;
		*unit = o->unit;
		return;
	}
	*unit = unit_of_die(st, die);
	*name = die_name(st, die);
	*decl_line = die_udata(die, DW_AT_decl_line, 1);
	if (!*decl_line && !dwarf_hasattr_integrate(die, DW_AT_decl_line))
		*decl_line = class_decl_line(die);
}

/* Unit cu's DIEs as symbolize/dies.h reads them (its scope tree's), or NULL. */
static const struct symbolize_dieunit *own_unit(const struct symbolize_symtab *st, size_t cu)
{
	return cu < st->nr_cus && st->have_tree[cu] ? st->trees[cu].unit : NULL;
}

/* Where die is in u's data, or NULL if in another unit or file. */
static const uint8_t *own_pos(const struct symbolize_dieunit *u, const Dwarf_Die *die)
{
	uintptr_t a = (uintptr_t)die->addr;

	return a > (uintptr_t)(u->info + u->unit_off) && a < (uintptr_t)u->end ? die->addr : NULL;
}

/* unit_of_die for the DIEs of unit cu, the same for all of them: asked once. */
static uint32_t own_unit_id(struct symbolize_symtab *st, size_t cu)
{
	if (!st->unit_ids && !(st->unit_ids = calloc(st->nr_cus, sizeof(*st->unit_ids))))
		return unit_of_die(st, &st->scope_dies[cu]);
	if (!st->unit_ids[cu])
		st->unit_ids[cu] = (uint64_t)unit_of_die(st, &st->scope_dies[cu]) + 1;
	return (uint32_t)(st->unit_ids[cu] - 1);
}

static uint32_t clamp_u32(uint64_t v)
{
	return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

/*
 * The DIEs dwarf_attr_integrate looks at: the DIE and up to 16 references along the chain
 * of its origins/specifications (libdw's `chain = 16` ... `while (chain-- != 0)`: 17 DIEs).
 */
#define INTEGRATE_MAX 17

/*
 * read_name for the DIE at p of unit cu (attributes a), from what symbolize/dies.h reads:
 * the same answers with one pass over each DIE's attributes instead of a libdw scan for
 * each attribute. Returns 0, or -1 where a form or a reference is libdw's to read.
 */
static int own_name(struct symbolize_symtab *st, size_t cu, const struct symbolize_dieunit *u,
		    const uint8_t *p, const struct symbolize_die_attrs *a, int depth, uint32_t *name,
		    uint32_t *decl_line, uint32_t *unit)
{
	enum { LINK, MIPS, NAME, DECL, NR };
	static const int slot[NR] = { SYMBOLIZE_AT_LINKAGE_NAME, SYMBOLIZE_AT_MIPS_LINKAGE_NAME,
				      SYMBOLIZE_AT_NAME, SYMBOLIZE_AT_DECL_LINE };
	struct symbolize_die_attr got[NR];
	struct symbolize_die_attrs next;
	const char *s = NULL;
	const uint8_t *q;
	uint64_t line = 0;
	int i, k, missing = NR;

	if (depth < 8 && a->at[SYMBOLIZE_AT_ABSTRACT_ORIGIN].form && !a->at[SYMBOLIZE_AT_LINKAGE_NAME].form &&
	    !a->at[SYMBOLIZE_AT_MIPS_LINKAGE_NAME].form && !a->at[SYMBOLIZE_AT_NAME].form &&
	    !a->at[SYMBOLIZE_AT_DECL_LINE].form) {
		const uint8_t *o = symbolize_die_ref(u, &a->at[SYMBOLIZE_AT_ABSTRACT_ORIGIN]);
		struct die_info tmp;
		const struct die_info *d;

		if (!o)
			return -1;
		d = fn_info(st, cu, NULL, o, 0, depth + 1, &tmp, NULL);
		*name = d->name;
		*decl_line = d->decl_line;
		*unit = d->unit;
		return 0;
	}
	/* each attribute from the first DIE of the chain that has it, as dwarf_attr_integrate */
	memset(got, 0, sizeof(got));
	for (i = 0;;) {
		const struct symbolize_die_attr *ref;

		for (k = 0; k < NR; k++)
			if (!got[k].form && a->at[slot[k]].form) {
				got[k] = a->at[slot[k]];
				missing--;
			}
		if (!missing || ++i == INTEGRATE_MAX)
			break;
		ref = a->at[SYMBOLIZE_AT_ABSTRACT_ORIGIN].form ? &a->at[SYMBOLIZE_AT_ABSTRACT_ORIGIN]
			: a->at[SYMBOLIZE_AT_SPECIFICATION].form ? &a->at[SYMBOLIZE_AT_SPECIFICATION] : NULL;
		if (!ref)
			break;
		if (!(q = symbolize_die_ref(u, ref)) || symbolize_die_attrs(u, q, &next) < 0)
			return -1;
		a = &next;
	}
	/* die_name: the linkage name (DW_AT_linkage_name's chain first), else the name */
	if (got[LINK].form || got[MIPS].form) {
		if (!(s = symbolize_die_string(u, got[LINK].form ? &got[LINK] : &got[MIPS])))
			return -1;
	} else if (got[NAME].form && !(s = symbolize_die_string(u, &got[NAME]))) {
		return -1;
	}
	if (got[DECL].form && symbolize_die_udata(u, &got[DECL], &line) < 0)
		return -1;
	*unit = own_unit_id(st, cu);
	*name = intern(st, s ? s : "[unknown]");
	*decl_line = clamp_u32(line);
	if (!got[DECL].form) {
		Dwarf_Die die;

		*decl_line = symbolize_die_libdw(u, p, &die) == 0 ? class_decl_line(&die) : 0;
	}
	return 0;
}
/* read_call for the DIE at p of unit cu (attributes a). Returns 0, or -1 as own_name. */
static int own_call(struct symbolize_symtab *st, size_t cu, const struct symbolize_dieunit *u,
		    const struct symbolize_die_attrs *a, struct die_info *d)
{
	const struct symbolize_die_attr *file = &a->at[SYMBOLIZE_AT_CALL_FILE];
	const struct symbolize_die_attr *line = &a->at[SYMBOLIZE_AT_CALL_LINE];
	const struct symbolize_die_attr *discr = &a->at[SYMBOLIZE_AT_DISCRIMINATOR];
	uint64_t f = 0, l = 0, c = 0;

	if ((file->form && symbolize_die_udata(u, file, &f) < 0) ||
	    (line->form && symbolize_die_udata(u, line, &l) < 0) ||
	    (discr->form && symbolize_die_udata(u, discr, &c) < 0))
		return -1;
	d->call_file = file->form ? file_of_index(st, &st->cus[cu], clamp_u32(f)) : SYMBOLIZE_NO_NAME;
	d->call_line = clamp_u32(l);
	d->call_discr = clamp_u32(c);
	d->has_call = 1;
	return 0;
}

/*
 * Name and DW_AT_decl_line of a subprogram or inlined-subroutine DIE, and the call site
 * of an inlined one (DW_AT_call_*), once per DIE: the names follow
 * DW_AT_abstract_origin/DW_AT_specification, and every line address of a function (the
 * explicit zeros) resolves the same few DIEs again; that lookup was a third of
 * convert's instructions on a 2777-sample recording. *tmp receives the result when it
 * cannot be kept (out of memory). The pointer is valid until the next call.
 * The DIE is die, of unit cu (SIZE_MAX: not known), or the one at p of unit cu as
 * symbolize/dies.h reads it (die NULL). need_call: read the call site too (die and cu
 * given); depth: how many abstract origins led here.
 */
static struct die_info *fn_info(struct symbolize_symtab *st, size_t cu, Dwarf_Die *die, const uint8_t *p,
				int need_call, int depth, struct die_info *tmp, uint32_t *slot)
{
	const struct symbolize_dieunit *u = own_unit(st, cu);
	struct symbolize_die_attrs a;
	struct die_info *d = tmp;
	uint64_t off, *v;
	const uint64_t *have = NULL;
	uint32_t name, decl_line, unit;
	Dwarf_Die mem;
	int ret, read = -1;            /* a: 1 read, -1 not (yet) */

	if (!p && u)
		p = own_pos(u, die);
	off = p ? (uint64_t)(uintptr_t)p : die_key(die);
	if (!slot)
		have = pgo_u64map_find(&st->fn_dies, off);
	/* a 0 slot: the DIE could not be kept (out of memory), read it again */
	if (slot ? *slot : have && *have) {
		d = &st->dies[(slot ? *slot : *have) - 1];
	} else {
		/* before taking a slot: reading an origin adds DIEs and moves st->dies */
		if (!p || (read = symbolize_die_attrs(u, p, &a)) < 0 ||
		    own_name(st, cu, u, p, &a, depth, &name, &decl_line, &unit) < 0) {
			if (die || symbolize_die_libdw(u, p, die = &mem) == 0) {
				read_name(st, die, depth, &name, &decl_line, &unit);
			} else {
				/* not for libdw either: as a DIE without attributes */
				name = intern(st, "[unknown]");
				decl_line = unit = 0;
			}
		}
		ret = slot ? 1 : pgo_u64map_get(&st->fn_dies, off, &v);
		if (ret >= 0 && PGO_ALLOC_GROW_UNINIT(st->dies, st->nr_dies + 1, st->alloc_dies) == 0) {
			d = &st->dies[st->nr_dies++];
			if (slot)
				*slot = (uint32_t)st->nr_dies;
			else
				*v = st->nr_dies;
		} else if (ret >= 0 && !slot) {
			*v = 0;
		}
		memset(d, 0, sizeof(*d));
		d->name = name;
		d->decl_line = decl_line;
		d->unit = unit;
	}
	if (need_call && !d->has_call &&
	    !(p && (read > 0 || symbolize_die_attrs(u, p, &a) > 0) && own_call(st, cu, u, &a, d) == 0))
		read_call(st, &st->cus[cu], die, d);
	return d;
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

/* frame.inl: the DIE's offset in the file that holds the unit's scopes, and the unit + 1 */
#define INL_UNIT_SHIFT 40
#define INL_OFF_MASK ((1ULL << INL_UNIT_SHIFT) - 1)

uint64_t symbolize_symtab_inline_entry(struct symbolize_symtab *st, uint64_t inl)
{
	size_t cu = (size_t)(inl >> INL_UNIT_SHIFT) - 1;
	const struct symbolize_dieunit *u = own_unit(st, cu);
	struct symbolize_die_attrs a;
	const uint8_t *p;
	Dwarf_Die die;
	Dwarf_Addr e;
	uint64_t *v, entry = 0;
	int ret, r;

	if (!inl || !st->dwarf)
		return 0;
	ret = pgo_u64map_get(&st->inl_entries, inl, &v);
	if (ret == 0)
		return *v - 1;
	/*
	 * dwarf_entrypc: DW_AT_entry_pc, else DW_AT_low_pc. Read by symbolize/dies.h where it
	 * can: libdw's first look at a unit's DIE reads its abbreviations again, 10k Ir a
	 * call on graphviz.
	 */
	if (u && (p = symbolize_die_pos(u, inl & INL_OFF_MASK)) && symbolize_die_attrs(u, p, &a) > 0 &&
	    (r = symbolize_die_addr(u, a.at[SYMBOLIZE_AT_ENTRY_PC].form ? &a.at[SYMBOLIZE_AT_ENTRY_PC]
				  : &a.at[SYMBOLIZE_AT_LOW_PC], &e)) >= 0) {
		if (r > 0)
			entry = e + st->dwbias;
	} else if (cu < st->nr_cus &&
		   dwarf_offdie(dwarf_cu_getdwarf(st->scope_dies[cu].cu), inl & INL_OFF_MASK, &die) &&
		   dwarf_entrypc(&die, &e) == 0) {
		entry = e + st->dwbias;
	}
	if (ret > 0)
		*v = entry + 1;
	return entry;
}

static int push_frame(struct symbolize_symtab *st, const struct symbolize_sym_frame *f)
{
	if (PGO_ALLOC_GROW_UNINIT(st->frames, st->nr_frames + 1, st->alloc_frames) < 0)
		return -1;
	st->frames[st->nr_frames++] = *f;
	return 0;
}

static uint64_t inl_handle(const struct symbolize_symtab *st, const Dwarf_Die *cudie, Dwarf_Die *die)
{
	return dwarf_dieoffset(die) | (uint64_t)(cudie - st->cus + 1) << INL_UNIT_SHIFT;
}

/*
 * fn_info for scope id of unit cu's tree: the DIE's entry is kept with the scope, so that
 * the chains that share it (every span of a function's addresses) find it without a hash
 * lookup, and without entering it in the hash table, which is for the origins many
 * instances share (a scope's DIE met again as an origin gets an equal entry of its own).
 */
static __attribute__((noinline)) struct die_info *scope_info_read(struct symbolize_symtab *st, size_t cu,
								  uint32_t id, int need_call,
								  struct die_info *tmp)
{
	struct symbolize_scopetree *t = &st->trees[cu];
	Dwarf_Die die;

	symbolize_scopetree_die(t, id, &die);
	return fn_info(st, cu, &die, NULL, need_call, 0, tmp, symbolize_scopetree_user(t, id));
}

/* inline, the reading out of line: the entry is there for most chains */
static inline struct die_info *scope_info(struct symbolize_symtab *st, size_t cu, uint32_t id, int need_call,
					  struct die_info *tmp)
{
	uint32_t slot = *symbolize_scopetree_user(&st->trees[cu], id);

	if (slot && (!need_call || st->dies[slot - 1].has_call))
		return &st->dies[slot - 1];
	return scope_info_read(st, cu, id, need_call, tmp);
}

/*
 * The frames of chain ids[0..n) of unit cu's tree, its subprograms and inlined subroutines
 * outermost first, into out; the innermost one's file, line and discriminator are left for
 * the caller (the address's row). Returns how many.
 */
static int chain_frames(struct symbolize_symtab *st, size_t cu, const uint32_t *ids, int n,
			struct symbolize_sym_frame *out)
{
	struct symbolize_scopetree *t = &st->trees[cu];
	int i, k, fn[MAX_DEPTH], nfn = 0;

	for (i = 0; i < n; i++) {
		int tag = symbolize_scopetree_tag(t, ids[i]);

		if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine)
			fn[nfn++] = i;
	}
	for (k = 0; k < nfn; k++) {
		struct die_info tmp, *d = scope_info(st, cu, ids[fn[k]], 0, &tmp);
		struct symbolize_sym_frame *f = &out[k];

		f->name = d->name;
		f->start_line = d->decl_line;
		f->unit = d->unit;
		f->file = SYMBOLIZE_NO_NAME;
		f->line = f->discr = 0;
		f->inl = 0;
		if (k) {
			Dwarf_Die die;

			symbolize_scopetree_die(t, ids[fn[k]], &die);
			f->inl = inl_handle(st, &st->cus[cu], &die);
		}
		if (k + 1 < nfn) {
			/* this frame's line is where the next inner frame was inlined */
			d = scope_info(st, cu, ids[fn[k + 1]], 1, &tmp);
			f->file = d->call_file;
			f->line = d->call_line;
			f->discr = d->call_discr;
		}
	}
	return nfn;
}

/* A row's file, line and discriminator into the innermost frame f. */
static void row_leaf(struct symbolize_symtab *st, struct cu_lines *l, const struct symbolize_line *row,
		     struct symbolize_sym_frame *f)
{
	f->file = file_id(st, l, row->file);
	f->line = row->line > 0 ? (uint32_t)row->line : 0;
	f->discr = row->discr;
}

/* The line-table row of pc in cudie's unit: file, line, discriminator; zeros if none. */
static void leaf_of(struct symbolize_symtab *st, Dwarf_Die *cudie, struct cu_lines *l, Dwarf_Addr pc,
		    struct symbolize_sym_frame *f)
{
	Dwarf_Line *dl;

	f->file = SYMBOLIZE_NO_NAME;
	f->line = f->discr = 0;
	if (l) {
		size_t ix = symbolize_linetab_find(&l->t, pc);

		if (ix != SIZE_MAX)
			row_leaf(st, l, symbolize_linetab_row(&l->t, ix), f);
	} else if ((dl = dwarf_getsrc_die(cudie, pc))) {
		int line = 0;
		unsigned int disc = 0;

		dwarf_lineno(dl, &line);
		dwarf_linediscriminator(dl, &disc);
		f->file = intern_file(st, dwarf_linesrc(dl, NULL, NULL));
		f->line = line > 0 ? (uint32_t)line : 0;
		f->discr = disc;
	}
}

/*
 * The frames of pc's inline chain in cudie's unit, the innermost without its line, into
 * out. Addresses are mostly asked about in order (the sampled ones sorted, a function's
 * lines): the last chain is reused while pc stays where no scope begins or ends. With
 * gen, out holds the chain of span generation *gen already and is not copied again while
 * it is the same (but for the innermost frame's line, which the caller sets): the copy
 * for each line of a function was 1% of a convert.
 */
static int frames_at(struct symbolize_symtab *st, Dwarf_Die *cudie, Dwarf_Addr pc,
		     struct symbolize_sym_frame *out, uint64_t *gen)
{
	size_t cu = (size_t)(cudie - st->cus);
	struct span *sp = &st->span;

	if (!sp->valid || sp->cu != cu || pc < sp->lo || pc >= sp->end) {
		uint32_t chain[MAX_DEPTH];
		int n;

		sp->valid = 0;
		if (!st->have_tree[cu]) {
			if (symbolize_scopetree_build(&st->trees[cu], &st->scope_dies[cu],
						    st->have_secs ? &st->secs : NULL,
						    MAX_DEPTH) < 0)
				return 0;
			st->have_tree[cu] = 1;
		}
		n = symbolize_scopetree_chain_ids(&st->trees[cu], pc, chain, MAX_DEPTH, &sp->end);
		if (n < 0)
			return 0;
		sp->nr = chain_frames(st, cu, chain, n, sp->frames);
		sp->cu = cu;
		sp->lo = pc;
		sp->valid = 1;
		sp->gen++;
	}
	if (!gen || *gen != sp->gen) {
		memcpy(out, sp->frames, (size_t)sp->nr * sizeof(*out));
		if (gen)
			*gen = sp->gen;
	}
	return sp->nr;
}

/* Build the inline chain of addr into st->frames, outermost first. */
static void resolve_frames(struct symbolize_symtab *st, uint64_t addr, struct cached *c)
{
	struct symbolize_sym_frame frames[MAX_DEPTH];
	struct cu_lines *l;
	Dwarf_Die *cudie;
	Dwarf_Addr pc;
	int n, k;

	c->first = st->nr_frames;
	c->nr = 0;
	cudie = unit_of(st, addr, 1, &l);
	if (!cudie)
		return;
	pc = addr - st->dwbias;
	n = frames_at(st, cudie, pc, frames, NULL);
	if (n)
		leaf_of(st, cudie, l, pc, &frames[n - 1]);
	for (k = 0; k < n; k++) {
		if (push_frame(st, &frames[k]) < 0)
			return;
		c->nr++;
	}
}

/* Resolve addr into c: its ELF symbol and its inline chain, appended to st->frames. */
static void resolve(struct symbolize_symtab *st, uint64_t addr, struct cached *c)
{
	const struct fsym *fs = sym_of(st, addr);

	memset(c, 0, sizeof(*c));
	c->sym_name = fs ? fs->name : SYMBOLIZE_NO_NAME;
	c->sym_start = fs ? fs->start : 0;
	c->sym_size = fs ? fs->size : 0;
	resolve_frames(st, addr, c);
}

static struct symbolize_sym sym_view(const struct symbolize_symtab *st, const struct cached *c)
{
	struct symbolize_sym out;

	out.sym_name = c->sym_name;
	out.sym_start = c->sym_start;
	out.sym_size = c->sym_size;
	out.nr_frames = c->nr;
	out.frames = c->nr ? &st->frames[c->first] : NULL;
	return out;
}

struct symbolize_sym symbolize_symtab_lookup(struct symbolize_symtab *st, uint64_t addr)
{
	struct symbolize_sym out = { SYMBOLIZE_NO_NAME, 0, 0, 0, NULL };
	uint64_t *slot;
	struct cached *c;
	int ret;

	ret = pgo_u64map_get(&st->cache, addr, &slot);
	if (ret < 0)
		return out;
	if (ret == 0)
		return sym_view(st, &st->results[*slot - 1]);
	if (PGO_ALLOC_GROW_UNINIT(st->results, st->nr_results + 1, st->alloc_results) < 0) {
		*slot = 0;
		return out;
	}
	c = &st->results[st->nr_results++];
	*slot = st->nr_results;
	resolve(st, addr, c);
	return sym_view(st, c);
}

/*
 * Resolve addr as symbolize_symtab_lookup does, without keeping the result unless it was
 * cached already: for addresses asked about once. Valid until the next lookup.
 */
static struct symbolize_sym resolve_once(struct symbolize_symtab *st, uint64_t addr)
{
	const uint64_t *slot = pgo_u64map_find(&st->cache, addr);
	struct symbolize_sym out;
	struct cached c;

	/* a 0 slot: lookup could not keep it */
	if (slot && *slot)
		return sym_view(st, &st->results[*slot - 1]);
	resolve(st, addr, &c);
	out = sym_view(st, &c);
	/* give the frames back: they stay in place until the next lookup appends */
	st->nr_frames = c.first;
	return out;
}

/* A walk over a unit's rows in [start, start + size) (module addresses), once per address. */
struct row_walk {
	const struct symbolize_linetab *t;
	size_t i;
	uint64_t start, size, bias, prev;
	bool have_prev;
};

static void walk_init(struct row_walk *w, const struct symbolize_linetab *t, uint64_t start,
		      uint64_t size, uint64_t bias)
{
	w->t = t;
	w->i = start < bias ? t->nr_rows : symbolize_linetab_lower(t, start - bias);
	w->start = start;
	w->size = size;
	w->bias = bias;
	w->have_prev = false;
}

/* The next row at a new address (*addr), or NULL; rows sharing an address are adjacent. */
static const struct symbolize_line *walk_next(struct row_walk *w, uint64_t *addr)
{
	for (; w->i < w->t->nr_rows; w->i++) {
		const struct symbolize_line *r = symbolize_linetab_row(w->t, w->i);
		uint64_t a = symbolize_line_addr(w->t, r) + w->bias;

		if (a - w->start >= w->size)
			break;
		if (r->end_seq || (w->have_prev && a == w->prev))
			continue;
		w->have_prev = true;
		w->prev = *addr = a;
		w->i++;
		return r;
	}
	return NULL;
}

int symbolize_symtab_foreach_line_addr(struct symbolize_symtab *st, uint64_t start, uint64_t size,
				     int (*fn)(uint64_t addr, void *data), void *data)
{
	Dwarf_Die *cudie;
	Dwarf_Addr cubias;
	Dwarf_Lines *lines;
	struct cu_lines *cl;
	Dwarf_Addr prev = 0;
	bool have_prev = false;
	size_t nlines, i, lo, hi;

	cubias = st->dwbias;
	cudie = unit_of(st, start, size, &cl);
	if (!cudie)
		return 0;
	if (cl) {
		struct row_walk w;
		uint64_t a;
		int ret;

		walk_init(&w, &cl->t, start, size, cubias);
		while (walk_next(&w, &a))
			if ((ret = fn(a, data)))
				return ret;
		return 0;
	}
	if (dwarf_getsrclines(cudie, &lines, &nlines) != 0)
		return 0;
	/* libdw sorts a CU's rows by address: binary search the first one >= start */
	lo = 0;
	hi = nlines;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		Dwarf_Addr a;

		if (dwarf_lineaddr(dwarf_onesrcline(lines, mid), &a) != 0 || a + cubias < start)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* equal addresses may precede lo in another sequence: back up over them */
	while (lo > 0) {
		Dwarf_Addr a;

		if (dwarf_lineaddr(dwarf_onesrcline(lines, lo - 1), &a) != 0 || a + cubias < start)
			break;
		lo--;
	}
	for (i = lo; i < nlines; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		Dwarf_Addr a;
		bool end;
		int ret;

		if (!l || dwarf_lineaddr(l, &a) != 0 || dwarf_lineendsequence(l, &end) != 0)
			continue;
		a += cubias;
		if (a - start >= size && a >= start)
			break;
		/* rows that share an address (views, is_stmt changes) are adjacent: one call */
		if (end || a < start || (have_prev && a == prev))
			continue;
		have_prev = true;
		prev = a;
		ret = fn(a, data);
		if (ret)
			return ret;
	}
	return 0;
}

struct each_addr {
	struct symbolize_symtab *st;
	int (*fn)(const struct symbolize_sym *sym, void *data);
	void *data;
};

static int resolve_each(uint64_t addr, void *data)
{
	struct each_addr *e = data;
	struct symbolize_sym sym = resolve_once(e->st, addr);

	return e->fn(&sym, e->data);
}

/*
 * The unit cu_of gives pc (NULL if none), through *span: the addresses [lo, hi) where it
 * gives span->cu without a search, those of the range it found below the next range's
 * start. For the lines of a function, one per row: the call was 1% of a convert.
 */
struct cu_span {
	uint64_t lo, hi;
	Dwarf_Die *cu;
};

static Dwarf_Die *cu_of_span(struct symbolize_symtab *st, Dwarf_Addr pc, struct cu_span *span)
{
	const struct cu_range *r;
	Dwarf_Die *cu;

	if (pc >= span->lo && pc < span->hi)
		return span->cu;
	cu = cu_of(st, pc);
	span->lo = span->hi = 0;
	if (cu && st->last_range < st->nr_ranges) {
		r = &st->ranges[st->last_range];
		/* what cu_of's first test takes: ranges sorted by start make it the only answer */
		if (pc >= r->lo && pc < r->hi && (st->last_range + 1 == st->nr_ranges || pc < r[1].lo)) {
			span->lo = r->lo;
			span->hi = st->last_range + 1 == st->nr_ranges || r->hi < r[1].lo ? r->hi : r[1].lo;
			span->cu = cu;
		}
	}
	return cu;
}

int symbolize_symtab_foreach_line(struct symbolize_symtab *st, uint64_t start, uint64_t size,
				int (*fn)(const struct symbolize_sym *sym, void *data), void *data)
{
	struct each_addr e = { st, fn, data };
	struct symbolize_sym_frame frames[MAX_DEPTH];
	struct cu_span span = { 0, 0, NULL };
	const struct fsym *fs = NULL;
	uint64_t fs_lo = 1, fs_hi = 0;  /* the addresses fs holds for (none yet) */
	size_t cu;
	struct row_walk w;
	Dwarf_Die *cudie;
	Dwarf_Addr cubias, pc;
	struct cu_lines *l;
	uint64_t a, gen = 0;           /* frames holds span generation gen's chain (0: none) */
	int32_t prev = 0;
	bool have_prev = false;
	size_t i;
	int ret;

	cubias = st->dwbias;
	cudie = unit_of(st, start, size, &l);
	if (!cudie)
		return 0;
	if (!l)
		return symbolize_symtab_foreach_line_addr(st, start, size, resolve_each, &e);
	cu = (size_t)(cudie - st->cus);
	walk_init(&w, &l->t, start, size, cubias);
	/*
	 * walk_next's walk, with the rows of one address taken together: the last of them is
	 * dwarf_getsrc_die's row for it (ends sort first). The table is looked up again after
	 * each call out (a lookup may read it again).
	 */
	for (i = w.i; i < l->t.nr_rows;) {
		const struct symbolize_line *r = symbolize_linetab_row(&l->t, i), *last = r;
		const struct symbolize_line *rend = l->t.rows + l->t.nr_rows;
		struct symbolize_sym sym;

		a = symbolize_line_addr(&l->t, r) + cubias;
		if (a - start >= size)
			break;
		if (r->end_seq || (have_prev && r->off == prev)) {
			i++;
			continue;
		}
		have_prev = true;
		prev = r->off;
		while (last + 1 < rend && last[1].off == r->off)
			last++;
		i = (size_t)(last - l->t.rows) + 1;
		/* resolved here as lookup would, sampled or not: cheaper than asking the cache */
		pc = a - cubias;
		if (cu_of_span(st, pc, &span) != cudie) {
			/* claimed by another unit's ranges: as lookup has it */
			sym = resolve_once(st, a);
		} else {
			/*
			 * Rows come in address order: the chain changes only at a scope boundary.
			 * frames_at's test that frames holds it, inline (the call per row was
			 * 1% of a convert).
			 */
			const struct span *sp = &st->span;
			int nfr = sp->valid && sp->cu == cu && pc >= sp->lo && pc < sp->end && gen == sp->gen
				  ? sp->nr : frames_at(st, cudie, pc, frames, &gen);

			/* the previous row's symbol, while no other symbol starts in between */
			if (a < fs_lo || a >= fs_hi) {
				fs = sym_of(st, a);
				fs_lo = 1;
				fs_hi = 0;
				if (fs) {
					fs_lo = fs->start;
					fs_hi = fs + 1 < st->syms + st->nr_syms ? fs[1].start : UINT64_MAX;
					if (fs->size && fs->size < fs_hi - fs->start)
						fs_hi = fs->start + fs->size;
				}
			}
			sym.sym_name = fs ? fs->name : SYMBOLIZE_NO_NAME;
			sym.sym_start = fs ? fs->start : 0;
			sym.sym_size = fs ? fs->size : 0;
			if (nfr)
				row_leaf(st, l, last, &frames[nfr - 1]);
			sym.nr_frames = (uint32_t)nfr;
			sym.frames = nfr ? frames : NULL;
		}
		if ((ret = fn(&sym, data)))
			return ret;
	}
	return 0;
}
