// SPDX-License-Identifier: MIT
/*
 * Loading a profile (convert/profile.h): read every input in time order, keep one map
 * table per process (FORK copies it for a new process, threads share their process's,
 * COMM exec resets it), turn each sampled IP into (DSO, file offset), and aggregate per
 * address and, if asked, per call stack. Symbolization happens later, once per unique
 * address, in the writers. The processes and their maps are in profile_maps.c, the
 * choice of binaries in profile_binaries.c.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collect/offcpu.h"
#include "convert/pprof_read.h"
#include "convert/profile.h"
#include "convert/profile_internal.h"
#include "symbolize/ksyms.h"
#include "lib/alloc.h"
#include "lib/report.h"

const char *convert_str(const struct convert_profile *p, uint32_t id)
{
	return id < p->strs.nr ? pgo_strtab_str(&p->strs, id) : "";
}

/*
 * A process's map table, read: the lookups of every sample's addresses, here beside the
 * replay, which inlines them (callgrind: 0.7% more instructions in a convert when
 * profile_maps.c held them). profile_maps.c writes the tables.
 */
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
static inline int addr_counts_add(struct convert_addr_counts *t, uint64_t key, uint64_t n)
{
	size_t i;

	if (!t->slots && addr_counts_grow(t) < 0)
		return -1;
	for (i = addr_slot_of(t, key);; i = (i + 1) & t->mask) {
		struct convert_addr_count *e = &t->slots[i];

		if (e->n && e->key == key) {
			e->n += n;
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
	t->slots[i].n = n;
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

/*
 * The frames of sample s into L->frame_buf, leaf first, (dso | return-address flag << 32,
 * address) pairs: an off-CPU stack's thread state, the IP unless the callchain has it,
 * the callchain, and in dwarf mode the frames unwound from the stack copy in place of its
 * user part. *nr_out: how many. 0 or -1.
 */
static int stack_frames(struct loader *L, const struct collect_pd_sample *s, struct proc *pr,
			uint32_t view, uint64_t *nr_out)
{
	uint64_t nr = 0, i;
	int kernel = classify_kernel(s->cpumode, s->ip), ctx_first = 1, nr_uw = 0;
	const struct mapent *last = NULL;

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
	*nr_out = nr;
	return 0;
}

/*
 * The stack of chain idx (p->stack_index) whose frames are L->frame_buf's nr and whose
 * thread, run, view and event are s's, or NULL.
 */
static struct stack_rec *stack_find(const struct loader *L, size_t idx, uint64_t nr,
				    const struct collect_pd_sample *s, const struct proc *pr, uint32_t view)
{
	struct convert_profile *p = L->p;
	struct stack_rec *st;
	uint64_t i;

	for (; idx; idx = p->stacks[idx - 1].next) {
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
		if (i == nr)
			return st;
	}
	return NULL;
}

/* A new stack of L->frame_buf's nr frames, first of the chain of its hash. 0 or -1. */
static int stack_new(struct loader *L, uint64_t nr, const struct collect_pd_sample *s, const struct proc *pr,
		     uint32_t view, uint64_t weight, uint64_t n, uint64_t hash, size_t next)
{
	struct convert_profile *p = L->p;
	struct stack_rec *st;
	uint64_t i;

	if (PGO_ALLOC_GROW(p->stacks, p->nr_stacks + 1, p->alloc_stacks) < 0 ||
	    PGO_ALLOC_GROW(p->frames, p->nr_frames + nr, p->alloc_frames) < 0)
		return -1;
	st = &p->stacks[p->nr_stacks];
	memset(st, 0, sizeof(*st));
	st->run = pr->run;
	st->pid = s->pid;
	st->tid = s->tid;
	st->view = view;
	st->attr_name = convert_intern(p, s->attr->name);
	st->nr = nr;
	st->first = p->nr_frames;
	st->weight = weight;
	st->samples = n;
	st->hash = hash;
	st->next = next;
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

static int add_stack(struct loader *L, const struct collect_pd_sample *s, struct proc *pr,
		     uint32_t view, uint64_t weight, uint64_t n)
{
	struct convert_profile *p = L->p;
	uint64_t nr, hash, *slot;
	struct stack_rec *st;
	int ret;

	if (stack_frames(L, s, pr, view, &nr) < 0)
		return -1;
	L->frame_buf[2 * nr] = ((uint64_t)pr->run << 32) | view;
	L->frame_buf[2 * nr + 1] = ((uint64_t)s->pid << 32) | s->tid;
	L->frame_buf[2 * nr + 2] = (uintptr_t)s->attr->name;
	hash = pgo_hash_bytes(L->frame_buf, (2 * nr + 3) * 8);
	ret = pgo_u64map_get(&p->stack_index, hash, &slot);
	if (ret < 0)
		return -1;
	st = stack_find(L, ret ? 0 : *slot, nr, s, pr, view);
	if (st) {
		st->weight += weight;
		st->samples += n;
		return 0;
	}
	return stack_new(L, nr, s, pr, view, weight, n, hash, ret ? 0 : *slot);
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
		     struct proc *pr, int user_ip, int unwound, uint64_t n)
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
		if (have_inner && pairmap_add(calls, key, inner, n) < 0)
			return -1;
		/* the first user entry is the IP only when the sample was taken in user mode */
		if (have_inner && nr_user == 2 && user_ip && s->callchain[i - 1] == s->ip &&
		    pairmap_add(leaf_calls, key, inner, n) < 0)
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
	/* a translated pprof sample stands for PERF_SAMPLE_WEIGHT samples (pprof_read.h) */
	uint64_t n = p->weight_is_count && (s->sample_type & PERF_SAMPLE_WEIGHT) && s->weight ?
		     s->weight : 1;
	uint32_t view;

	p->info.samples += n;
	if (!(s->sample_type & PERF_SAMPLE_PERIOD))
		weight = s->attr->attr.freq ? 1 : s->attr->attr.sample_period;
	/* convert_proc_find()'s shortcut, here without the calls */
	if (L->last_proc && L->last_pid == s->pid && L->procs[L->last_proc - 1].run != NO_RUN)
		pr = &L->procs[L->last_proc - 1];
	else if (!(pr = convert_proc_get(L, s->pid)) || convert_proc_run(L, pr) < 0)
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
		ru->samples += n;
		ru->cpu_ns += weight;
	}
	if (s->attr == L->sel && (s->sample_type & PERF_SAMPLE_IP)) {
		int kernel = classify_kernel(s->cpumode, s->ip);

		if (kernel) {
			p->info.samples_kernel += n;
		} else {
			const struct mapent *m = maptab_lookup(&pr->maps, s->ip);
			uint64_t off = m ? s->ip - m->start + m->pgoff : 0;

			if (!m || off >= (1ULL << 40)) {
				p->info.samples_unmapped += n;
			} else {
				if (addr_counts_add(&p->addr_counts, ADDR_KEY(m->dso, off), n) < 0)
					return -1;
				p->dsos[m->dso].samples += n;
			}
		}
		if ((s->sample_type & PERF_SAMPLE_BRANCH_STACK) && add_branches(p, s, pr) < 0)
			return -1;
		if ((s->sample_type & PERF_SAMPLE_CALLCHAIN) &&
		    add_calls(p, s, pr, !kernel, L->chains_unwound, n) < 0)
			return -1;
		/* stacks unwind in add_stack; compiler profiles only need the edges */
		if (L->uw && !p->want_stacks && !kernel &&
		    (s->sample_type & PERF_SAMPLE_REGS_USER) && (s->sample_type & PERF_SAMPLE_STACK_USER) &&
		    add_unwound_calls(L, s, pr) < 0)
			return -1;
	}
	if (p->want_stacks)
		return add_stack(L, s, pr, view, weight, n);
	return 0;
}

/*
 * What the recording's attrs say: whether it has off-CPU samples, call chains and branch
 * stacks, the event aggregated (the first on-CPU one), and whether its stack copies need
 * the unwinder. 0 or -1.
 */
static int read_attrs(struct loader *L)
{
	struct convert_profile *p = L->p;
	const char *argv0, *base;
	size_t i;

	argv0 = collect_pdread_argv0(L->r);
	base = argv0 ? strrchr(argv0, '/') : NULL;
	base = base ? base + 1 : argv0;
	L->per_process_runs = base && !strncmp(base, "pgo", 3);
	for (i = 0; i < collect_pdread_nr_attrs(L->r); i++) {
		const struct collect_pd_attr *a = collect_pdread_attr(L->r, i);

		if (!strcmp(a->name, PD_OFFCPU_EVENT_NAME)) {
			p->info.has_offcpu = 1;
			continue;
		}
		if (a->attr.sample_type & PERF_SAMPLE_CALLCHAIN)
			p->info.has_callchain = 1;
		if (a->attr.sample_type & PERF_SAMPLE_BRANCH_STACK)
			p->info.has_branch_stack = 1;
		if (!L->sel) {
			L->sel = a;
			if (!p->info.event) {
				p->info.event = convert_str(p, convert_intern(p, a->name));
				p->info.rate_hz = a->attr.freq ? a->attr.sample_freq : 0;
				p->info.period = a->attr.freq ? 0 : a->attr.sample_period;
				p->info.period_ns = collect_attr_is_ns_clock(&a->attr);
			}
		}
	}
	for (i = 0; i < collect_pdread_nr_attrs(L->r); i++) {
		uint64_t st = collect_pdread_attr(L->r, i)->attr.sample_type;

		if ((st & PERF_SAMPLE_REGS_USER) && (st & PERF_SAMPLE_STACK_USER))
			break;
	}
	if (i < collect_pdread_nr_attrs(L->r) && symbolize_unwind_new(&L->uw) < 0)
		return -1;
	return 0;
}

/* One record of the replay. 0 or -1. */
static int on_record(struct loader *L, const struct collect_pd_event *ev)
{
	struct convert_profile *p = L->p;
	int r2 = 0;

	switch (ev->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		r2 = convert_on_mmap(L, ev);
		break;
	case PERF_RECORD_FORK:
		r2 = convert_on_fork(L, ev);
		break;
	case PERF_RECORD_EXIT:
		if (L->uw && ev->u.task.pid == ev->u.task.tid)
			symbolize_unwind_exit(L->uw, ev->u.task.pid);
		break;
	case PERF_RECORD_COMM:
		r2 = convert_on_comm(L, ev);
		break;
	case PERF_RECORD_SAMPLE:
		r2 = on_sample(L, ev);
		break;
	case PERF_RECORD_LOST:
	case PERF_RECORD_LOST_SAMPLES:
		p->info.lost += ev->u.lost.lost;
		if (L->first_run >= 0)
			p->runs[p->nr_runs - 1].lost += ev->u.lost.lost;
		break;
	default:
		break;
	}
	return r2;
}

/* What the reader saw of the file, for -v. */
static void report_reader(struct convert_profile *p, const struct loader *L, const char *path)
{
	const struct collect_pdread_stats *st = collect_pdread_stats(L->r);

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

static int load_one(struct convert_profile *p, const char *path);

/* A pprof input is translated into a temporary perf.data and replayed as one. */
static int load_pprof(struct convert_profile *p, const char *path)
{
	const char *tmp = getenv("TMPDIR");
	char dir[PATH_MAX], data[PATH_MAX + 16];
	struct convert_pprof_read_stats st;
	int err;

	snprintf(dir, sizeof(dir), "%s/pgo-pprof.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir))
		return pgo_error_errno("cannot create a temporary directory for '%s'", path);
	snprintf(data, sizeof(data), "%s/pprof.data", dir);
	err = convert_pprof_to_perfdata(path, data, &st);
	if (!err) {
		pgo_debug(1, "'%s': %llu pprof samples, %llu mappings, %llu locations -> %llu records",
			  path, (unsigned long long)st.samples_in, (unsigned long long)st.mappings,
			  (unsigned long long)st.locations, (unsigned long long)st.records_out);
		if (st.no_mapping)
			pgo_debug(1, "'%s': %llu user addresses without a mapping", path,
				  (unsigned long long)st.no_mapping);
		p->join_runs = !st.has_runs;
		p->weight_is_count = 1;
		err = load_one(p, data);
		p->join_runs = p->weight_is_count = 0;
	}
	unlink(data);
	rmdir(dir);
	return err;
}

static int load_one(struct convert_profile *p, const char *path)
{
	struct loader L = { .p = p, .first_run = -1, .maps_budget = { 0, CONVERT_MAX_LIVE_MAPS } };
	struct collect_pd_event ev;
	size_t i;
	int ret, err = -1;

	if (convert_pprof_is(path))
		return load_pprof(p, path);
	if (collect_pdread_open(path, &L.r) < 0)
		return -1;
	if (read_attrs(&L) < 0)
		goto out;
	{
		const char *meta = collect_pdread_pgo_meta(L.r);

		L.chains_unwound = meta && strstr(meta, " callgraph=dwarf-unwound ");
	}
	if (!p->info.command && collect_pdread_cmdline(L.r))
		p->info.command = convert_str(p, convert_intern(p, collect_pdread_cmdline(L.r)));
	while ((ret = collect_pdread_next(L.r, &ev)) > 0) {
		if (on_record(&L, &ev) < 0)
			goto out;
	}
	if (ret < 0)
		goto out;
	report_reader(p, &L, path);
	if (L.uw)
		symbolize_unwind_report(L.uw, path, &p->info.unwind);
	err = 0;
out:
	symbolize_unwind_free(L.uw);
	for (i = 0; i < L.nr_procs; i++)
		convert_maptab_release(&L.procs[i].maps);
	free(L.procs);
	free(L.frame_buf);
	pgo_u64map_release(&L.pid2proc);
	collect_pdread_free(L.r);
	return err;
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
	if (convert_select_binaries(p, o) < 0 || convert_attribute_samples(p) < 0)
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
