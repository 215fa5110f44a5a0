// SPDX-License-Identifier: MIT
/*
 * The processes of a recording as a profile replays it (convert/profile_internal.h): each
 * one's run and map table (FORK copies it for a new process, threads share their
 * process's, COMM exec resets it), and the DSOs the maps name.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "convert/profile_internal.h"
#include "lib/alloc.h"
#include "lib/report.h"

int convert_is_special_path(const char *path)
{
	return path[0] == '[' || !strncmp(path, "//", 2) || !strncmp(path, "/memfd:", 7) ||
	       !strncmp(path, "anon_inode:", 11) || !strcmp(path, "");
}

int convert_is_shared_object(const char *path)
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
		if (!convert_is_special_path(d->path) &&
		    symbolize_symtab_open(d->path, &p->strs, SYMBOLIZE_SYMTAB_QUIET, &d->st) < 0)
			d->st = NULL;
	}
	return d->st;
}

static int new_run(struct loader *L, uint32_t pid, uint32_t *run)
{
	struct convert_profile *p = L->p;
	struct convert_run_info *ru;

	/* pprof inputs without runs of their own are one run, however many files */
	if (p->join_runs && p->joined_run) {
		*run = p->joined_run - 1;
		if (L->first_run < 0)
			L->first_run = *run;
		return 0;
	}
	if (PGO_ALLOC_GROW(p->runs, p->nr_runs + 1, p->alloc_runs) < 0)
		return -1;
	ru = &p->runs[p->nr_runs];
	memset(ru, 0, sizeof(*ru));
	ru->index = p->nr_runs;
	ru->pid = pid;
	ru->comm = "";
	if (L->first_run < 0)
		L->first_run = p->nr_runs;
	if (p->join_runs)
		p->joined_run = p->nr_runs + 1;
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

struct proc *convert_proc_find(struct loader *L, uint32_t pid)
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
int convert_proc_run(struct loader *L, struct proc *pr)
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

struct proc *convert_proc_get(struct loader *L, uint32_t pid)
{
	struct proc *pr = convert_proc_find(L, pid);
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

void convert_maptab_release(struct maptab *t)
{
	pgo_cow_release(&t->b);
	t->hit[0].end = t->hit[1].end = 0;
}

/* dst shares src's mappings (a fork); dst's own are dropped. */
static void maptab_share(struct maptab *dst, const struct maptab *src)
{
	convert_maptab_release(dst);
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

int convert_on_mmap(struct loader *L, const struct collect_pd_event *ev)
{
	const struct collect_pd_mmap *m = &ev->u.mmap;
	struct proc *pr;
	uint32_t dso;
	int err;

	if (m->pid == (uint32_t)-1 || !m->executable || !m->len || m->start + m->len < m->start)
		return 0;
	if (ev->type == PERF_RECORD_MMAP2 && m->prot && !(m->prot & PROT_EXEC))
		return 0;
	pr = convert_proc_get(L, m->pid);
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

int convert_on_fork(struct loader *L, const struct collect_pd_event *ev)
{
	const struct collect_pd_task *t = &ev->u.task;
	struct proc *parent, *child;
	size_t pidx;

	if (t->pid == t->ppid)
		return 0; /* a new thread shares its process's maps */
	if (L->uw && symbolize_unwind_fork(L->uw, t->pid, t->ppid) < 0)
		return -1;
	parent = convert_proc_find(L, t->ppid);
	if (parent && parent->collector)
		parent = NULL; /* each fork of pgo collect is the root of a new run */
	pidx = parent ? (size_t)(parent - L->procs) : 0;
	child = convert_proc_find(L, t->pid);
	if (!child) {
		child = proc_new(L, t->pid);
		if (!child)
			return -1;
		parent = parent ? &L->procs[pidx] : NULL; /* procs may have moved */
	} else {
		convert_maptab_release(&child->maps);
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

int convert_on_comm(struct loader *L, const struct collect_pd_event *ev)
{
	const struct collect_pd_comm *c = &ev->u.comm;
	struct convert_run_info *ru;
	struct proc *pr;

	/*
	 * pgo collect names itself (a plain COMM) before forking each run, so perf shows
	 * "pgo" as the parent; that process is not part of any run (each of its forks
	 * starts one) and gets a run only if it has samples of its own.
	 */
	if (L->per_process_runs && !c->exec && c->pid == c->tid && !convert_proc_find(L, c->pid)) {
		pr = proc_new(L, c->pid);
		if (!pr)
			return -1;
		pr->collector = 1;
		pr->run = NO_RUN;
		return 0;
	}
	pr = convert_proc_get(L, c->pid);
	if (!pr)
		return -1;
	if (pr->collector)
		return 0;
	if (c->exec) {
		if (L->uw)
			symbolize_unwind_exec(L->uw, c->pid);
		convert_maptab_release(&pr->maps);
	}
	ru = &L->p->runs[pr->run];
	if (ru->pid == c->pid && c->pid == c->tid)
		ru->comm = convert_str(L->p, convert_intern(L->p, c->comm));
	return 0;
}
