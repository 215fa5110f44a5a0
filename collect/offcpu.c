// SPDX-License-Identifier: MIT
/* Load the off-CPU BPF program, follow the benchmark's processes, read back the aggregates. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "collect/collect.h"
#include "collect/offcpu.h"
#include "collect/pdformat.h"
#include "collect/pdwrite.h"
#include "collect/unwtab.h"
#include "lib/alloc.h"
#include "lib/buf.h"
#include "lib/report.h"
#include "offcpu.skel.h"

/*
 * Frames at the top of a kernel stack taken in the sched_switch tracepoint that belong to
 * the BPF machinery, not to the task (bpf_prog, bpf_trace_run, and the tracepoint iterator
 * while another probe shares the tracepoint). Three of them are skipped: the leaf is then
 * schedule (__schedule skipped too) with this probe alone, and __schedule with another
 * one; pgo convert drops that __schedule (convert/stacks.c).
 */
#define KSTACK_SKIP_BTF 3
#define KSTACK_SKIP_RAW 3

/* A binary whose unwind table is (or could not be) in the BPF maps. */
struct table_file {
	dev_t dev;
	ino_t ino;
	uint32_t id;             /* index in the files map; 0: no table (why in reason) */
	uint32_t reason;         /* OFFCPU_UNW_NO_TABLE when the file gave none */
};

/*
 * The DWARF side: tables loaded into rows/pages/files, and the thread that answers the
 * program's requests for a process's mappings (maps_req) by reading /proc/PID/maps.
 */
struct unwind_state {
	pthread_mutex_t lock;    /* the tables and the maps below */
	struct table_file *tf;
	size_t nr_tf, alloc_tf;
	uint32_t next_row, next_page, next_file;
	uint32_t max_rows, max_pages, max_files;
	uint64_t tables_failed;  /* files without a usable table */
	uint64_t tables_full;    /* tables that did not fit the maps */
	uint64_t maps_reads;
	uint32_t vdso;           /* the file id of the [vdso] table, or 0 */
	struct ring_buffer *rb;
	pthread_t thread;
	int thread_running;
	volatile int stop;
};

struct collect_offcpu {
	struct offcpu_bpf *skel;
	struct unwind_state unw;
	int dwarf;
	int raw_tp;
	int stats_fd;                  /* keeps the kernel's BPF run-time statistics on, or -1 */
	int cur;                       /* the aggregation map the program writes: 0 totals_a, 1 b */
	uint64_t samples;
	uint64_t emit_errors;
	uint64_t total_ns;
	uint64_t ips[OFFCPU_MAX_FRAMES];
	uint64_t chain[2 * OFFCPU_MAX_FRAMES + 3];
};

PGO_PRINTF(2, 0) static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char line[1024];
	size_t n;

	if (pgo_report_verbosity() < (level == LIBBPF_DEBUG ? 2 : 1))
		return 0;
	vsnprintf(line, sizeof(line), fmt, ap);
	n = strlen(line);
	if (n && line[n - 1] == '\n')
		line[n - 1] = '\0';
	pgo_debug(1, "libbpf: %s", line);
	return 0;
}

int collect_offcpu_probe(char *why, size_t len)
{
	if (geteuid() != 0) {
		snprintf(why, len, "needs root (CAP_BPF and CAP_PERFMON)");
		return -1;
	}
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		snprintf(why, len, "the kernel has no BTF (/sys/kernel/btf/vmlinux: %s)", strerror(errno));
		return -1;
	}
	return 0;
}

static struct offcpu_bpf *load(const struct collect_offcpu_opts *opts, int raw_tp, int *err)
{
	struct offcpu_bpf *skel;

	skel = offcpu_bpf__open();
	if (!skel) {
		*err = -errno;
		return NULL;
	}
	skel->rodata->user_stacks = !!opts->user_stacks;
	skel->rodata->kernel_stacks = !!opts->kernel_stacks;
	skel->rodata->find_callers = !!opts->find_callers;
	skel->rodata->dwarf = opts->user_stacks && opts->dwarf;
	skel->rodata->min_block_ns = opts->min_block_ns;
	skel->rodata->hide_sleep_ends = !!opts->hide_sleep_ends;
	skel->rodata->sample_every = opts->sample_every > 1 ? opts->sample_every : 1;
	skel->rodata->kstack_skip = raw_tp ? KSTACK_SKIP_RAW : KSTACK_SKIP_BTF;
	skel->rodata->btf_slots = !raw_tp;
	bpf_map__set_max_entries(skel->maps.stacks, opts->max_stacks ? opts->max_stacks : 16384);
	bpf_map__set_max_entries(skel->maps.totals_a, opts->max_entries ? opts->max_entries : 65536);
	bpf_map__set_max_entries(skel->maps.totals_b, opts->max_entries ? opts->max_entries : 65536);
	bpf_program__set_autoload(skel->progs.sched_switch_btf, !raw_tp);
	bpf_program__set_autoload(skel->progs.sched_fork_btf, !raw_tp);
	bpf_program__set_autoload(skel->progs.sched_switch_raw, raw_tp);
	bpf_program__set_autoload(skel->progs.sched_fork_raw, raw_tp);
	bpf_program__set_autoload(skel->progs.sched_exit_btf, !raw_tp);
	bpf_program__set_autoload(skel->progs.sched_exit_raw, raw_tp);
	bpf_program__set_autoload(skel->progs.sched_exec_btf, !raw_tp && skel->rodata->dwarf);
	bpf_program__set_autoload(skel->progs.sched_exec_raw, raw_tp && skel->rodata->dwarf);
	bpf_program__set_autoload(skel->progs.sys_exit_raw, skel->rodata->dwarf);
	if (!skel->rodata->dwarf) {
		bpf_map__set_max_entries(skel->maps.rows, 1);
		bpf_map__set_max_entries(skel->maps.pages, 1);
		bpf_map__set_max_entries(skel->maps.files, 1);
	}
	bpf_map__set_max_entries(skel->maps.stacks2,
				 (opts->max_stacks ? opts->max_stacks : 16384) / 4 + 1);
	if (!opts->user_stacks && !opts->kernel_stacks) {
		bpf_map__set_max_entries(skel->maps.stacks, 1);
		bpf_map__set_max_entries(skel->maps.stacks2, 1);
	}
	*err = offcpu_bpf__load(skel);
	if (*err) {
		offcpu_bpf__destroy(skel);
		return NULL;
	}
	return skel;
}

/* ---- DWARF unwinding: tables and mappings ---- */

/*
 * Put a table into the maps: its rows at next_row, its page index at next_page, its
 * entry at next_file. Returns the file id, or 0 (counted) when the maps are full.
 */
static uint32_t load_table(struct unwind_state *u, struct collect_offcpu *o,
			   const struct collect_unwtab *t)
{
	struct offcpu_file f = { 0 };
	uint32_t i, *keys = NULL, *pg = NULL, first_page, last_page, r;
	uint32_t id = u->next_file;
	LIBBPF_OPTS(bpf_map_batch_opts, bo);
	int err = -1;

	if (!t->nr)
		return 0;
	first_page = t->rows[0].pc >> OFFCPU_PAGE_SHIFT;
	last_page = t->rows[t->nr - 1].pc >> OFFCPU_PAGE_SHIFT;
	f.nr_rows = (uint32_t)t->nr;
	f.nr_pages = last_page - first_page + 1;
	if (id >= u->max_files || t->nr > u->max_rows - u->next_row ||
	    f.nr_pages > u->max_pages - u->next_page) {
		u->tables_full++;
		return 0;
	}
	f.row_first = u->next_row;
	f.page_first = u->next_page;
	f.page_base = first_page;
	keys = calloc(t->nr > f.nr_pages ? t->nr : f.nr_pages, sizeof(*keys));
	pg = calloc(f.nr_pages, sizeof(*pg));
	if (!keys || !pg)
		goto out;
	for (i = 0; i < t->nr; i++)
		keys[i] = f.row_first + i;
	if (bpf_map_update_batch(bpf_map__fd(o->skel->maps.rows), keys, t->rows, &(__u32){ (__u32)t->nr }, &bo))
		goto out;
	/* each page: the last row at or below its start (the first row for the first page) */
	for (i = 0, r = 0; i < f.nr_pages; i++) {
		uint64_t start = (uint64_t)(first_page + i) << OFFCPU_PAGE_SHIFT;

		while (r + 1 < t->nr && t->rows[r + 1].pc <= start)
			r++;
		pg[i] = f.row_first + r;
		keys[i] = f.page_first + i;
	}
	if (bpf_map_update_batch(bpf_map__fd(o->skel->maps.pages), keys, pg, &f.nr_pages, &bo))
		goto out;
	if (bpf_map_update_elem(bpf_map__fd(o->skel->maps.files), &id, &f, BPF_ANY))
		goto out;
	u->next_row += f.nr_rows;
	u->next_page += f.nr_pages;
	u->next_file++;
	err = 0;
out:
	free(keys);
	free(pg);
	if (err) {
		pgo_debug(1, "off-CPU: cannot load an unwind table: %s", strerror(errno));
		u->tables_full++;
		return 0;
	}
	return id;
}

/* The table of file (dev, ino), loaded from path the first time. Called with u->lock. */
static struct table_file *table_of(struct collect_offcpu *o, dev_t dev, ino_t ino, const char *path)
{
	struct unwind_state *u = &o->unw;
	struct collect_unwtab t;
	struct table_file *tf;
	size_t i;

	for (i = 0; i < u->nr_tf; i++)
		if (u->tf[i].dev == dev && u->tf[i].ino == ino)
			return &u->tf[i];
	if (PGO_ALLOC_GROW(u->tf, u->nr_tf + 1, u->alloc_tf))
		return NULL;
	tf = &u->tf[u->nr_tf++];
	tf->dev = dev;
	tf->ino = ino;
	tf->id = 0;
	tf->reason = OFFCPU_UNW_NO_TABLE;
	if (collect_unwtab_build(path, &t)) {
		pgo_debug(1, "off-CPU: no unwind table for %s: %s", path, t.why);
		u->tables_failed++;
		return tf;
	}
	tf->id = load_table(u, o, &t);
	pgo_debug(2, "off-CPU: %s: %zu unwind rows from %u FDEs of %s (file %u)", path, t.nr, t.fdes,
		  t.section, tf->id);
	if (!t.nr)
		u->tables_failed++;
	collect_unwtab_release(&t);
	return tf;
}

/* Load the table of the file at path (before a run: the benchmark, its libraries). */
static void preload(struct collect_offcpu *o, const char *path)
{
	struct stat st;

	if (stat(path, &st) || !S_ISREG(st.st_mode))
		return;
	pthread_mutex_lock(&o->unw.lock);
	table_of(o, st.st_dev, st.st_ino, path);
	pthread_mutex_unlock(&o->unw.lock);
}

/* Look for library `name` where ld.so would (RUNPATH/RPATH of `from`, then the usual dirs). */
static int find_lib(const char *name, const char *runpath, const char *origin, char *out, size_t len)
{
	static const char *const dirs[] = { "/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu",
					    "/lib64", "/usr/lib64", "/lib", "/usr/lib",
					    "/usr/local/lib", NULL };
	char buf[4096], *save = NULL, *d;
	int i;

	if (strchr(name, '/')) {
		snprintf(out, len, "%s", name);
		return access(out, R_OK);
	}
	if (runpath) {
		snprintf(buf, sizeof(buf), "%s", runpath);
		for (d = strtok_r(buf, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
			int w;

			if (!strncmp(d, "$ORIGIN", 7))
				w = snprintf(out, len, "%s%s/%s", origin, d + 7, name);
			else
				w = snprintf(out, len, "%s/%s", d, name);
			if (w > 0 && (size_t)w < len && !access(out, R_OK))
				return 0;
		}
	}
	for (i = 0; dirs[i]; i++) {
		snprintf(out, len, "%s/%s", dirs[i], name);
		if (!access(out, R_OK))
			return 0;
	}
	return -1;
}

/* Preload path and, to depth levels, the libraries it needs (DT_NEEDED). */
static void preload_deps(struct collect_offcpu *o, const char *path, int depth)
{
	char needed[32][256], runpath[1024] = "", origin[4096], lib[4096], *slash;
	size_t nr = 0, i, n;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Dyn dyn;
	Elf_Data *d;
	Elf *elf;
	int fd;

	preload(o, path);
	if (depth <= 0)
		return;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP_PRIVATE, NULL);
	while (elf && (scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC || !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		n = d ? d->d_size / sh.sh_entsize : 0;
		for (i = 0; i < n && gelf_getdyn(d, (int)i, &dyn); i++) {
			const char *v;

			if (dyn.d_tag != DT_NEEDED && dyn.d_tag != DT_RUNPATH && dyn.d_tag != DT_RPATH)
				continue;
			v = elf_strptr(elf, sh.sh_link, dyn.d_un.d_val);
			if (!v)
				continue;
			if (dyn.d_tag == DT_NEEDED && nr < PGO_ARRAY_SIZE(needed))
				snprintf(needed[nr++], sizeof(needed[0]), "%s", v);
			else if (dyn.d_tag != DT_NEEDED)
				snprintf(runpath, sizeof(runpath), "%s", v);
		}
	}
	elf_end(elf);
	close(fd);
	snprintf(origin, sizeof(origin), "%s", path);
	slash = strrchr(origin, '/');
	if (slash)
		*slash = '\0';
	else
		snprintf(origin, sizeof(origin), ".");
	for (i = 0; i < nr; i++)
		if (!find_lib(needed[i], runpath[0] ? runpath : NULL, origin, lib, sizeof(lib)))
			preload_deps(o, lib, depth - 1);
}

static int cmp_mapping(const void *a, const void *b)
{
	const struct offcpu_mapping *x = a, *y = b;

	return (x->start > y->start) - (x->start < y->start);
}

/*
 * Read /proc/TGID/maps into the process's procs entry: every executable mapping with its
 * file's table. The file is opened through /proc/TGID/map_files/, which names the mapped
 * file itself even if it was replaced or lives in another mount namespace.
 */
static void read_maps(struct collect_offcpu *o, uint32_t tgid)
{
	struct offcpu_proc *p;
	char path[64], line[4096 + 128], file[4096], perms[8];
	unsigned long long start, end, off, ino;
	unsigned int maj, min;
	FILE *f;
	int n;

	p = calloc(1, sizeof(*p));
	if (!p)
		return;
	snprintf(path, sizeof(path), "/proc/%u/maps", tgid);
	f = fopen(path, "re");
	if (!f)
		goto out;
	pthread_mutex_lock(&o->unw.lock);
	o->unw.maps_reads++;
	while (fgets(line, sizeof(line), f) && p->nr < OFFCPU_MAX_MAPPINGS) {
		struct offcpu_mapping *m = &p->m[p->nr];
		struct table_file *tf;

		file[0] = '\0';
		n = sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %4095[^\n]", &start, &end, perms, &off,
			   &maj, &min, &ino, file);
		if (n < 7 || perms[2] != 'x')
			continue;
		m->start = start;
		m->end = end;
		m->offset = off;
		m->file = 0;
		m->end_reason = OFFCPU_UNW_ANON;
		if (!ino && !strcmp(file, "[vdso]") && o->unw.vdso) {
			/* the kernel's vDSO: the same image in every process (ours, read at start) */
			m->file = o->unw.vdso;
			m->end_reason = 0;
		} else if (ino && file[0] == '/') {
			char mf[128];

			snprintf(mf, sizeof(mf), "/proc/%u/map_files/%llx-%llx", tgid, start, end);
			tf = table_of(o, makedev(maj, min), (ino_t)ino, access(mf, R_OK) ? file : mf);
			if (tf) {
				m->file = tf->id;
				m->end_reason = tf->reason;
			}
		}
		p->nr++;
	}
	pthread_mutex_unlock(&o->unw.lock);
	fclose(f);
	qsort(p->m, p->nr, sizeof(p->m[0]), cmp_mapping);
	if (bpf_map__update_elem(o->skel->maps.procs, &tgid, sizeof(tgid), p, sizeof(*p), BPF_ANY))
		pgo_debug(1, "off-CPU: cannot store the mappings of %u: %s", tgid, strerror(errno));
out:
	/* the program may ask again from now on */
	bpf_map__delete_elem(o->skel->maps.maps_pending, &tgid, sizeof(tgid), 0);
	free(p);
}

static int on_maps_req(void *ctx, void *data, size_t size)
{
	const struct offcpu_maps_req *r = data;

	if (size >= sizeof(*r))
		read_maps(ctx, r->tgid);
	return 0;
}

static void *maps_thread(void *arg)
{
	struct collect_offcpu *o = arg;
	struct sched_param sp = { .sched_priority = 1 };

	/*
	 * A process's first waits often come within a millisecond of ld.so mapping libc: run
	 * before the benchmark's threads when a request comes (root only; else as is).
	 */
	if (pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp))
		pgo_debug(1, "off-CPU: the mappings thread runs without real-time priority");

	while (!o->unw.stop)
		if (ring_buffer__poll(o->unw.rb, 50) < 0 && errno != EINTR)
			break;
	return NULL;
}

static int unwind_start(struct collect_offcpu *o, const struct collect_offcpu_opts *opts)
{
	struct unwind_state *u = &o->unw;
	const char *const *p;
	char line[4096 + 128], file[4096];
	sigset_t all, old;
	FILE *f;
	int err;

	pthread_mutex_init(&u->lock, NULL);
	u->max_rows = bpf_map__max_entries(o->skel->maps.rows);
	u->max_pages = bpf_map__max_entries(o->skel->maps.pages);
	u->max_files = bpf_map__max_entries(o->skel->maps.files);
	u->next_file = 1;  /* 0 means "no table" */
	/* the benchmark and what it links, then pgo's own libraries (libc, ld.so: the same files) */
	for (p = opts->preload; p && *p; p++)
		preload_deps(o, *p, 3);
	f = fopen("/proc/self/maps", "re");
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi;

		if (sscanf(line, "%*x-%*x %*4[r-]x%*s %*x %*x:%*x %*u %4095[^\n]", file) == 1 && file[0] == '/')
			preload(o, file);
		/* the vDSO is an ELF image with its .eh_frame, mapped from file offset 0 */
		if (sscanf(line, "%llx-%llx %*s %*x %*x:%*x %*u %4095[^\n]", &lo, &hi, file) == 3 &&
		    !strcmp(file, "[vdso]") && hi > lo && hi - lo <= (1 << 20)) {
			struct collect_unwtab t;
			void *copy = malloc(hi - lo);

			if (copy) {
				memcpy(copy, (void *)(uintptr_t)lo, hi - lo);
				if (!collect_unwtab_build_mem(copy, hi - lo, &t)) {
					u->vdso = load_table(u, o, &t);
					collect_unwtab_release(&t);
				}
				free(copy);
			}
		}
	}
	if (f)
		fclose(f);
	u->rb = ring_buffer__new(bpf_map__fd(o->skel->maps.maps_req), on_maps_req, o, NULL);
	if (!u->rb)
		return pgo_error_errno("cannot read the off-CPU mapping requests");
	/*
	 * The thread takes no signals: the session waits for SIGCHLD on a signalfd, which
	 * sees only signals every thread blocks.
	 */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&u->thread, NULL, maps_thread, o);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		ring_buffer__free(u->rb);
		u->rb = NULL;
		return pgo_error("cannot start the off-CPU mappings thread");
	}
	u->thread_running = 1;
	return 0;
}

static void unwind_stop(struct collect_offcpu *o)
{
	struct unwind_state *u = &o->unw;

	if (u->thread_running) {
		u->stop = 1;
		pthread_join(u->thread, NULL);
		u->thread_running = 0;
	}
	ring_buffer__free(u->rb);
	u->rb = NULL;
	free(u->tf);
	u->tf = NULL;
	pthread_mutex_destroy(&u->lock);
}

int collect_offcpu_open(struct collect_offcpu **out, const struct collect_offcpu_opts *opts)
{
	struct collect_offcpu *o;
	char why[160];
	int err = 0;

	*out = NULL;
	if (collect_offcpu_probe(why, sizeof(why)))
		return pgo_error("cannot record off-CPU time: %s", why);
	libbpf_set_print(libbpf_print);
	o = pgo_calloc(1, sizeof(*o));
	if (!o)
		return -1;
	o->stats_fd = -1;
	if (!opts->force_raw_tp)
		o->skel = load(opts, 0, &err);
	if (!o->skel) {
		if (!opts->force_raw_tp)
			pgo_debug(1, "tp_btf/sched_switch did not load (%s), trying raw_tp", strerror(-err));
		o->raw_tp = 1;
		o->skel = load(opts, 1, &err);
	}
	if (!o->skel) {
		free(o);
		return pgo_error("cannot load the off-CPU BPF program: %s (run with -vv for the verifier log)",
				 strerror(-err));
	}
	err = offcpu_bpf__attach(o->skel);
	if (err) {
		offcpu_bpf__destroy(o->skel);
		free(o);
		return pgo_error("cannot attach the off-CPU BPF program to sched_switch: %s", strerror(-err));
	}
	pgo_debug(1, "off-CPU: %s/sched_switch attached", o->raw_tp ? "raw_tp" : "tp_btf");
	o->dwarf = opts->user_stacks && opts->dwarf;
	if (o->dwarf && unwind_start(o, opts)) {
		offcpu_bpf__destroy(o->skel);
		free(o);
		return -1;
	}
	/* measure what the program costs (two clock reads per run while the fd is open) */
	o->stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (o->stats_fd < 0)
		pgo_debug(1, "off-CPU: no BPF run-time statistics: %s", strerror(errno));
	*out = o;
	return 0;
}

int collect_offcpu_follow(struct collect_offcpu *o, pid_t tgid)
{
	__u32 key = (__u32)tgid;
	__u8 one = 1;

	if (bpf_map__update_elem(o->skel->maps.tgids, &key, sizeof(key), &one, sizeof(one), BPF_ANY))
		return pgo_error_errno("cannot follow process %d off-CPU", (int)tgid);
	return 0;
}

/* Copy a stack's ips (leaf first, ending at the first 0) after marker; returns the count added. */
static uint32_t add_stack(struct collect_offcpu *o, __s32 id, uint64_t marker, uint32_t n,
			  uint64_t caller)
{
	struct bpf_map *map = o->skel->maps.stacks;
	uint32_t i, start = n;

	if (id < 0)
		return 0;
	if (id & OFFCPU_STACK2) {
		map = o->skel->maps.stacks2;
		id &= ~OFFCPU_STACK2;
	}
	if (bpf_map_lookup_elem(bpf_map__fd(map), &id, o->ips))
		return 0;
	o->chain[n++] = marker;
	for (i = 0; i < OFFCPU_MAX_FRAMES && o->ips[i]; i++) {
		o->chain[n++] = o->ips[i];
		/*
		 * The frame-pointer walk skipped the caller of the libc call: it belongs right
		 * after the leaf, unless the walk found it after all.
		 */
		if (i == 0 && caller && (i + 1 >= OFFCPU_MAX_FRAMES || o->ips[1] != caller))
			o->chain[n++] = caller;
	}
	return n == start + 1 ? 0 : n - start;
}

/* Copy an unwound user stack (leaf first) after PERF_CONTEXT_USER; returns the count added. */
static uint32_t add_ustack(struct collect_offcpu *o, uint64_t key, uint32_t n)
{
	struct offcpu_ustack st;
	uint32_t i, start = n;

	if (!key || bpf_map__lookup_elem(o->skel->maps.ustacks, &key, sizeof(key), &st, sizeof(st), 0))
		return 0;
	pgo_debug(2, "off-CPU: user stack %#llx: %u frames, end %u", (unsigned long long)key, st.nr,
		  st.end);
	o->chain[n++] = PERF_CONTEXT_USER;
	for (i = 0; i < st.nr && i < OFFCPU_MAX_FRAMES; i++)
		o->chain[n++] = st.ips[i];
	return n == start + 1 ? 0 : n - start;
}

int collect_offcpu_drain(struct collect_offcpu *o, collect_offcpu_emit_fn emit, void *data)
{
	int fds[2] = { bpf_map__fd(o->skel->maps.totals_a), bpf_map__fd(o->skel->maps.totals_b) };
	int outer = bpf_map__fd(o->skel->maps.totals);
	struct offcpu_key *keys = NULL, next;
	size_t nr = 0, alloc = 0, i;
	struct collect_offcpu_sample s;
	struct offcpu_val val;
	uint32_t n, kn, zero = 0;
	int err = 0, totals;

	/*
	 * Point the program at the other map. The update returns once no program can still be
	 * adding to the old one (offcpu.bpf.c), which is then ours alone to read and empty:
	 * no add can land in an entry after it was copied.
	 */
	if (bpf_map_update_elem(outer, &zero, &fds[!o->cur], BPF_ANY))
		return pgo_error_errno("cannot switch the off-CPU aggregation maps");
	totals = fds[o->cur];
	o->cur = !o->cur;
	/* List the keys first: deleting during get_next_key iteration restarts it. */
	while (!bpf_map_get_next_key(totals, nr ? &keys[nr - 1] : NULL, &next)) {
		if (PGO_ALLOC_GROW(keys, nr + 1, alloc)) {
			err = -1;
			goto out;
		}
		keys[nr++] = next;
	}
	for (i = 0; i < nr; i++) {
		if (bpf_map_lookup_and_delete_elem(totals, &keys[i], &val)) {
			if (errno == ENOENT)
				continue;
			o->emit_errors++;
			err = pgo_error_errno("cannot read the off-CPU totals");
			goto out;
		}
		memset(&s, 0, sizeof(s));
		s.tgid = keys[i].tgid;
		s.tid = keys[i].tid;
		s.state = keys[i].state;
		s.total_ns = val.total_ns;
		s.count = val.count;
		s.last_ns = val.last_ns;
		n = kn = add_stack(o, keys[i].kstack_id, PERF_CONTEXT_KERNEL, 0, 0);
		if (keys[i].ustack_hash)
			n += add_ustack(o, keys[i].ustack_hash, n);
		else
			n += add_stack(o, keys[i].ustack_id, PERF_CONTEXT_USER, n, keys[i].caller_ip);
		s.callchain = o->chain;
		s.nr_callchain = n;
		if (n > kn)
			s.ip = o->chain[kn + 1];
		else if (kn)
			s.ip = o->chain[1];
		err = emit(&s, data);
		if (err < 0)
			goto out;
		o->samples++;
		o->total_ns += s.total_ns;
	}
out:
	free(keys);
	return err < 0 ? err : 0;
}

void collect_offcpu_get_stats(const struct collect_offcpu *o, struct collect_offcpu_stats *st)
{
	const struct offcpu_counters *c = o->skel->bss->counters;
	const struct bpf_program *prog;
	struct bpf_prog_info info;
	__u32 info_len;
	int i, j;

	memset(st, 0, sizeof(*st));
	for (i = 0; i < OFFCPU_MAX_CPUS; i++) {
		st->k.switches += c[i].switches;
		st->k.sampled_out += c[i].sampled_out;
		st->k.short_blocks += c[i].short_blocks;
		st->k.recorded += c[i].recorded;
		st->k.ustack_dropped += c[i].ustack_dropped;
		st->k.kstack_dropped += c[i].kstack_dropped;
		st->k.map_full += c[i].map_full;
		st->k.storage_failed += c[i].storage_failed;
		st->k.tgid_full += c[i].tgid_full;
		st->k.callers_found += c[i].callers_found;
		st->k.switchins_unseen += c[i].switchins_unseen;
		for (j = 0; j < OFFCPU_UNW_NR; j++)
			st->k.unwind_end[j] += c[i].unwind_end[j];
		st->k.ustacks_full += c[i].ustacks_full;
		st->k.maps_requests += c[i].maps_requests;
		st->k.unwind_retried += c[i].unwind_retried;
	}
	if (o->dwarf) {
		pthread_mutex_lock((pthread_mutex_t *)&o->unw.lock);
		st->tables = o->unw.next_file - 1;
		st->tables_failed = o->unw.tables_failed;
		st->tables_full = o->unw.tables_full;
		st->table_rows = o->unw.next_row;
		st->maps_reads = o->unw.maps_reads;
		pthread_mutex_unlock((pthread_mutex_t *)&o->unw.lock);
	}
	st->dwarf = o->dwarf;
	info_len = sizeof(info);
	memset(&info, 0, sizeof(info));
	prog = o->raw_tp ? o->skel->progs.sched_switch_raw : o->skel->progs.sched_switch_btf;
	if (!bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &info_len)) {
		st->prog_run_ns = info.run_time_ns;
		st->prog_run_cnt = info.run_cnt;
	}
	st->samples = o->samples;
	st->emit_errors = o->emit_errors;
	st->total_ns = o->total_ns;
	st->raw_tp = o->raw_tp;
}

void collect_offcpu_free(struct collect_offcpu *o)
{
	if (!o)
		return;
	if (o->dwarf)
		unwind_stop(o);
	offcpu_bpf__destroy(o->skel);
	if (o->stats_fd >= 0)
		close(o->stats_fd);
	free(o);
}

/* ---- the collect_run() source ---- */

struct offcpu_source {
	struct collect_source src;
	struct collect_offcpu *o;
	struct collect_writer *w;
	struct pgo_buf rec;
	uint64_t id;
	uint64_t floor;           /* CLOCK_MONOTONIC of this run's previous hook */
	uint64_t drained;         /* ... and of the previous drain */
};

/*
 * Periodic drains only keep the aggregation map from filling up; each one waits for an
 * RCU grace period (the map switch), so do not drain at every ring wakeup.
 */
#define DRAIN_EVERY_NS (250 * 1000000ULL)

static uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int src_init(void *priv, struct collect_writer *w)
{
	struct offcpu_source *os = priv;
	struct perf_event_attr attr;
	int idx;

	collect_offcpu_attr(&attr);
	idx = collect_writer_add_attr(w, &attr, PD_OFFCPU_EVENT_NAME);
	if (idx < 0)
		return -1;
	os->id = collect_writer_new_id(w);
	return collect_writer_add_ids(w, idx, &os->id, 1);
}

static int src_start(void *priv, struct collect_writer *w, pid_t pid)
{
	struct offcpu_source *os = priv;

	os->floor = os->drained = monotonic_ns();
	return collect_offcpu_follow(os->o, pid);
}

static int src_emit(const struct collect_offcpu_sample *s, void *data)
{
	struct offcpu_source *os = data;
	uint64_t time = s->last_ns > os->floor ? s->last_ns : os->floor;

	pgo_buf_reset(&os->rec);
	if (collect_offcpu_encode(s, os->id, time, &os->rec))
		return -1;
	return collect_writer_record(os->w, (const struct perf_event_header *)os->rec.data);
}

static int drain_now(struct offcpu_source *os, struct collect_writer *w)
{
	uint64_t now = monotonic_ns();
	int err;

	os->w = w;
	err = collect_offcpu_drain(os->o, src_emit, os);
	os->floor = os->drained = now;
	return err;
}

static int src_drain(void *priv, struct collect_writer *w)
{
	struct offcpu_source *os = priv;
	uint64_t now = monotonic_ns();

	/*
	 * Skipped or not, this hook follows the session's latest round of ring records: later
	 * samples are raised to its time, as if drained here.
	 */
	if (now - os->drained < DRAIN_EVERY_NS) {
		os->floor = now;
		return 0;
	}
	return drain_now(os, w);
}

/* Empty a map: list the keys first (deleting restarts get_next_key), then delete. */
static int clear_stacks(struct bpf_map *map)
{
	int fd = bpf_map__fd(map), err = 0;
	__u64 *ids = NULL, next = 0;
	size_t nr = 0, alloc = 0, i;

	while (!bpf_map_get_next_key(fd, nr ? &ids[nr - 1] : NULL, &next)) {
		if (PGO_ALLOC_GROW(ids, nr + 1, alloc)) {
			err = -1;
			goto out;
		}
		ids[nr++] = next;
	}
	for (i = 0; i < nr; i++)
		if (bpf_map_delete_elem(fd, &ids[i]) && errno != ENOENT) {
			err = pgo_error_errno("cannot clear the off-CPU stack map");
			goto out;
		}
out:
	free(ids);
	return err;
}

/*
 * The run's benchmark has been reaped: every wait of its threads ended with a switch-in
 * already. Drain twice, so the map written during the first drain is read too. Then
 * forget the run's stacks: address randomization gives every run new user stacks, which
 * would pile up in the stack maps, fill them and collide with each other.
 */
static int src_stop(void *priv, struct collect_writer *w, pid_t pid)
{
	struct offcpu_source *os = priv;

	if (drain_now(os, w) || drain_now(os, w))
		return -1;
	return clear_stacks(os->o->skel->maps.stacks) || clear_stacks(os->o->skel->maps.stacks2) ||
	       clear_stacks(os->o->skel->maps.ustacks) ? -1 : 0;
}

static int src_sample_filter(void *priv)
{
	struct offcpu_source *os = priv;

	return bpf_program__fd(os->o->skel->progs.sample_filter);
}

static const struct collect_source_ops offcpu_source_ops = {
	.name = "off-cpu",
	.init = src_init,
	.start = src_start,
	.drain = src_drain,
	.stop = src_stop,
	.sample_filter = src_sample_filter,
};

struct collect_source *collect_offcpu_source_new(struct collect_offcpu *o)
{
	struct offcpu_source *os = pgo_calloc(1, sizeof(*os));

	if (!os)
		return NULL;
	os->o = o;
	os->rec = (struct pgo_buf)PGO_BUF_INIT;
	os->src.ops = &offcpu_source_ops;
	os->src.priv = os;
	return &os->src;
}

void collect_offcpu_source_free(struct collect_source *src)
{
	struct offcpu_source *os;

	if (!src)
		return;
	os = src->priv;
	pgo_buf_release(&os->rec);
	free(os);
}
