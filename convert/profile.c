// SPDX-License-Identifier: MIT
/*
 * Loading a profile (convert/profile.h): read every input in time order, keep one map
 * table per process (FORK copies it for a new process, threads share their process's,
 * COMM exec resets it), turn each sampled IP into (DSO, file offset), and aggregate per
 * address and, if asked, per call stack. Symbolization happens later, once per unique
 * address, in the writers.
 */
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "collect/offcpu.h"
#include "collect/pdread.h"
#include "convert/internal.h"
#include "symbolize/ksyms.h"
#include "symbolize/unwind.h"
#include "lib/alloc.h"
#include "lib/cow.h"
#include "lib/report.h"

#define NO_RUN UINT32_MAX
/*
 * Mapping entries of all processes together. Forked children share their parent's until
 * they map something; then each has its own copy, so M mmaps and F children that each map
 * one more file would cost M x F. 2^20 entries (32 MiB) is far above real recordings (a
 * pre-fork server: tens of workers x hundreds of mappings).
 */
#define CONVERT_MAX_LIVE_MAPS ((size_t)1 << 20)

struct mapent {
	uint64_t start, end, pgoff;
	uint32_t dso;
};

/*
 * A process's executable mappings (struct mapent), sorted by start and disjoint, shared
 * copy-on-write by a parent and the children it forks (a copy per fork let a 1 MB file with
 * 2000 mmaps and 10000 forks ask for 600 MB).
 */
struct maptab {
	struct pgo_cow *b;             /* NULL: no mappings */
	struct mapent hit[2];          /* copies of the entries the last IPs looked up fell in,
					  the latest first (end 0: none): samples and their call
					  chains mostly land in one or two binaries (the program,
					  libc), and a check of them skips the binary search.
					  Reset whenever b changes. */
};

struct proc {
	uint32_t pid;
	uint32_t run;
	int collector;                 /* pgo itself: its forks start runs, it has none */
	struct maptab maps;
};

/* Per-input state. */
struct loader {
	struct convert_profile *p;
	struct collect_pdread *r;
	struct proc *procs;
	size_t nr_procs, alloc_procs;
	struct pgo_u64map pid2proc;    /* pid -> index + 1 */
	uint32_t last_pid;             /* the pid proc_find found last (a pid's index never */
	size_t last_proc;              /* changes), index + 1; 0: none */
	const struct collect_pd_attr *view_attr; /* the attr of the last sample, and its view */
	uint32_t view;
	int per_process_runs;          /* a pgo collect file: every process tree is a run */
	int first_run;                 /* runs of this file start here (-1: none yet) */
	const struct collect_pd_attr *sel; /* the on-CPU event aggregated per address */
	uint64_t *frame_buf;
	size_t frame_alloc;
	struct symbolize_unwind *uw;     /* files with user regs + stack copies (dwarf mode) */
	int chains_unwound;            /* pgo collect unwound the user chains (dwarf-unwound) */
	struct pgo_cow_budget maps_budget; /* mapping entries of all processes */
	struct symbolize_unwind_frame uw_frames[SYMBOLIZE_UNWIND_MAX_FRAMES];
};

const char *convert_str(const struct convert_profile *p, uint32_t id)
{
	return id < p->strs.nr ? pgo_strtab_str(&p->strs, id) : "";
}

static uint32_t intern(struct convert_profile *p, const char *s)
{
	long id = pgo_strtab_intern(&p->strs, s ? s : "");

	return id < 0 ? 0 : (uint32_t)id;
}

static int is_special_path(const char *path)
{
	return path[0] == '[' || !strncmp(path, "//", 2) || !strncmp(path, "/memfd:", 7) ||
	       !strncmp(path, "anon_inode:", 11) || !strcmp(path, "");
}

static int is_shared_object(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	return strstr(base, ".so") != NULL;
}

/* Index of the DSO for (path, build-id), created on first use. */
static int dso_get(struct convert_profile *p, struct collect_pdread *r, const char *path,
		   const uint8_t *bid, int bid_len, uint32_t *out)
{
	char key[PATH_MAX + 64], hex[41];
	uint8_t fbid[20];
	size_t i;
	long id;

	if (!bid_len) {
		/* the BUILD_ID feature tells the id of DSOs with samples */
		for (i = 0; i < collect_pdread_nr_build_ids(r); i++) {
			const struct collect_pd_build_id *b = collect_pdread_build_id(r, i);

			if (!strcmp(b->filename, path)) {
				memcpy(fbid, b->id, b->size);
				bid = fbid;
				bid_len = b->size;
				break;
			}
		}
	}
	collect_build_id_hex(bid, bid_len, hex);
	snprintf(key, sizeof(key), "%s\n%s", path, hex);
	id = pgo_strtab_intern(&p->dso_keys, key);
	if (id < 0)
		return -1;
	if ((size_t)id == p->nr_dsos) {
		struct convert_dso *d;

		if (PGO_ALLOC_GROW(p->dsos, p->nr_dsos + 1, p->alloc_dsos) < 0)
			return -1;
		d = &p->dsos[p->nr_dsos++];
		memset(d, 0, sizeof(*d));
		d->path = pgo_strdup(path);
		if (!d->path)
			return -1;
		memcpy(d->build_id, bid, bid_len);
		d->build_id_len = bid_len;
	}
	*out = (uint32_t)id;
	return 0;
}

struct symbolize_symtab *convert_dso_symtab(struct convert_profile *p, uint32_t dso)
{
	struct convert_dso *d;

	if (dso >= p->nr_dsos)
		return NULL;
	d = &p->dsos[dso];
	if (!d->open_tried) {
		d->open_tried = 1;
		/* a missing library only costs names in stacks: say so at -v */
		if (!is_special_path(d->path) &&
		    symbolize_symtab_open(d->path, &p->strs, SYMBOLIZE_SYMTAB_QUIET, &d->st) < 0)
			d->st = NULL;
	}
	return d->st;
}

static int new_run(struct loader *L, uint32_t pid, uint32_t *run)
{
	struct convert_profile *p = L->p;
	struct convert_run_info *ru;

	if (PGO_ALLOC_GROW(p->runs, p->nr_runs + 1, p->alloc_runs) < 0)
		return -1;
	ru = &p->runs[p->nr_runs];
	memset(ru, 0, sizeof(*ru));
	ru->index = p->nr_runs;
	ru->pid = pid;
	ru->comm = "";
	if (L->first_run < 0)
		L->first_run = p->nr_runs;
	*run = p->nr_runs++;
	return 0;
}

static int default_run(struct loader *L, uint32_t pid, uint32_t *run)
{
	if (L->per_process_runs || L->first_run < 0)
		return new_run(L, pid, run);
	*run = L->first_run;
	return 0;
}

static struct proc *proc_find(struct loader *L, uint32_t pid)
{
	uint64_t *v;

	/* consecutive samples are mostly of one process: skip the hash lookup */
	if (L->last_proc && L->last_pid == pid)
		return &L->procs[L->last_proc - 1];
	v = pgo_u64map_find(&L->pid2proc, pid);
	if (!v)
		return NULL;
	L->last_pid = pid;
	L->last_proc = *v;
	return &L->procs[*v - 1];
}

static struct proc *proc_new(struct loader *L, uint32_t pid)
{
	struct proc *pr;

	if (PGO_ALLOC_GROW(L->procs, L->nr_procs + 1, L->alloc_procs) < 0)
		return NULL;
	pr = &L->procs[L->nr_procs];
	memset(pr, 0, sizeof(*pr));
	pr->pid = pid;
	if (pgo_u64map_put(&L->pid2proc, pid, L->nr_procs + 1) < 0)
		return NULL;
	L->nr_procs++;
	return pr;
}

/* The collector's run is made on demand (only if it has samples of its own). */
static int proc_run(struct loader *L, struct proc *pr)
{
	size_t idx = pr - L->procs;
	uint32_t run;

	if (pr->run != NO_RUN)
		return 0;
	if (new_run(L, pr->pid, &run) < 0)
		return -1;
	L->procs[idx].run = run;
	return 0;
}

static struct proc *proc_get(struct loader *L, uint32_t pid)
{
	struct proc *pr = proc_find(L, pid);
	uint32_t run;

	if (pr)
		return pr;
	if (default_run(L, pid, &run) < 0)
		return NULL;
	pr = proc_new(L, pid);
	if (pr)
		pr->run = run;
	return pr;
}

static void maptab_release(struct maptab *t)
{
	pgo_cow_release(&t->b);
	t->hit[0].end = t->hit[1].end = 0;
}

/* dst shares src's mappings (a fork); dst's own are dropped. */
static void maptab_share(struct maptab *dst, const struct maptab *src)
{
	maptab_release(dst);
	dst->b = pgo_cow_share(src->b);
	dst->hit[0] = src->hit[0];
	dst->hit[1] = src->hit[1];
}

/*
 * Insert [start, end) -> dso, cutting whatever it overlaps: the head of an entry that
 * starts before, the tail of one that ends after survive. Binary search and one memmove,
 * not a rebuild of the table per mmap (quadratic in a file with many mmaps).
 */
static int maptab_insert(struct maptab *t, struct pgo_cow_budget *budget, uint64_t start,
			 uint64_t end, uint64_t pgoff, uint32_t dso)
{
	struct mapent repl[3], *e;
	size_t lo, hi, mid, nr, k = 0;
	int own;

	nr = pgo_cow_nr(t->b);
	own = pgo_cow_own(&t->b, nr + 2, sizeof(*e), budget);
	if (own)
		return own;
	t->hit[0].end = t->hit[1].end = 0;
	e = PGO_COW_ELEMS(t->b, struct mapent);
	/* [lo, hi): the entries overlapping [start, end); disjoint entries have sorted ends */
	for (lo = 0, hi = nr; lo < hi;) {
		mid = lo + (hi - lo) / 2;
		if (e[mid].end <= start)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (hi = nr, mid = lo; mid < hi;) {
		size_t m = mid + (hi - mid) / 2;

		if (e[m].start < end)
			mid = m + 1;
		else
			hi = m;
	}
	hi = mid;
	if (lo < hi && e[lo].start < start) {
		repl[k] = e[lo];
		repl[k++].end = start;
	}
	repl[k].start = start;
	repl[k].end = end;
	repl[k].pgoff = pgoff;
	repl[k++].dso = dso;
	if (lo < hi && e[hi - 1].end > end) {
		repl[k] = e[hi - 1];
		repl[k].pgoff += end - repl[k].start;
		repl[k++].start = end;
	}
	memmove(e + lo + k, e + hi, (nr - hi) * sizeof(*e));
	memcpy(e + lo, repl, k * sizeof(*e));
	t->b->nr = nr - (hi - lo) + k;
	return 0;
}

static const struct mapent *maptab_find(const struct maptab *t, uint64_t ip)
{
	size_t lo = 0, hi = pgo_cow_nr(t->b);
	const struct mapent *e = t->b ? PGO_COW_ELEMS(t->b, const struct mapent) : NULL;

	/* frame-pointer chains of code without frame pointers are mostly data: reject it at once */
	if (!hi || ip < e[0].start || ip >= e[hi - 1].end)
		return NULL;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (e[mid].start <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && ip < e[lo - 1].end)
		return &e[lo - 1];
	return NULL;
}

/* maptab_lookup() past its first cached hit */
static const struct mapent *maptab_lookup_more(struct maptab *t, uint64_t ip)
{
	const struct mapent *m;
	struct mapent e;

	if (ip >= t->hit[1].start && ip < t->hit[1].end) {
		e = t->hit[1];
		t->hit[1] = t->hit[0];
		t->hit[0] = e;
		return &t->hit[0];
	}
	m = maptab_find(t, ip);
	if (!m)
		return NULL;
	t->hit[1] = t->hit[0];
	t->hit[0] = *m;
	return &t->hit[0];
}

/*
 * maptab_find through the cached hits (and updating them). The entry returned is valid
 * until the table changes, its contents until the next lookup. The latest hit is checked
 * inline: it is where most IPs are.
 */
static inline const struct mapent *maptab_lookup(struct maptab *t, uint64_t ip)
{
	if (ip >= t->hit[0].start && ip < t->hit[0].end)
		return &t->hit[0];
	return maptab_lookup_more(t, ip);
}

/*
 * [*lo, *hi): from the first mapping's start to the last one's end (empty if none). No IP
 * outside it is mapped: a frame-pointer chain through code built without frame pointers
 * is mostly stack data, and this rejects it without a lookup per entry.
 */
static void maptab_bounds(const struct maptab *t, uint64_t *lo, uint64_t *hi)
{
	size_t nr = pgo_cow_nr(t->b);
	const struct mapent *e = t->b ? PGO_COW_ELEMS(t->b, const struct mapent) : NULL;

	*lo = nr ? e[0].start : 0;
	*hi = nr ? e[nr - 1].end : 0;
}

/*
 * maptab_lookup for the frames of one sample, which mostly lie in the mapping of the frame
 * before: *last (NULL at first) is that mapping (a cached hit: the mapping of some IP looked
 * up since the table last changed). Only valid while the table does not change.
 */
static const struct mapent *maptab_find_near(struct maptab *t, uint64_t ip, const struct mapent **last)
{
	const struct mapent *m = *last;

	if (m && ip >= m->start && ip < m->end)
		return m;
	m = maptab_lookup(t, ip);
	if (m)
		*last = m;
	return m;
}

static int on_mmap(struct loader *L, const struct collect_pd_event *ev)
{
	const struct collect_pd_mmap *m = &ev->u.mmap;
	struct proc *pr;
	uint32_t dso;
	int err;

	if (m->pid == (uint32_t)-1 || !m->executable || !m->len || m->start + m->len < m->start)
		return 0;
	if (ev->type == PERF_RECORD_MMAP2 && m->prot && !(m->prot & PROT_EXEC))
		return 0;
	pr = proc_get(L, m->pid);
	if (!pr)
		return -1;
	if (dso_get(L->p, L->r, m->filename, m->build_id, m->has_build_id ? m->build_id_size : 0,
		    &dso) < 0)
		return -1;
	if (L->uw && symbolize_unwind_mmap(L->uw, m->pid, m->start, m->len, m->pgoff, m->filename) < 0)
		return -1;
	err = maptab_insert(&pr->maps, &L->maps_budget, m->start, m->start + m->len, m->pgoff, dso);
	if (err == -2)
		return pgo_error("'%s': more than %zu process mappings alive at once, in %zu processes "
				 "(a damaged or hostile file?)", collect_pdread_path(L->r),
				 (size_t)CONVERT_MAX_LIVE_MAPS, L->nr_procs);
	return err;
}

static int on_fork(struct loader *L, const struct collect_pd_event *ev)
{
	const struct collect_pd_task *t = &ev->u.task;
	struct proc *parent, *child;
	size_t pidx;

	if (t->pid == t->ppid)
		return 0; /* a new thread shares its process's maps */
	if (L->uw && symbolize_unwind_fork(L->uw, t->pid, t->ppid) < 0)
		return -1;
	parent = proc_find(L, t->ppid);
	if (parent && parent->collector)
		parent = NULL; /* each fork of pgo collect is the root of a new run */
	pidx = parent ? (size_t)(parent - L->procs) : 0;
	child = proc_find(L, t->pid);
	if (!child) {
		child = proc_new(L, t->pid);
		if (!child)
			return -1;
		parent = parent ? &L->procs[pidx] : NULL; /* procs may have moved */
	} else {
		maptab_release(&child->maps);
	}
	if (parent) {
		child->run = parent->run;
		maptab_share(&child->maps, &parent->maps);
		return 0;
	}
	{
		size_t cidx = child - L->procs;
		uint32_t run;

		if (default_run(L, t->pid, &run) < 0)
			return -1;
		L->procs[cidx].run = run;
	}
	return 0;
}

static int on_comm(struct loader *L, const struct collect_pd_event *ev)
{
	const struct collect_pd_comm *c = &ev->u.comm;
	struct convert_run_info *ru;
	struct proc *pr;

	/*
	 * pgo collect names itself (a plain COMM) before forking each run, so perf shows
	 * "pgo" as the parent; that process is not part of any run (each of its forks
	 * starts one) and gets a run only if it has samples of its own.
	 */
	if (L->per_process_runs && !c->exec && c->pid == c->tid && !proc_find(L, c->pid)) {
		pr = proc_new(L, c->pid);
		if (!pr)
			return -1;
		pr->collector = 1;
		pr->run = NO_RUN;
		return 0;
	}
	pr = proc_get(L, c->pid);
	if (!pr)
		return -1;
	if (pr->collector)
		return 0;
	if (c->exec) {
		if (L->uw)
			symbolize_unwind_exec(L->uw, c->pid);
		maptab_release(&pr->maps);
	}
	ru = &L->p->runs[pr->run];
	if (ru->pid == c->pid && c->pid == c->tid)
		ru->comm = convert_str(L->p, intern(L->p, c->comm));
	return 0;
}

/*
 * p->addr_counts, a table of its own: open addressing on a multiplicative hash of the
 * key, 16-byte slots. A sample's count was a pgo_u64map_get of ~70 instructions (xxHash
 * of the key, 24-byte slots): 5% of a 21k-sample convert whose samples fall on ~900
 * addresses.
 */
static size_t addr_slot_of(const struct convert_addr_counts *t, uint64_t key)
{
	return (size_t)((key * 0x9e3779b97f4a7c15ULL) >> t->shift);
}

/* Double t (or make its first 256 slots). */
static int addr_counts_grow(struct convert_addr_counts *t)
{
	size_t cap = t->slots ? 2 * (t->mask + 1) : 256, i, j;
	struct convert_addr_count *s = pgo_calloc(cap, sizeof(*s));
	struct convert_addr_counts n = { s, cap - 1, t->slots ? t->shift - 1 : 64 - 8, t->count };

	if (!s)
		return -1;
	for (i = 0; t->slots && i <= t->mask; i++) {
		if (!t->slots[i].n)
			continue;
		for (j = addr_slot_of(&n, t->slots[i].key); s[j].n; j = (j + 1) & n.mask)
			;
		s[j] = t->slots[i];
	}
	free(t->slots);
	*t = n;
	return 0;
}

/* One more sample at key. */
static inline int addr_counts_add(struct convert_addr_counts *t, uint64_t key)
{
	size_t i;

	if (!t->slots && addr_counts_grow(t) < 0)
		return -1;
	for (i = addr_slot_of(t, key);; i = (i + 1) & t->mask) {
		struct convert_addr_count *e = &t->slots[i];

		if (e->n && e->key == key) {
			e->n++;
			return 0;
		}
		if (!e->n)
			break;
	}
	if (4 * (t->count + 1) > 3 * (t->mask + 1)) {
		if (addr_counts_grow(t) < 0)
			return -1;
		for (i = addr_slot_of(t, key); t->slots[i].n; i = (i + 1) & t->mask)
			;
	}
	t->slots[i].key = key;
	t->slots[i].n = 1;
	t->count++;
	return 0;
}

static int classify_kernel(uint16_t cpumode, uint64_t ip)
{
	if (cpumode == PERF_RECORD_MISC_KERNEL || cpumode == PERF_RECORD_MISC_GUEST_KERNEL ||
	    cpumode == PERF_RECORD_MISC_HYPERVISOR)
		return 1;
	if (cpumode == PERF_RECORD_MISC_USER || cpumode == PERF_RECORD_MISC_GUEST_USER)
		return 0;
	return ip >= 0xffff800000000000ULL;
}

static int add_stack(struct loader *L, const struct collect_pd_sample *s, struct proc *pr,
		     uint32_t view, uint64_t weight)
{
	struct convert_profile *p = L->p;
	uint64_t nr = 0, i, hash, *slot;
	int kernel = classify_kernel(s->cpumode, s->ip), ctx_first = 1, ret, nr_uw = 0;
	const struct mapent *last = NULL;
	struct stack_rec *st;
	size_t idx;

	/* dwarf mode: the user part of the chain comes from unwinding the stack copy */
	if (L->uw && (s->sample_type & PERF_SAMPLE_REGS_USER) && (s->sample_type & PERF_SAMPLE_STACK_USER)) {
		nr_uw = symbolize_unwind_sample(L->uw, s, L->uw_frames, SYMBOLIZE_UNWIND_MAX_FRAMES);
		if (nr_uw < 0)
			return -1;
	}
	/* frames leaf first: callchain (which includes the IP), else the IP alone */
	if (PGO_ALLOC_GROW(L->frame_buf, 2 * (s->nr_callchain + 1 + nr_uw) + 8, L->frame_alloc) < 0)
		return -1;
	/* off-CPU stacks end in the thread state (docs/profile-json.md): a synthetic leaf */
	if (view == CONVERT_STACK_OFFCPU) {
		unsigned int state = OFFCPU_NR_STATES;
		uint64_t count;

		if (!(s->sample_type & PERF_SAMPLE_RAW) ||
		    collect_offcpu_raw_decode(s->raw, s->raw_size, &state, &count))
			state = OFFCPU_NR_STATES;
		L->frame_buf[0] = DSO_STATE;
		L->frame_buf[1] = state;
		nr = 1;
	}
	if ((!(s->sample_type & PERF_SAMPLE_CALLCHAIN) || !s->nr_callchain) && !(nr_uw && !kernel)) {
		const struct mapent *m = kernel ? NULL : maptab_lookup(&pr->maps, s->ip);

		L->frame_buf[2 * nr] = kernel ? DSO_KERNEL : m ? m->dso : DSO_UNKNOWN;
		L->frame_buf[2 * nr + 1] = m ? s->ip - m->start + m->pgoff : s->ip;
		nr++;
	}
	for (i = 0; i < s->nr_callchain; i++) {
		uint64_t ip = s->callchain[i];
		const struct mapent *m;

		if (ip >= (uint64_t)PERF_CONTEXT_MAX) {
			kernel = ip == (uint64_t)PERF_CONTEXT_KERNEL ||
				 ip == (uint64_t)PERF_CONTEXT_GUEST_KERNEL ||
				 ip == (uint64_t)PERF_CONTEXT_HV;
			ctx_first = 1;
			continue;
		}
		if (!kernel && nr_uw)
			continue; /* the unwound frames below replace a user callchain */
		m = kernel ? NULL : maptab_find_near(&pr->maps, ip, &last);
		/* return addresses point after the call: flag them so lookups use ip - 1 */
		L->frame_buf[2 * nr] = (kernel ? DSO_KERNEL : m ? m->dso : DSO_UNKNOWN) |
				       (ctx_first ? 0 : (1ULL << 32));
		L->frame_buf[2 * nr + 1] = m ? ip - m->start + m->pgoff : ip;
		nr++;
		ctx_first = 0;
	}
	for (i = 0; i < (uint64_t)nr_uw; i++) {
		uint64_t ip = L->uw_frames[i].pc;
		const struct mapent *m = maptab_find_near(&pr->maps, ip, &last);

		L->frame_buf[2 * nr] = (m ? m->dso : DSO_UNKNOWN) |
				       (L->uw_frames[i].activation ? 0 : (1ULL << 32));
		L->frame_buf[2 * nr + 1] = m ? ip - m->start + m->pgoff : ip;
		nr++;
	}
	L->frame_buf[2 * nr] = ((uint64_t)pr->run << 32) | view;
	L->frame_buf[2 * nr + 1] = ((uint64_t)s->pid << 32) | s->tid;
	L->frame_buf[2 * nr + 2] = (uintptr_t)s->attr->name;
	hash = pgo_hash_bytes(L->frame_buf, (2 * nr + 3) * 8);
	ret = pgo_u64map_get(&p->stack_index, hash, &slot);
	if (ret < 0)
		return -1;
	for (idx = ret ? 0 : *slot; idx; idx = p->stacks[idx - 1].next) {
		st = &p->stacks[idx - 1];
		if (st->nr != nr || st->run != pr->run || st->view != view || st->pid != s->pid ||
		    st->tid != s->tid || strcmp(convert_str(p, st->attr_name), s->attr->name))
			continue;
		for (i = 0; i < nr; i++) {
			const struct stack_frame *f = &p->frames[st->first + i];

			if (f->dso != (uint32_t)L->frame_buf[2 * i] ||
			    f->ret != ((L->frame_buf[2 * i] >> 32) & 1) || f->addr != L->frame_buf[2 * i + 1])
				break;
		}
		if (i == nr) {
			st->weight += weight;
			st->samples++;
			return 0;
		}
	}
	if (PGO_ALLOC_GROW(p->stacks, p->nr_stacks + 1, p->alloc_stacks) < 0 ||
	    PGO_ALLOC_GROW(p->frames, p->nr_frames + nr, p->alloc_frames) < 0)
		return -1;
	st = &p->stacks[p->nr_stacks];
	memset(st, 0, sizeof(*st));
	st->run = pr->run;
	st->pid = s->pid;
	st->tid = s->tid;
	st->view = view;
	st->attr_name = intern(p, s->attr->name);
	st->nr = nr;
	st->first = p->nr_frames;
	st->weight = weight;
	st->samples = 1;
	st->hash = hash;
	st->next = ret ? 0 : *slot;
	/* the slot may have moved while interning */
	if (pgo_u64map_put(&p->stack_index, hash, p->nr_stacks + 1) < 0)
		return -1;
	for (i = 0; i < nr; i++) {
		struct stack_frame *f = &p->frames[p->nr_frames++];

		f->dso = (uint32_t)L->frame_buf[2 * i];
		f->addr = L->frame_buf[2 * i + 1];
		f->ret = (L->frame_buf[2 * i] >> 32) & 1;
	}
	p->nr_stacks++;
	return 0;
}

/*
 * A user-space IP -> ADDR_KEY through the process's maps; 0 if unmapped. *last as for
 * maptab_find_near: the mapping of the previous IP of the same sample.
 */
static inline int map_key(struct proc *pr, uint64_t ip, uint64_t *key, const struct mapent **last)
{
	const struct mapent *m;
	uint64_t off;

	if (ip >= 0xffff800000000000ULL)
		return 0;
	m = maptab_find_near(&pr->maps, ip, last);
	if (!m)
		return 0;
	off = ip - m->start + m->pgoff;
	if (off >= (1ULL << 40))
		return 0;
	*key = ADDR_KEY(m->dso, off);
	return 1;
}

/*
 * LBR entries (0 = newest): every (from, to) is a taken branch; between the target of
 * entry i and the source of entry i - 1 the code ran straight through.
 */
static int add_branches(struct convert_profile *p, const struct collect_pd_sample *s,
			struct proc *pr)
{
	uint64_t i, from = 0, to = 0, prev_from = 0;
	const struct mapent *last = NULL;
	int have_prev = 0;

	for (i = 0; i < s->nr_branches; i++) {
		const struct perf_branch_entry *be = &s->branches[i];
		int ok_from, ok_to;

		if (be->spec == PERF_BR_SPEC_WRONG_PATH) {
			have_prev = 0;
			continue;
		}
		ok_from = map_key(pr, be->from, &from, &last);
		ok_to = map_key(pr, be->to, &to, &last);
		if (ok_from && ok_to && pairmap_add(&p->branches, from, to, 1) < 0)
			return -1;
		if (ok_to && have_prev && ADDR_KEY_DSO(to) == ADDR_KEY_DSO(prev_from) &&
		    prev_from >= to && prev_from - to <= (1u << 20) &&
		    pairmap_add(&p->ranges, to, prev_from, 1) < 0)
			return -1;
		have_prev = ok_from;
		prev_from = from;
	}
	return 0;
}

/*
 * Call edges of a frame-pointer chain: each return address called the next inner frame.
 * The first user edge of a user-mode sample is also kept apart (leaf_calls): its inner
 * end is the sampled IP itself, so it says through which call site that sample came.
 */
static int add_calls(struct convert_profile *p, const struct collect_pd_sample *s,
		     struct proc *pr, int user_ip, int unwound)
{
	/* chains pgo collect unwound with the CFI: their edges are DWARF-unwound ones */
	struct pairmap *calls = unwound ? &p->ucalls : &p->calls;
	struct pairmap *leaf_calls = unwound ? &p->leaf_ucalls : &p->leaf_calls;
	uint64_t i, inner = 0, key, nr_user = 0, lo, hi;
	const struct mapent *last = NULL;
	int user = 0, have_inner = 0;

	maptab_bounds(&pr->maps, &lo, &hi);
	for (i = 0; i < s->nr_callchain; i++) {
		uint64_t ip = s->callchain[i];

		if (ip >= (uint64_t)PERF_CONTEXT_MAX) {
			user = ip == (uint64_t)PERF_CONTEXT_USER;
			have_inner = 0;
			continue;
		}
		if (user)
			nr_user++;
		if (!user || ip < lo || ip >= hi || !map_key(pr, ip, &key, &last)) {
			have_inner = 0;
			/*
			 * the rest of a chain through frameless code: skip unmapped user entries
			 * at once, in a loop of a load and three compares per entry (lua's chains
			 * run to 127 entries of stack data: this loop is ~3.5% of a short
			 * convert, a tenth less than with the tests of the loop around it)
			 */
			if (user) {
				const uint64_t *c = s->callchain + i + 1, *end = s->callchain + s->nr_callchain;
				uint64_t span = hi - lo;

				while (c < end && *c - lo >= span && *c < (uint64_t)PERF_CONTEXT_MAX)
					c++;
				nr_user += (uint64_t)(c - s->callchain) - (i + 1);
				i = (uint64_t)(c - s->callchain) - 1;
			}
			continue;
		}
		if (have_inner && pairmap_add(calls, key, inner, 1) < 0)
			return -1;
		/* the first user entry is the IP only when the sample was taken in user mode */
		if (have_inner && nr_user == 2 && user_ip && s->callchain[i - 1] == s->ip &&
		    pairmap_add(leaf_calls, key, inner, 1) < 0)
			return -1;
		inner = key;
		have_inner = 1;
	}
	return 0;
}

/*
 * Call edges of a DWARF-unwound user stack. Unlike a frame-pointer chain, CFI also
 * unwinds out of a frameless leaf, so the edge into it is real.
 */
static int add_unwound_calls(struct loader *L, const struct collect_pd_sample *s,
			     struct proc *pr)
{
	const struct mapent *last = NULL;
	uint64_t inner, outer;
	int i, n;

	n = symbolize_unwind_sample(L->uw, s, L->uw_frames, SYMBOLIZE_UNWIND_MAX_FRAMES);
	if (n < 0)
		return -1;
	for (i = 0; i + 1 < n; i++) {
		if (L->uw_frames[i + 1].activation || !map_key(pr, L->uw_frames[i].pc, &inner, &last) ||
		    !map_key(pr, L->uw_frames[i + 1].pc, &outer, &last))
			continue;
		if (pairmap_add(&L->p->ucalls, outer, inner, 1) < 0)
			return -1;
		if (i == 0 && pairmap_add(&L->p->leaf_ucalls, outer, inner, 1) < 0)
			return -1;
	}
	return 0;
}

static int on_sample(struct loader *L, const struct collect_pd_event *ev)
{
	const struct collect_pd_sample *s = &ev->u.sample;
	struct convert_profile *p = L->p;
	struct convert_run_info *ru;
	struct proc *pr;
	uint64_t weight = s->period;
	uint32_t view;

	p->info.samples++;
	if (!(s->sample_type & PERF_SAMPLE_PERIOD))
		weight = s->attr->attr.freq ? 1 : s->attr->attr.sample_period;
	/* proc_find()'s shortcut, here without the calls */
	if (L->last_proc && L->last_pid == s->pid && L->procs[L->last_proc - 1].run != NO_RUN)
		pr = &L->procs[L->last_proc - 1];
	else if (!(pr = proc_get(L, s->pid)) || proc_run(L, pr) < 0)
		return -1;
	if (s->attr != L->view_attr) {
		L->view_attr = s->attr;
		L->view = !strcmp(s->attr->name, PD_OFFCPU_EVENT_NAME) ? CONVERT_STACK_OFFCPU :
			  CONVERT_STACK_CPU;
	}
	view = L->view;
	ru = &p->runs[pr->run];
	if (!ru->start_ns || (ev->time && ev->time < ru->start_ns))
		ru->start_ns = ev->time;
	if (ev->time > ru->end_ns)
		ru->end_ns = ev->time;
	if (view == CONVERT_STACK_OFFCPU) {
		ru->offcpu_ns += weight;
	} else {
		ru->samples++;
		ru->cpu_ns += weight;
	}
	if (s->attr == L->sel && (s->sample_type & PERF_SAMPLE_IP)) {
		int kernel = classify_kernel(s->cpumode, s->ip);

		if (kernel) {
			p->info.samples_kernel++;
		} else {
			const struct mapent *m = maptab_lookup(&pr->maps, s->ip);
			uint64_t off = m ? s->ip - m->start + m->pgoff : 0;

			if (!m || off >= (1ULL << 40)) {
				p->info.samples_unmapped++;
			} else {
				if (addr_counts_add(&p->addr_counts, ADDR_KEY(m->dso, off)) < 0)
					return -1;
				p->dsos[m->dso].samples++;
			}
		}
		if ((s->sample_type & PERF_SAMPLE_BRANCH_STACK) && add_branches(p, s, pr) < 0)
			return -1;
		if ((s->sample_type & PERF_SAMPLE_CALLCHAIN) &&
		    add_calls(p, s, pr, !kernel, L->chains_unwound) < 0)
			return -1;
		/* stacks unwind in add_stack; compiler profiles only need the edges */
		if (L->uw && !p->want_stacks && !kernel &&
		    (s->sample_type & PERF_SAMPLE_REGS_USER) && (s->sample_type & PERF_SAMPLE_STACK_USER) &&
		    add_unwound_calls(L, s, pr) < 0)
			return -1;
	}
	if (p->want_stacks)
		return add_stack(L, s, pr, view, weight);
	return 0;
}

static int load_one(struct convert_profile *p, const char *path)
{
	struct loader L = { .p = p, .first_run = -1, .maps_budget = { 0, CONVERT_MAX_LIVE_MAPS } };
	struct collect_pd_event ev;
	const char *argv0, *base;
	size_t i;
	int ret, err = -1;

	if (collect_pdread_open(path, &L.r) < 0)
		return -1;
	argv0 = collect_pdread_argv0(L.r);
	base = argv0 ? strrchr(argv0, '/') : NULL;
	base = base ? base + 1 : argv0;
	L.per_process_runs = base && !strncmp(base, "pgo", 3);
	for (i = 0; i < collect_pdread_nr_attrs(L.r); i++) {
		const struct collect_pd_attr *a = collect_pdread_attr(L.r, i);

		if (!strcmp(a->name, PD_OFFCPU_EVENT_NAME)) {
			p->info.has_offcpu = 1;
			continue;
		}
		if (a->attr.sample_type & PERF_SAMPLE_CALLCHAIN)
			p->info.has_callchain = 1;
		if (a->attr.sample_type & PERF_SAMPLE_BRANCH_STACK)
			p->info.has_branch_stack = 1;
		if (!L.sel) {
			L.sel = a;
			if (!p->info.event) {
				p->info.event = convert_str(p, intern(p, a->name));
				p->info.rate_hz = a->attr.freq ? a->attr.sample_freq : 0;
				p->info.period = a->attr.freq ? 0 : a->attr.sample_period;
				p->info.period_ns = collect_attr_is_ns_clock(&a->attr);
			}
		}
	}
	{
		for (i = 0; i < collect_pdread_nr_attrs(L.r); i++) {
			uint64_t st = collect_pdread_attr(L.r, i)->attr.sample_type;

			if ((st & PERF_SAMPLE_REGS_USER) && (st & PERF_SAMPLE_STACK_USER))
				break;
		}
		if (i < collect_pdread_nr_attrs(L.r) && symbolize_unwind_new(&L.uw) < 0)
			goto out;
	}
	{
		const char *meta = collect_pdread_pgo_meta(L.r);

		L.chains_unwound = meta && strstr(meta, " callgraph=dwarf-unwound ");
	}
	if (!p->info.command && collect_pdread_cmdline(L.r))
		p->info.command = convert_str(p, intern(p, collect_pdread_cmdline(L.r)));
	while ((ret = collect_pdread_next(L.r, &ev)) > 0) {
		int r2 = 0;

		switch (ev.type) {
		case PERF_RECORD_MMAP:
		case PERF_RECORD_MMAP2:
			r2 = on_mmap(&L, &ev);
			break;
		case PERF_RECORD_FORK:
			r2 = on_fork(&L, &ev);
			break;
		case PERF_RECORD_EXIT:
			if (L.uw && ev.u.task.pid == ev.u.task.tid)
				symbolize_unwind_exit(L.uw, ev.u.task.pid);
			break;
		case PERF_RECORD_COMM:
			r2 = on_comm(&L, &ev);
			break;
		case PERF_RECORD_SAMPLE:
			r2 = on_sample(&L, &ev);
			break;
		case PERF_RECORD_LOST:
		case PERF_RECORD_LOST_SAMPLES:
			p->info.lost += ev.u.lost.lost;
			if (L.first_run >= 0)
				p->runs[p->nr_runs - 1].lost += ev.u.lost.lost;
			break;
		default:
			break;
		}
		if (r2 < 0)
			goto out;
	}
	if (ret < 0)
		goto out;
	{
		const struct collect_pdread_stats *st = collect_pdread_stats(L.r);

		p->info.unknown_records += st->unknown;
		pgo_debug(1, "'%s': records read through a window of at most %llu MB of the file; "
			  "%llu MB released behind the walk", path,
			  (unsigned long long)(st->max_window >> 20),
			  (unsigned long long)(st->released >> 20));
		if (st->compressed)
			pgo_debug(1, "'%s': %llu compressed records (perf record -z) decompressed to "
				  "%llu KB, %s", path, (unsigned long long)st->compressed,
				  (unsigned long long)(st->unpacked >> 10),
				  st->unpacked_in_file ? "read from a temporary file" : "held in memory");
	}
	if (L.uw)
		symbolize_unwind_report(L.uw, path, &p->info.unwind);
	err = 0;
out:
	symbolize_unwind_free(L.uw);
	for (i = 0; i < L.nr_procs; i++)
		maptab_release(&L.procs[i].maps);
	free(L.procs);
	free(L.frame_buf);
	pgo_u64map_release(&L.pid2proc);
	collect_pdread_free(L.r);
	return err;
}

/* What same_file() worked out about the binary (b), once. */
struct same_file_b {
	int have_st;                   /* 0: not yet, 1: st is b's, -1: b cannot be stat'ed */
	struct stat st;
	int have_real;                 /* 0: not yet, 1: real is b's real path, -1: none */
	char real[PATH_MAX];
};

/*
 * Whether a and b have the same real path. Each realpath() is a readlink per component
 * of the path: b's is worked out once, not once per DSO of the recording, and a DSO that
 * is another file (another inode) or none ([vdso]: realpath() would fail as stat() does)
 * is told by a stat.
 */
static int same_file(const char *a, const char *b, struct same_file_b *bb)
{
	char ra[PATH_MAX];
	struct stat sa;

	if (!bb->have_st)
		bb->have_st = stat(b, &bb->st) ? -1 : 1;
	if (bb->have_st < 0 || stat(a, &sa) || sa.st_dev != bb->st.st_dev || sa.st_ino != bb->st.st_ino)
		return 0;
	if (!bb->have_real)
		bb->have_real = realpath(b, bb->real) ? 1 : -1;
	if (bb->have_real < 0 || !realpath(a, ra))
		return 0;
	return !strcmp(ra, bb->real);
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/*
 * required: 0 = best effort (stacks; failures are quiet), 1 = must be readable and have
 * samples, 2 = must be readable, no samples is a warning (one of several -b).
 */
static int add_binary(struct convert_profile *p, const char *path, int force, int required)
{
	struct convert_binary *b;
	const uint8_t *bid;
	char hex[41], rhex[41];
	struct same_file_b bb = { 0 };
	size_t i, matched = 0, mismatched = 0;
	int bid_len;
	const char *rec_hex = NULL;

	b = &p->bins[p->nr_bins];
	memset(b, 0, sizeof(*b));
	b->path = pgo_strdup(path);
	if (!b->path)
		return -1;
	/* for stacks alone a binary is a bonus: without one, no error */
	if (symbolize_symtab_open(path, &p->strs,
				SYMBOLIZE_SYMTAB_NEED_DWARF | (required ? 0 : SYMBOLIZE_SYMTAB_QUIET), &b->st) < 0) {
		free(b->path);
		return required ? -1 : 0;
	}
	p->nr_bins++;
	bid_len = symbolize_symtab_build_id(b->st, &bid);
	collect_build_id_hex(bid, bid_len, b->build_id_hex);
	memcpy(hex, b->build_id_hex, sizeof(hex));
	for (i = 0; i < p->nr_dsos; i++) {
		struct convert_dso *d = &p->dsos[i];
		int by_id = bid_len && d->build_id_len == bid_len && !memcmp(d->build_id, bid, bid_len);
		int by_path;

		if (d->binary)
			continue;
		/* the cheap tests first: same_file() makes system calls */
		by_path = !by_id && (!strcmp(d->path, path) || !strcmp(base_name(d->path), base_name(path)) ||
				     same_file(d->path, path, &bb));
		if (!by_id && !by_path)
			continue;
		if (!by_id && d->build_id_len && bid_len) {
			if (d->samples) {
				mismatched++;
				collect_build_id_hex(d->build_id, d->build_id_len, rhex);
				rec_hex = rhex;
			}
			if (!force)
				continue;
		}
		d->binary = p->nr_bins;
		matched += d->samples;
	}
	if (mismatched && !matched && !force && !required) {
		pgo_warn("'%s' was rebuilt since the recording; its samples stay unresolved", path);
		return 0;
	}
	if (mismatched && !matched && !force)
		return pgo_error("'%s' was rebuilt since the recording (build-id %s, recorded %s); "
				 "record again, or use --force to convert anyway", path, hex,
				 rec_hex ? rec_hex : "?");
	if (mismatched && force)
		pgo_warn("'%s' does not match the recorded build-id; converting anyway (--force)", path);
	if (!matched && required == 1)
		return pgo_error("no samples in '%s' (the recording has none in this binary; check "
				 "-b and -i)", path);
	if (!matched && required > 1)
		pgo_warn("no samples in '%s'", path);
	return 0;
}

static int select_binaries(struct convert_profile *p, const struct convert_options *o)
{
	size_t i, best = SIZE_MAX;
	int required = !o->want_stacks;

	p->bins = pgo_calloc(o->nr_binaries ? o->nr_binaries : 1, sizeof(*p->bins));
	if (!p->bins)
		return -1;
	/* with several binaries, one without samples is a warning; all without, an error */
	for (i = 0; i < o->nr_binaries; i++)
		if (add_binary(p, o->binaries[i], o->force, o->nr_binaries > 1 ? 2 : 1) < 0)
			return -1;
	if (o->nr_binaries > 1) {
		uint64_t total = 0;

		for (i = 0; i < p->nr_dsos; i++)
			if (p->dsos[i].binary)
				total += p->dsos[i].samples;
		if (!total && required)
			return pgo_error("no samples in any of the %zu binaries (check -b and -i)",
					 o->nr_binaries);
	}
	if (o->nr_binaries)
		return 0;
	for (i = 0; i < p->nr_dsos; i++) {
		const struct convert_dso *d = &p->dsos[i];

		if (!d->samples || is_special_path(d->path) || is_shared_object(d->path))
			continue;
		if (best == SIZE_MAX || d->samples > p->dsos[best].samples)
			best = i;
	}
	if (best == SIZE_MAX) {
		if (!required)
			return 0;
		return pgo_error("no samples in a main executable; name the binary with -b");
	}
	pgo_debug(1, "binary: '%s', the executable with the most samples (%llu)", p->dsos[best].path,
		  (unsigned long long)p->dsos[best].samples);
	if (add_binary(p, p->dsos[best].path, o->force, required) < 0 && required) {
		pgo_info("'%s' was chosen as the executable with the most samples; name the binary "
			 "with -b", p->dsos[best].path);
		return -1;
	}
	return 0;
}

/* ADDR_KEY pairs whose both ends lie in one selected binary -> that binary's vaddr pairs. */
static int attribute_pairs(struct convert_profile *p, const struct pairmap *in, size_t which)
{
	size_t i;

	for (i = 0; i < in->nr; i++) {
		const struct pair_ent *e = &in->e[i];
		const struct convert_dso *da = &p->dsos[ADDR_KEY_DSO(e->a)];
		const struct convert_dso *db = &p->dsos[ADDR_KEY_DSO(e->b)];
		struct convert_binary *b;
		struct pairmap *out;
		uint64_t va, vb;

		if (!da->binary || da->binary != db->binary)
			continue;
		b = &p->bins[da->binary - 1];
		if (symbolize_symtab_offset_to_vaddr(b->st, ADDR_KEY_OFF(e->a), &va) < 0 ||
		    symbolize_symtab_offset_to_vaddr(b->st, ADDR_KEY_OFF(e->b), &vb) < 0)
			continue;
		out = which == 0 ? &b->branches : which == 1 ? &b->ranges : which == 2 ? &b->calls :
		      which == 3 ? &b->ucalls : which == 4 ? &b->leaf_calls : &b->leaf_ucalls;
		if (pairmap_add(out, va, vb, e->count) < 0)
			return -1;
	}
	return 0;
}

static int attribute_samples(struct convert_profile *p)
{
	size_t i;
	uint64_t user = 0;

	for (i = 0; p->addr_counts.slots && i <= p->addr_counts.mask; i++) {
		const struct convert_addr_count *s = &p->addr_counts.slots[i];
		const struct convert_dso *d;
		struct convert_binary *b;
		uint64_t vaddr, *v;

		if (!s->n)
			continue;
		user += s->n;
		d = &p->dsos[ADDR_KEY_DSO(s->key)];
		if (!d->binary)
			continue;
		b = &p->bins[d->binary - 1];
		if (symbolize_symtab_offset_to_vaddr(b->st, ADDR_KEY_OFF(s->key), &vaddr) < 0) {
			p->info.samples_unmapped += s->n;
			user -= s->n;
			continue;
		}
		if (pgo_u64map_get(&b->counts, vaddr, &v) < 0)
			return -1;
		*v += s->n;
		b->samples += s->n;
		p->info.samples_binary += s->n;
	}
	p->info.samples_other_dso = user - p->info.samples_binary;
	if (attribute_pairs(p, &p->branches, 0) < 0 || attribute_pairs(p, &p->ranges, 1) < 0 ||
	    attribute_pairs(p, &p->calls, 2) < 0 || attribute_pairs(p, &p->ucalls, 3) < 0 ||
	    attribute_pairs(p, &p->leaf_calls, 4) < 0 || attribute_pairs(p, &p->leaf_ucalls, 5) < 0)
		return -1;
	return 0;
}

int convert_profile_load(const struct convert_options *o, struct convert_profile **out)
{
	struct convert_profile *p;
	size_t i;

	*out = NULL;
	if (!o->nr_inputs)
		return pgo_error("no input files");
	p = pgo_calloc(1, sizeof(*p));
	if (!p)
		return -1;
	p->want_stacks = o->want_stacks;
	p->inline_max_size = o->inline_max_size;
	for (i = 0; i < o->nr_inputs; i++)
		if (load_one(p, o->inputs[i]) < 0)
			goto fail;
	if (select_binaries(p, o) < 0 || attribute_samples(p) < 0)
		goto fail;
	*out = p;
	return 0;
fail:
	convert_profile_free(p);
	return -1;
}

void convert_profile_free(struct convert_profile *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->nr_bins; i++) {
		symbolize_symtab_free(p->bins[i].st);
		pgo_u64map_release(&p->bins[i].counts);
		pairmap_release(&p->bins[i].branches);
		pairmap_release(&p->bins[i].ranges);
		pairmap_release(&p->bins[i].calls);
		pairmap_release(&p->bins[i].ucalls);
		pairmap_release(&p->bins[i].leaf_calls);
		pairmap_release(&p->bins[i].leaf_ucalls);
		free(p->bins[i].path);
	}
	free(p->bins);
	for (i = 0; i < p->nr_dsos; i++) {
		symbolize_symtab_free(p->dsos[i].st);
		free(p->dsos[i].path);
	}
	free(p->dsos);
	free(p->addr_counts.slots);
	pairmap_release(&p->branches);
	pairmap_release(&p->ranges);
	pairmap_release(&p->calls);
	pairmap_release(&p->ucalls);
	pairmap_release(&p->leaf_calls);
	pairmap_release(&p->leaf_ucalls);
	pgo_u64map_release(&p->stack_index);
	free(p->stacks);
	free(p->frames);
	free(p->runs);
	symbolize_ksyms_free(p->ksyms);
	pgo_strtab_release(&p->dso_keys);
	pgo_strtab_release(&p->strs);
	free(p);
}

const struct convert_info *convert_profile_info(const struct convert_profile *p)
{
	return &p->info;
}

size_t convert_profile_nr_binaries(const struct convert_profile *p)
{
	return p->nr_bins;
}

const char *convert_profile_binary_path(const struct convert_profile *p, size_t i)
{
	return i < p->nr_bins ? p->bins[i].path : NULL;
}

const char *convert_profile_binary_build_id(const struct convert_profile *p, size_t i)
{
	return i < p->nr_bins ? p->bins[i].build_id_hex : NULL;
}

size_t convert_profile_nr_runs(const struct convert_profile *p)
{
	return p->nr_runs;
}

const struct convert_run_info *convert_profile_run_info(const struct convert_profile *p, size_t i)
{
	return i < p->nr_runs ? &p->runs[i] : NULL;
}
