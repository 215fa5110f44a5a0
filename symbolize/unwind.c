// SPDX-License-Identifier: MIT
/*
 * DWARF unwinding of sampled user stacks with libdwfl (symbolize/unwind.h). perf builds
 * and throws away a Dwfl for every sample, re-reading every ELF and its CFI; here each
 * address space keeps its Dwfl, shared with the children it forks while their mappings
 * are the same, so the CFI of a file is parsed once and libdw's FDE cache stays warm
 * across samples and processes.
 */
#include <elfutils/libdwfl.h>
#include <dwarf.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "symbolize/unwind.h"
#include "lib/alloc.h"
#include "lib/cow.h"
#include "lib/hashmap.h"
#include "lib/report.h"

/* perf's x86-64 register numbers (arch/x86/include/uapi/asm/perf_regs.h) */
enum {
	PR_AX = 0, PR_BX, PR_CX, PR_DX, PR_SI, PR_DI, PR_BP, PR_SP, PR_IP,
	PR_R8 = 16,
};
/* The DWARF x86-64 numbering libdwfl wants: rax rdx rcx rbx rsi rdi rbp rsp r8..r15 rip */
static const int dwarf_from_perf[17] = {
	PR_AX, PR_DX, PR_CX, PR_BX, PR_SI, PR_DI, PR_BP, PR_SP,
	PR_R8, PR_R8 + 1, PR_R8 + 2, PR_R8 + 3, PR_R8 + 4, PR_R8 + 5, PR_R8 + 6, PR_R8 + 7,
	PR_IP,
};

/* What the search for a file's separate debug file found (cb_find_debuginfo). */
enum uw_debug {
	UW_DEBUG_NONE = 1,         /* no debug file */
	UW_DEBUG_NO_FRAME,         /* one without .debug_frame */
	UW_DEBUG_FRAME,            /* one with .debug_frame (or that could not be checked) */
};

/* Reads this far above SP are stack reads the copy did not cover. */
#define STACK_REACH (64ULL << 20)

struct uw_map {
	uint64_t start, end, pgoff;
	uint32_t path;             /* id in u->paths */
};

/*
 * A Dwfl with the modules of one set of mappings (a maps block), shared by the processes
 * that have that very block: a parent and the children it forked, until one of them maps
 * or unmaps a file (lib/cow then gives that one a block of its own). libdwfl reads a
 * module's ELF and parses its CFI once per Dwfl, so sharing makes a shell's thousands of
 * subshells cost what the shell costs; a Dwfl of their own re-read the shell's and libc's
 * CFI each (converting mksh's training: 25 s CPU).
 */
struct uw_sess {
	size_t refs;                   /* spaces holding it */
	struct pgo_cow *maps;          /* the block it is for (a reference) */
	size_t modules;                /* modules in dwfl */
	Dwfl *dwfl;                    /* NULL: not built (yet, or again after the budget of
					  live modules dropped it); the next holder sampled does */
	int attached;
};

struct uw_space {
	uint32_t pid;
	int sampled;                   /* counted in st.processes */
	struct pgo_cow *maps;          /* struct uw_map, shared copy-on-write with forks */
	struct uw_sess *sess;          /* its Dwfl, or NULL: none (yet, or after EXIT) */
};

struct symbolize_unwind {
	struct uw_space *spaces;
	size_t nr_spaces, alloc_spaces;
	struct pgo_u64map pid2space;   /* pid -> index + 1 */
	struct pgo_strtab paths;
	struct pgo_u64map debug_of;    /* path id -> enum uw_debug: its separate debug file */
	struct symbolize_unwind_stats st;
	size_t live_modules;           /* in all spaces' Dwfls */
	struct pgo_cow_budget maps_budget; /* mapping entries of all spaces */
	Dwfl_Callbacks cb;
	char *debuginfo_path;

	/* the sample being unwound */
	Dwarf_Word regs[17];
	uint64_t sp;
	const unsigned char *stack;
	uint64_t stack_len;
	uint64_t max_read;             /* highest stack byte read + 1, relative to sp */
	int past_stack;                /* a read above the copy failed */
	int read_failed;               /* any read failed */
	struct symbolize_unwind_frame *out;
	size_t nout, max;
	enum symbolize_unwind_end end;  /* how the last unwind ended */
	uint64_t fr_sp[SYMBOLIZE_UNWIND_MAX_FRAMES + 1]; /* fp joins: each frame's %rsp, %rbp */
	uint64_t fr_bp[SYMBOLIZE_UNWIND_MAX_FRAMES + 1]; /* (UINT64_MAX: unknown) */
	int want_regs;
	int strict;                    /* symbolize_unwind_set_strict() */
	int no_cfi_stop;               /* the last unwind stopped at a frame without CFI */

	uint32_t *needed;              /* stack bytes of each complete unwind */
	size_t nr_needed, alloc_needed;
	int needed_sorted;
};

/* Whether the ELF file fd may have DWARF CFI: a section named like .debug_frame. */
static int may_have_debug_frame(int fd)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	int ret = 1;

	if (!elf || elf_kind(elf) != ELF_K_ELF || elf_getshdrstrndx(elf, &shstrndx))
		goto out;
	ret = 0;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh)) {
			ret = 1;
			break;
		}
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		/* .debug_frame, .zdebug_frame, .debug_frame.dwo, .gnu.debuglto_.debug_frame */
		if (!name || strstr(name, "debug_frame")) {
			ret = 1;
			break;
		}
	}
out:
	elf_end(elf);
	return ret;
}

/*
 * libdwfl looks for DWARF CFI (.debug_frame) when a frame's address has none in
 * .eh_frame, and for that opens the module's separate debug file (libc6-dbg's for libc)
 * and makes a Dwarf of it, which decompresses all its .debug_* sections: 4 MB of zlib
 * for libc, in each Dwfl. Distribution debug files have no .debug_frame (x86-64 code
 * has .eh_frame), so that Dwarf never had CFI to give: a debug file without a section
 * of that name is not handed to libdwfl, which then has no CFI from it, as before. What
 * the search found is kept per file, so it runs once (the Dwfls of processes that exec
 * the same programs, each with its own load addresses, cannot be shared). Converting
 * mksh's training (2403 execs of printf): zlib was 89% of the CPU time. libdwfl also
 * asks here for a dwz alt file (.gnu_debugaltlink) of a file with DWARF; that holds no
 * CFI either, so the same answer does for it.
 */
static int cb_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			     GElf_Addr base, const char *file_name, const char *debuglink_file,
			     GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	struct symbolize_unwind *u = *userdata;
	long id = u && file_name ? pgo_strtab_find(&u->paths, file_name) : -1;
	uint64_t *state = id >= 0 ? pgo_u64map_find(&u->debug_of, (uint64_t)id) : NULL;
	int fd;

	if (state && *state != UW_DEBUG_FRAME)
		return -1;
	fd = dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name,
					  debuglink_file, debuglink_crc, debuginfo_file_name);
	if (!state && id >= 0) {
		uint64_t st = fd < 0 ? UW_DEBUG_NONE :
			      may_have_debug_frame(fd) ? UW_DEBUG_FRAME : UW_DEBUG_NO_FRAME;

		/* on allocation failure the search merely runs again next time */
		if (pgo_u64map_put(&u->debug_of, (uint64_t)id, st) == 0 && st == UW_DEBUG_NO_FRAME) {
			close(fd);
			free(*debuginfo_file_name);
			*debuginfo_file_name = NULL; /* libdwfl would open it by name */
			return -1;
		}
	}
	if (fd >= 0 && u)
		u->st.debug_files++;
	return fd;
}

int symbolize_unwind_new(struct symbolize_unwind **out)
{
	struct symbolize_unwind *u = pgo_calloc(1, sizeof(*u));

	*out = NULL;
	if (!u)
		return -1;
	u->maps_budget.max = SYMBOLIZE_UNWIND_MAX_LIVE_MAPS;
	elf_version(EV_CURRENT);
	/* standard search: the file itself, .gnu_debuglink, /usr/lib/debug/.build-id */
	u->cb.find_elf = dwfl_build_id_find_elf;
	u->cb.find_debuginfo = cb_find_debuginfo;
	u->cb.section_address = dwfl_offline_section_address;
	u->cb.debuginfo_path = &u->debuginfo_path;
	*out = u;
	return 0;
}

static struct uw_map *space_maps(const struct uw_space *sp)
{
	return PGO_COW_ELEMS(sp->maps, struct uw_map);
}

/* Back to not built: its holders keep it, the next one sampled builds it again. */
static void sess_empty(struct symbolize_unwind *u, struct uw_sess *s)
{
	u->live_modules -= s->modules;
	s->modules = 0;
	dwfl_end(s->dwfl);
	s->dwfl = NULL;
	s->attached = 0;
}

/* A new sess for block maps, not built, held by one space. */
static struct uw_sess *sess_new(struct pgo_cow *maps)
{
	struct uw_sess *s = pgo_calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->refs = 1;
	s->maps = pgo_cow_share(maps);
	return s;
}

/* Drop the reference of space sp to its sess (the last frees it). */
static void space_drop_sess(struct symbolize_unwind *u, struct uw_space *sp)
{
	struct uw_sess *s = sp->sess;

	sp->sess = NULL;
	if (!s || --s->refs)
		return;
	sess_empty(u, s);
	pgo_cow_release(&s->maps);
	free(s);
}

void symbolize_unwind_free(struct symbolize_unwind *u)
{
	size_t i;

	if (!u)
		return;
	for (i = 0; i < u->nr_spaces; i++) {
		space_drop_sess(u, &u->spaces[i]);
		pgo_cow_release(&u->spaces[i].maps);
	}
	free(u->spaces);
	free(u->needed);
	pgo_u64map_release(&u->pid2space);
	pgo_u64map_release(&u->debug_of);
	pgo_strtab_release(&u->paths);
	free(u);
}

const struct symbolize_unwind_stats *symbolize_unwind_stats(const struct symbolize_unwind *u)
{
	return &u->st;
}

static struct uw_space *space_find(struct symbolize_unwind *u, uint32_t pid)
{
	uint64_t *v = pgo_u64map_find(&u->pid2space, pid);

	return v ? &u->spaces[*v - 1] : NULL;
}

static struct uw_space *space_get(struct symbolize_unwind *u, uint32_t pid)
{
	struct uw_space *sp = space_find(u, pid);

	if (sp)
		return sp;
	if (PGO_ALLOC_GROW(u->spaces, u->nr_spaces + 1, u->alloc_spaces) < 0)
		return NULL;
	sp = &u->spaces[u->nr_spaces];
	memset(sp, 0, sizeof(*sp));
	sp->pid = pid;
	if (pgo_u64map_put(&u->pid2space, pid, u->nr_spaces + 1) < 0)
		return NULL;
	u->nr_spaces++;
	return sp;
}

static int is_special(const char *path)
{
	return path[0] != '/' || !strncmp(path, "//", 2) || !strncmp(path, "/memfd:", 7) ||
	       strstr(path, " (deleted)") != NULL;
}

int symbolize_unwind_mmap(struct symbolize_unwind *u, uint32_t pid, uint64_t start, uint64_t len,
			uint64_t pgoff, const char *path)
{
	struct uw_space *sp;
	struct uw_map *m;
	uint64_t end = start + len;
	size_t i, nr, keep = 0;
	long id;
	int own;

	if (!len || end < start || is_special(path))
		return 0;
	sp = space_get(u, pid);
	if (!sp)
		return -1;
	id = pgo_strtab_intern(&u->paths, path);
	if (id < 0)
		return -1;
	nr = pgo_cow_nr(sp->maps);
	for (i = 0; i < nr; i++) {
		m = &space_maps(sp)[i];
		if (m->start == start && m->end == end && m->pgoff == pgoff && m->path == (uint32_t)id)
			return 0; /* the same mapping again (ld.so remaps segments in place) */
	}
	own = pgo_cow_own(&sp->maps, nr + 1, sizeof(*m), &u->maps_budget);
	if (own == -2) {
		u->st.maps_dropped++;
		return 0;
	}
	if (own)
		return -1;
	if (nr >= SYMBOLIZE_UNWIND_MAX_MAPS) {
		/* only a full table can stay full: a mapping that replaces others still fits */
		for (i = 0; i < nr; i++)
			if (space_maps(sp)[i].start < end && start < space_maps(sp)[i].end)
				break;
		if (i == nr) {
			u->st.maps_dropped++;
			return 0;
		}
	}
	/*
	 * An overlapped mapping goes away; the kept ones stay in order and the new one comes
	 * last, so a Dwfl built for the old block still fits when its block is a prefix of
	 * the new one (space_ready).
	 */
	for (i = 0; i < nr; i++) {
		m = &space_maps(sp)[i];
		if (!(m->start < end && start < m->end))
			space_maps(sp)[keep++] = *m;
	}
	m = &space_maps(sp)[keep];
	m->start = start;
	m->end = end;
	m->pgoff = pgoff;
	m->path = (uint32_t)id;
	sp->maps->nr = keep + 1;
	return 0;
}

static int space_ready(struct symbolize_unwind *u, struct uw_space *sp);
static int maps_extend(const struct pgo_cow *b, const struct pgo_cow *a);

int symbolize_unwind_fork(struct symbolize_unwind *u, uint32_t pid, uint32_t ppid)
{
	struct uw_space *child, *parent;
	size_t pidx;

	if (pid == ppid)
		return 0;
	parent = space_find(u, ppid);
	pidx = parent ? (size_t)(parent - u->spaces) : 0;
	child = space_get(u, pid);
	if (!child)
		return -1;
	space_drop_sess(u, child); /* a reused pid */
	pgo_cow_release(&child->maps);
	child->sampled = 0;
	if (!parent)
		return 0;
	parent = &u->spaces[pidx]; /* spaces may have moved */
	child->maps = pgo_cow_share(parent->maps);
	if (!child->maps)
		return 0;
	if (parent->sess && parent->sess->maps != parent->maps) {
		/*
		 * The parent mapped files since its sess was made. This child and its later
		 * siblings have the parent's new block: they share a sess for it, the old one
		 * with the new files added if it is built and the parent's alone, else a new
		 * one.
		 */
		if (parent->sess->refs == 1 && parent->sess->dwfl &&
		    maps_extend(parent->maps, parent->sess->maps)) {
			if (space_ready(u, parent) < 0)
				return -1;
		} else {
			space_drop_sess(u, parent);
		}
	}
	if (!parent->sess) {
		/* built by whichever of the family is sampled first */
		parent->sess = sess_new(parent->maps);
		if (!parent->sess)
			return -1;
	}
	child->sess = parent->sess;
	child->sess->refs++;
	return 0;
}

void symbolize_unwind_exit(struct symbolize_unwind *u, uint32_t pid)
{
	struct uw_space *sp = space_find(u, pid);

	/*
	 * A shell's subshells each parse the CFI of the shell and libc into a Dwfl of their
	 * own; kept until the budget of live modules forced a flush, converting mksh's
	 * training peaked at 4.5 GB.
	 */
	if (sp)
		space_drop_sess(u, sp);
}

void symbolize_unwind_exec(struct symbolize_unwind *u, uint32_t pid)
{
	struct uw_space *sp = space_find(u, pid);

	if (!sp)
		return;
	space_drop_sess(u, sp);
	pgo_cow_release(&sp->maps);
}

/* ---- building the Dwfl of a space ---- */

/*
 * Load bias of the file mapped at start with file offset pgoff: the PT_LOAD segment that
 * holds pgoff says which link-time address sits at start.
 */
static int map_bias(int fd, const struct uw_map *m, uint64_t *bias)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	size_t phnum = 0, i;
	int ret = -1;

	if (!elf || elf_kind(elf) != ELF_K_ELF || elf_getphdrnum(elf, &phnum))
		goto out;
	for (i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (m->pgoff >= ph.p_offset && m->pgoff < ph.p_offset + ph.p_filesz) {
			*bias = m->start - (ph.p_vaddr + (m->pgoff - ph.p_offset));
			ret = 0;
			break;
		}
	}
out:
	elf_end(elf);
	return ret;
}

/* Add mapping k of block maps to s->dwfl, which has the mappings before k already. */
static void report_map(struct symbolize_unwind *u, struct uw_sess *s, const struct uw_map *maps,
		       size_t k)
{
	const struct uw_map *m = &maps[k], *o;
	const char *path = pgo_strtab_str(&u->paths, m->path), *base;
	Dwfl_Module *mod;
	void **userdata;
	struct stat sb;
	uint64_t bias;
	size_t i;
	int fd;

	/* a file mapped in several executable pieces is one module */
	for (i = 0; i < k; i++) {
		o = &maps[i];
		if (o->path == m->path && o->start - o->pgoff == m->start - m->pgoff)
			return;
	}
	/* the path comes from the perf.data: never block on a FIFO, never read a device */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd >= 0 && (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode))) {
		close(fd);
		fd = -1;
	}
	if (fd < 0) {
		pgo_debug(1, "unwind: cannot open '%s'; its frames end the stacks", path);
		return;
	}
	if (map_bias(fd, m, &bias) < 0) {
		close(fd);
		return;
	}
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	/* ET_DYN: bias relative to p_vaddr; ET_EXEC: ignored (fixed addresses). Takes fd. */
	mod = dwfl_report_elf(s->dwfl, base, path, fd, bias, true);
	if (!mod) {
		pgo_debug(1, "unwind: '%s' not used: %s", path, dwfl_errmsg(-1));
		close(fd);
		return;
	}
	u->st.modules++;
	u->live_modules++;
	s->modules++;
	/* for cb_find_debuginfo */
	dwfl_module_info(mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
	*userdata = u;
}

static pid_t cb_next_thread(Dwfl *dwfl, void *dwfl_arg, void **thread_argp)
{
	(void)dwfl;
	(void)dwfl_arg;
	(void)thread_argp;
	return 0; /* only ever asked for one thread by tid (get_thread) */
}

static bool cb_get_thread(Dwfl *dwfl, pid_t tid, void *dwfl_arg, void **thread_argp)
{
	(void)dwfl;
	(void)tid;
	*thread_argp = dwfl_arg;
	return true;
}

/* A word of a mapped file (read-only data, a PLT) at addr, as the file on disk has it. */
static bool read_module_word(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result)
{
	Dwfl_Module *mod = dwfl_addrmodule(dwfl, addr);
	size_t phnum = 0, i, size;
	GElf_Addr bias;
	const char *raw;
	Elf *elf;

	elf = mod ? dwfl_module_getelf(mod, &bias) : NULL;
	if (!elf || elf_getphdrnum(elf, &phnum))
		return false;
	raw = elf_rawfile(elf, &size);
	for (i = 0; raw && i < phnum; i++) {
		GElf_Phdr ph;
		uint64_t rel = addr - bias;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (rel >= ph.p_vaddr && rel + 8 <= ph.p_vaddr + ph.p_filesz &&
		    ph.p_offset + (rel - ph.p_vaddr) + 8 <= size) {
			memcpy(result, raw + ph.p_offset + (rel - ph.p_vaddr), 8);
			return true;
		}
	}
	return false;
}

static bool cb_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *dwfl_arg)
{
	struct symbolize_unwind *u = dwfl_arg;

	if (addr >= u->sp && addr - u->sp + 8 <= u->stack_len) {
		memcpy(result, u->stack + (addr - u->sp), 8);
		if (addr - u->sp + 8 > u->max_read)
			u->max_read = addr - u->sp + 8;
		return true;
	}
	if (addr >= u->sp && addr - u->sp < STACK_REACH) {
		u->past_stack = u->read_failed = 1;
		return false;
	}
	if (read_module_word(dwfl, addr, result))
		return true;
	/*
	 * Just below sp: a callee-saved register's slot that an epilogue already popped (the
	 * CFI still names it). The register then stays unknown in the caller, which only
	 * matters if the caller's CFA depends on it, and that failure would show.
	 */
	if (addr < u->sp && u->sp - addr <= 256)
		return false;
	u->read_failed = 1;
	pgo_debug(2, "unwind: no memory at %#llx (sp %#llx)", (unsigned long long)addr,
		  (unsigned long long)u->sp);
	return false;
}

static bool cb_set_initial_registers(Dwfl_Thread *thread, void *thread_arg)
{
	struct symbolize_unwind *u = thread_arg;

	return dwfl_thread_state_registers(thread, 0, 17, u->regs);
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = cb_next_thread,
	.get_thread = cb_get_thread,
	.memory_read = cb_memory_read,
	.set_initial_registers = cb_set_initial_registers,
};

/* Block b starts with the mappings of block a, in order (b may have more). */
static int maps_extend(const struct pgo_cow *b, const struct pgo_cow *a)
{
	const struct uw_map *x, *y;
	size_t i;

	if (!a || !b || b->nr < a->nr)
		return 0;
	x = PGO_COW_ELEMS(a, struct uw_map);
	y = PGO_COW_ELEMS(b, struct uw_map);
	for (i = 0; i < a->nr; i++)
		if (x[i].start != y[i].start || x[i].end != y[i].end || x[i].pgoff != y[i].pgoff ||
		    x[i].path != y[i].path)
			return 0;
	return 1;
}

/*
 * Make sp->sess a built Dwfl of sp's mappings: the shared one when it is for sp's block,
 * else one of sp's own; that is built anew, or, when sp had it alone and merely mapped
 * more files, has them added (modules cannot be removed from a Dwfl: a replaced mapping
 * rebuilds it).
 */
static int space_ready(struct symbolize_unwind *u, struct uw_space *sp)
{
	struct uw_sess *s = sp->sess;
	struct pgo_cow *old;
	size_t i, from = 0, before = u->st.modules, nr = pgo_cow_nr(sp->maps);

	if (s && s->maps == sp->maps && (s->dwfl || !nr))
		return 0;
	if (s && s->maps != sp->maps && s->refs > 1) {
		space_drop_sess(u, sp); /* the others keep it; sp's mappings differ now */
		s = NULL;
	}
	if (!s) {
		s = sp->sess = sess_new(NULL);
		if (!s)
			return -1;
	}
	if (s->dwfl && maps_extend(sp->maps, s->maps))
		from = s->maps->nr;
	else
		sess_empty(u, s);
	old = s->maps;
	s->maps = pgo_cow_share(sp->maps);
	pgo_cow_release(&old);
	if (!nr)
		return 0;
	if (u->live_modules + nr > SYMBOLIZE_UNWIND_MAX_LIVE_MODULES)
		for (i = 0; i < u->nr_spaces; i++)
			if (u->spaces[i].sess && u->spaces[i].sess != s)
				sess_empty(u, u->spaces[i].sess);
	if (!s->dwfl) {
		s->dwfl = dwfl_begin(&u->cb);
		if (!s->dwfl)
			return pgo_error("cannot start libdwfl: %s", dwfl_errmsg(-1));
		u->st.dwfl_builds++;
		dwfl_report_begin(s->dwfl);
	} else {
		dwfl_report_begin_add(s->dwfl);
	}
	for (i = from; i < nr; i++)
		report_map(u, s, space_maps(sp), i);
	dwfl_report_end(s->dwfl, NULL, NULL);
	if (u->live_modules > u->st.max_live_modules)
		u->st.max_live_modules = u->live_modules;
	if (!s->attached && u->st.modules > before) {
		/* the architecture comes from the first module's ELF */
		if (dwfl_attach_state(s->dwfl, NULL, (pid_t)sp->pid, &thread_callbacks, u))
			s->attached = 1;
		else
			pgo_debug(1, "unwind: pid %u: %s", sp->pid, dwfl_errmsg(-1));
	}
	return 0;
}

/* Whether the code at pc (a return address unless activation) has CFI to unwind it. */
static int pc_has_cfi(Dwfl *dwfl, uint64_t pc, int activation)
{
	Dwfl_Module *mod;
	Dwarf_Frame *frame = NULL;
	Dwarf_CFI *cfi;
	Dwarf_Addr bias;

	pc -= activation ? 0 : 1;
	mod = dwfl_addrmodule(dwfl, pc);
	if (!mod)
		return 0;
	cfi = dwfl_module_eh_cfi(mod, &bias);
	if (cfi && !dwarf_cfi_addrframe(cfi, pc - bias, &frame)) {
		free(frame);
		return 1;
	}
	cfi = dwfl_module_dwarf_cfi(mod, &bias);
	if (cfi && !dwarf_cfi_addrframe(cfi, pc - bias, &frame)) {
		free(frame);
		return 1;
	}
	return 0;
}

static int cb_frame(Dwfl_Frame *state, void *arg)
{
	struct symbolize_unwind *u = arg;
	Dwarf_Addr pc;
	bool activation;

	if (!dwfl_frame_pc(state, &pc, &activation))
		return DWARF_CB_ABORT;
	/*
	 * Where the inner frame has no CFI (a stripped .eh_frame, JIT code, an anonymous
	 * mapping), libdwfl falls back to following %rbp, which in code without frame
	 * pointers holds anything: in strict mode that frame is not taken, the stack ends.
	 */
	if (u->strict && u->nout &&
	    !pc_has_cfi(dwfl_thread_dwfl(dwfl_frame_thread(state)), u->out[u->nout - 1].pc,
			u->out[u->nout - 1].activation)) {
		u->no_cfi_stop = 1;
		return DWARF_CB_ABORT;
	}
	if (u->nout == u->max) {
		u->st.too_deep++;
		return DWARF_CB_ABORT;
	}
	u->out[u->nout].pc = pc;
	u->out[u->nout].activation = u->nout == 0 || activation;
	if (u->want_regs && u->nout < PGO_ARRAY_SIZE(u->fr_sp)) {
		Dwarf_Word v;

		u->fr_sp[u->nout] = dwfl_frame_reg(state, 7, &v) == 0 ? v : UINT64_MAX;
		u->fr_bp[u->nout] = dwfl_frame_reg(state, 6, &v) == 0 ? v : UINT64_MAX;
	}
	u->nout++;
	return DWARF_CB_OK;
}

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int unwind_sample(struct symbolize_unwind *u, const struct collect_pd_sample *s,
			 struct symbolize_unwind_frame *frames, size_t max)
{
	uint64_t perf[64] = { 0 }, mask = s->user_regs_mask, have = 0, deep;
	struct uw_space *sp;
	size_t i, k = 0;
	int ret;

	u->end = SYMBOLIZE_UNWIND_NO_REGS;
	if (!s->user_regs || s->user_regs_abi != PERF_SAMPLE_REGS_ABI_64) {
		u->st.no_regs++;
		return 0;
	}
	for (i = 0; i < 64 && k < s->nr_user_regs; i++) {
		if (!(mask & (1ULL << i)))
			continue;
		perf[i] = s->user_regs[k++];
		have |= 1ULL << i;
	}
	if (!(have & (1ULL << PR_SP)) || !(have & (1ULL << PR_IP))) {
		u->st.no_regs++;
		return 0;
	}
	u->st.samples++;
	for (i = 0; i < 17; i++)
		u->regs[i] = perf[dwarf_from_perf[i]];
	u->sp = perf[PR_SP];
	u->stack = s->user_stack;
	u->stack_len = s->user_stack ? s->user_stack_size : 0;
	if (s->user_stack_dyn_size && s->user_stack_dyn_size < u->stack_len)
		u->stack_len = s->user_stack_dyn_size;
	if (s->user_stack_size > u->st.stack_copy)
		u->st.stack_copy = s->user_stack_size;
	u->max_read = 0;
	u->past_stack = 0;
	u->read_failed = 0;
	u->no_cfi_stop = 0;
	u->out = frames;
	u->nout = 0;
	u->max = max;

	sp = space_find(u, s->pid);
	if (sp && !sp->sampled) {
		sp->sampled = 1;
		u->st.processes++;
	}
	if (sp && space_ready(u, sp) < 0)
		return -1;
	if (!sp || !sp->sess || !sp->sess->attached) {
		/* no file mapped: nothing to unwind with, the IP alone */
		frames[0].pc = perf[PR_IP];
		frames[0].activation = 1;
		if (u->want_regs) {
			u->fr_sp[0] = perf[PR_SP];
			u->fr_bp[0] = perf[PR_BP];
		}
		u->end = SYMBOLIZE_UNWIND_CFI;
		u->st.truncated_cfi++;
		u->st.frames++;
		return 1;
	}
	deep = u->st.too_deep;
	ret = dwfl_getthread_frames(sp->sess->dwfl, (pid_t)(s->tid ? s->tid : s->pid), cb_frame, u);
	if (!u->nout) {
		frames[0].pc = perf[PR_IP];
		frames[0].activation = 1;
		u->fr_sp[0] = perf[PR_SP];
		u->fr_bp[0] = perf[PR_BP];
		u->nout = 1;
	}
	/*
	 * libdwfl ends the walk without an error when it cannot read a return address (it
	 * takes that for the end of the stack), so a clean return is complete only if no
	 * read failed on the way.
	 */
	if (ret == 0 && !u->read_failed && !u->no_cfi_stop) {
		u->end = SYMBOLIZE_UNWIND_COMPLETE;
		u->st.complete++;
		if (PGO_ALLOC_GROW(u->needed, u->nr_needed + 1, u->alloc_needed) < 0)
			return -1;
		u->needed[u->nr_needed++] = (uint32_t)(u->max_read < UINT32_MAX ? u->max_read : UINT32_MAX);
		u->needed_sorted = 0;
	} else if (u->st.too_deep != deep) {
		u->end = SYMBOLIZE_UNWIND_TOO_DEEP;
	} else {
		u->end = u->past_stack && !u->no_cfi_stop ? SYMBOLIZE_UNWIND_PAST_STACK :
			 SYMBOLIZE_UNWIND_CFI;
		pgo_debug(2, "unwind: pid %u tid %u: stopped after %zu frames at %#llx: %s", s->pid,
			  s->tid, u->nout, (unsigned long long)u->out[u->nout - 1].pc,
			  ret ? dwfl_errmsg(-1) : "a read failed");
		if (u->past_stack && !u->no_cfi_stop)
			u->st.truncated_stack++;
		else
			u->st.truncated_cfi++;
	}
	u->st.frames += u->nout;
	return (int)u->nout;
}

int symbolize_unwind_sample(struct symbolize_unwind *u, const struct collect_pd_sample *s,
			  struct symbolize_unwind_frame *frames, size_t max)
{
	uint64_t t0 = cpu_ns();
	int nr = unwind_sample(u, s, frames, max);

	u->st.ns += cpu_ns() - t0;
	return nr;
}

void symbolize_unwind_set_strict(struct symbolize_unwind *u, int strict)
{
	u->strict = strict;
}

enum symbolize_unwind_end symbolize_unwind_last_end(const struct symbolize_unwind *u)
{
	return u->end;
}

/* The CFA of frame k (the last one unwound) from its CFI rule: %rbp or %rsp plus an offset. */
static int last_cfa(struct symbolize_unwind *u, uint32_t pid, size_t k, uint64_t *cfa)
{
	struct uw_space *sp = space_find(u, pid);
	uint64_t pc = u->out[k].pc - (u->out[k].activation ? 0 : 1), base;
	Dwarf_Frame *frame = NULL;
	Dwarf_CFI *cfi;
	Dwfl_Module *mod;
	Dwarf_Addr bias;
	Dwarf_Op *ops;
	size_t nops;
	int ret = -1;

	if (!sp || !sp->sess || !sp->sess->dwfl)
		return -1;
	mod = dwfl_addrmodule(sp->sess->dwfl, pc);
	cfi = mod ? dwfl_module_eh_cfi(mod, &bias) : NULL;
	if (!cfi || dwarf_cfi_addrframe(cfi, pc - bias, &frame))
		return -1;
	if (!dwarf_frame_cfa(frame, &ops, &nops) && nops == 1) {
		unsigned int reg = ops[0].atom == DW_OP_bregx ? (unsigned int)ops[0].number :
				   ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31 ?
				   (unsigned int)(ops[0].atom - DW_OP_breg0) : 99;
		int64_t off = ops[0].atom == DW_OP_bregx ? (int64_t)ops[0].number2 :
			      (int64_t)ops[0].number;

		base = reg == 6 ? u->fr_bp[k] : reg == 7 ? u->fr_sp[k] : UINT64_MAX;
		if (base != UINT64_MAX) {
			*cfa = base + (uint64_t)off;
			ret = 0;
		}
	}
	free(frame);
	return ret;
}

/* The stack word at addr from the sample's copy; 0 if outside it. */
static int copy_word(const struct symbolize_unwind *u, uint64_t addr, uint64_t *v)
{
	if (addr < u->sp || addr - u->sp + 8 > u->stack_len || addr % 8)
		return 0;
	memcpy(v, u->stack + (addr - u->sp), 8);
	return 1;
}

/* Frame-pointer walk depth redone inside the copy (it ends at the copy's end anyway). */
#define FP_WALK_MAX 64

int symbolize_unwind_fp_sample(struct symbolize_unwind *u, const struct collect_pd_sample *s,
			       const uint64_t *chain, size_t nr, uint64_t *pcs, size_t max,
			       enum symbolize_unwind_fp_how *how)
{
	struct symbolize_unwind_frame frames[SYMBOLIZE_UNWIND_MAX_FRAMES];
	uint64_t fp[FP_WALK_MAX + 1], t0 = cpu_ns();
	size_t nfp = 0, k, j, n, out = 0;
	long jk = -1, jj = -1;
	int nf, i;

	u->want_regs = 1;
	nf = unwind_sample(u, s, frames, max < PGO_ARRAY_SIZE(frames) ? max : PGO_ARRAY_SIZE(frames));
	u->want_regs = 0;
	if (nf < 0)
		return -1;
	if (nf == 0 || (nf == 1 && u->end != SYMBOLIZE_UNWIND_COMPLETE)) {
		/* no registers, or no CFI for the IP itself: the kernel's walk is all there is */
		*how = nf ? SYMBOLIZE_UNWIND_FP_NO_CFI : SYMBOLIZE_UNWIND_FP_KEPT;
		goto kernel;
	}
	if (u->end == SYMBOLIZE_UNWIND_COMPLETE)
		goto cfi;
	/*
	 * The kernel's walk: fp[0] is the sampled %rbp, chain[j + 1] the word at fp[j] + 8,
	 * fp[j + 1] the word at fp[j]. Redone in the copy to know where each of the
	 * kernel's return addresses was read (only fp[0] is known past the copy).
	 */
	fp[nfp++] = u->fr_bp[0];
	while (nfp < FP_WALK_MAX && nfp < nr) {
		uint64_t next, ra;

		if (!copy_word(u, fp[nfp - 1], &next) || !copy_word(u, fp[nfp - 1] + 8, &ra) ||
		    ra != chain[nfp] || next <= fp[nfp - 1])
			break;
		fp[nfp++] = next;
	}
	/* the outermost CFI frame whose return address sits where the kernel read one */
	for (k = (size_t)nf; k-- > 0 && jk < 0;) {
		uint64_t cfa;

		if (k + 1 < (size_t)nf)
			cfa = u->fr_sp[k + 1];
		else if (last_cfa(u, s->pid, k, &cfa))
			continue;
		if (cfa == UINT64_MAX)
			continue;
		for (j = 0; j < nfp && j + 1 < nr; j++)
			if (cfa - 16 == fp[j] && (k + 1 >= (size_t)nf || frames[k + 1].pc == chain[j + 1])) {
				jk = (long)k;
				jj = (long)j;
				break;
			}
	}
	if (jk < 0) {
		*how = SYMBOLIZE_UNWIND_FP_CUT;
		goto cfi;
	}
	for (i = 0; i <= jk && out < max; i++)
		pcs[out++] = frames[i].pc;
	for (j = (size_t)jj + 1; j < nr && out < max; j++)
		pcs[out++] = chain[j];
	goto same;
cfi:
	for (i = 0; i < nf && out < max; i++)
		pcs[out++] = frames[i].pc;
	if (u->end != SYMBOLIZE_UNWIND_COMPLETE) {
		u->st.ns += cpu_ns() - t0;
		return (int)out;
	}
same:
	*how = SYMBOLIZE_UNWIND_FP_REPAIRED;
	if (out == nr) {
		for (n = 0; n < nr && pcs[n] == chain[n]; n++)
			;
		if (n == nr)
			*how = SYMBOLIZE_UNWIND_FP_KEPT;
	}
	u->st.ns += cpu_ns() - t0;
	return (int)out;
kernel:
	for (n = 0; n < nr && out < max; n++)
		pcs[out++] = chain[n];
	u->st.ns += cpu_ns() - t0;
	return (int)out;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

uint64_t symbolize_unwind_stack_needed(struct symbolize_unwind *u, double pct)
{
	/* ranked: the complete unwinds by bytes, then those cut by the copy (they needed more) */
	uint64_t n = u->nr_needed + u->st.truncated_stack, i;

	if (!n)
		return 0;
	if (!u->needed_sorted && u->nr_needed) {
		qsort(u->needed, u->nr_needed, sizeof(*u->needed), cmp_u32);
		u->needed_sorted = 1;
	}
	/* the rank, 1..n (pct <= 0 is the smallest: no negative double to convert) */
	i = pct <= 0 ? 1 : (uint64_t)(pct / 100.0 * (double)n + 0.999999);
	i = i < 1 ? 1 : i > n ? n : i;
	return i > u->nr_needed ? SYMBOLIZE_UNWIND_PAST_COPY : u->needed[i - 1];
}

/* A percentile of the bytes needed as text: a number, or ">COPY" past the stack copy. */
static const char *needed_str(struct symbolize_unwind *u, double pct, char buf[32])
{
	uint64_t v = symbolize_unwind_stack_needed(u, pct);

	if (v == SYMBOLIZE_UNWIND_PAST_COPY)
		snprintf(buf, 32, ">%llu", (unsigned long long)u->st.stack_copy);
	else
		snprintf(buf, 32, "%llu", (unsigned long long)v);
	return buf;
}

/* Percentage of the complete unwinds that needed at most `bytes` of stack. */
static double fits(struct symbolize_unwind *u, uint64_t bytes)
{
	size_t lo = 0, hi;

	if (!u->nr_needed)
		return 0;
	symbolize_unwind_stack_needed(u, 0); /* sorts */
	hi = u->nr_needed;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (u->needed[mid] <= bytes)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 100.0 * (double)lo / (double)u->nr_needed;
}

void symbolize_unwind_report(struct symbolize_unwind *u, const char *path,
			   struct symbolize_unwind_stats *sum)
{
	const struct symbolize_unwind_stats *st = &u->st;
	uint64_t trunc = st->truncated_stack + st->truncated_cfi + st->too_deep;
	char p50[32], p95[32], pmax[32];

	sum->samples += st->samples;
	sum->complete += st->complete;
	sum->truncated_stack += st->truncated_stack;
	sum->truncated_cfi += st->truncated_cfi;
	sum->too_deep += st->too_deep;
	sum->no_regs += st->no_regs;
	sum->frames += st->frames;
	sum->processes += st->processes;
	sum->dwfl_builds += st->dwfl_builds;
	sum->modules += st->modules;
	sum->debug_files += st->debug_files;
	if (st->max_live_modules > sum->max_live_modules)
		sum->max_live_modules = st->max_live_modules;
	sum->maps_dropped += st->maps_dropped;
	sum->ns += st->ns;
	if (st->stack_copy > sum->stack_copy)
		sum->stack_copy = st->stack_copy;
	if (!st->samples)
		return;
	if (st->maps_dropped)
		pgo_warn("%s: %llu mappings beyond %d in one process (or %zu in all) were not used "
			 "for unwinding (a damaged or hostile file?); stacks through them are "
			 "truncated", path, (unsigned long long)st->maps_dropped,
			 SYMBOLIZE_UNWIND_MAX_MAPS, SYMBOLIZE_UNWIND_MAX_LIVE_MAPS);
	(trunc * 20 > st->samples ? pgo_warn : pgo_info)(
		"%s: unwound %llu user stacks: %llu complete, %llu truncated (%llu past the "
		"%llu-byte stack copy: record with --call-graph dwarf,SIZE; %llu without usable "
		"CFI; %llu deeper than %d frames); stack bytes needed p50 %s, p95 %s, max %s",
		path, (unsigned long long)st->samples, (unsigned long long)st->complete,
		(unsigned long long)trunc, (unsigned long long)st->truncated_stack,
		(unsigned long long)st->stack_copy, (unsigned long long)st->truncated_cfi,
		(unsigned long long)st->too_deep, SYMBOLIZE_UNWIND_MAX_FRAMES, needed_str(u, 50, p50),
		needed_str(u, 95, p95), needed_str(u, 100, pmax));
	pgo_debug(1, "%s: unwinding took %.3f s CPU (%.0f samples/s) for %llu processes with %llu "
		  "Dwfl sessions, %llu modules read (at most %llu at once), %llu separate debug files "
		  "read for .debug_frame, %llu frames; complete unwinds that a copy of "
		  "1/2/4/6/8/16/32 KiB holds: %.1f/%.1f/%.1f/%.1f/%.1f/%.1f/%.1f%%",
		  path, st->ns / 1e9, st->ns ? st->samples * 1e9 / st->ns : 0.0,
		  (unsigned long long)st->processes,
		  (unsigned long long)st->dwfl_builds, (unsigned long long)st->modules,
		  (unsigned long long)st->max_live_modules, (unsigned long long)st->debug_files,
		  (unsigned long long)st->frames, fits(u, 1024), fits(u, 2048), fits(u, 4096), fits(u, 6144),
		  fits(u, 8192), fits(u, 16384), fits(u, 32768));
}
