// SPDX-License-Identifier: MIT
/*
 * The address spaces of the DWARF unwinder and their Dwfls (symbolize/unwind_internal.h):
 * mappings kept per process and shared copy-on-write with forks, one Dwfl per maps block
 * with its modules reported once, the separate debug files looked up, and the thread
 * callbacks through which libdwfl reads the sample's registers and stack copy.
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
#include "symbolize/unwind_internal.h"
#include "lib/alloc.h"
#include "lib/cow.h"
#include "lib/hashmap.h"
#include "lib/report.h"

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

struct uw_space *uw_space_find(struct symbolize_unwind *u, uint32_t pid)
{
	uint64_t *v = pgo_u64map_find(&u->pid2space, pid);

	return v ? &u->spaces[*v - 1] : NULL;
}

static struct uw_space *space_get(struct symbolize_unwind *u, uint32_t pid)
{
	struct uw_space *sp = uw_space_find(u, pid);

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

static int maps_extend(const struct pgo_cow *b, const struct pgo_cow *a);

int symbolize_unwind_fork(struct symbolize_unwind *u, uint32_t pid, uint32_t ppid)
{
	struct uw_space *child, *parent;
	size_t pidx;

	if (pid == ppid)
		return 0;
	parent = uw_space_find(u, ppid);
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
			if (uw_space_ready(u, parent) < 0)
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
	struct uw_space *sp = uw_space_find(u, pid);

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
	struct uw_space *sp = uw_space_find(u, pid);

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
int uw_space_ready(struct symbolize_unwind *u, struct uw_space *sp)
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
