// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Off-CPU time of a followed process tree, aggregated in the kernel by
 * (tgid, tid, user stack, kernel stack, recovered caller, state) -> (ns, count).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "offcpu.h"

/* include/linux/sched.h; #defines are not in BTF */
#define PF_KTHREAD 0x00200000
#define TASK_RUNNING 0x0000
#define TASK_INTERRUPTIBLE 0x0001
#define TASK_UNINTERRUPTIBLE 0x0002
#define TASK_DEAD 0x0080
#define EEXIST 17

/* How far above the user sp the caller's return address is searched for. */
#define CALLER_SCAN_WORDS 64
#define CALLER_MAX_PROBES 8
#define USER_ADDR_MAX 0x00007fffffffffffULL
#define STACK_NEAR (16ULL << 20)

const volatile bool user_stacks = true;
const volatile bool kernel_stacks = true;
const volatile bool find_callers = true;
const volatile bool dwarf = true;
const volatile __u64 min_block_ns = 0;
const volatile __u32 sample_every = 1;
const volatile __u32 kstack_skip = 0;
/* tests: act as if the switch-ins that end sleeps went unreported */
const volatile bool hide_sleep_ends = false;
/* the sched_* programs are the tp_btf variants: thread slots are task storage */
const volatile bool btf_slots = true;

/* intervals waiting in their thread's slot for a second unwind (struct switch_out) */
__u64 retries_waiting;

struct offcpu_counters counters[OFFCPU_MAX_CPUS];

/* Switch-out state of one thread; ts is 0 while it runs. */
struct switch_out {
	__u64 ts;
	__u64 run_ns;     /* its se.sum_exec_runtime at ts */
	__u64 caller_ip;
	__u64 ustack_hash;
	__s32 ustack_id;
	__s32 kstack_id;
	__u32 state;
	__u32 retry;      /* the user stack ran into a mapping not known yet, in a system call */
	__u64 pending_ns; /* with retry: the interval, accounted when the call returns */
	__u64 pending_end; /* its end; 0: none pending */
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__type(key, __u32);
	__type(value, __u8);
} tgids SEC(".maps");

/* tp_btf: per-task storage, freed with the task, no pid-keyed table to leak. */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct switch_out);
} task_starts SEC(".maps");

/* raw_tp fallback: task storage needs a BTF task pointer, which raw_tp does not give for next. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct switch_out);
} pid_starts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 16384);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, OFFCPU_MAX_FRAMES * sizeof(__u64));
} stacks SEC(".maps");

/*
 * The aggregates, double-buffered: the program adds to the map in totals[0]; to read,
 * user space installs the other map there first. Updating a map-in-map returns only after
 * every program that could still hold the old inner map has finished (the kernel's
 * maybe_wait_bpf_programs()), so user space then reads and empties the old map while
 * nothing writes to it. Deleting entries from a map the program is adding to would lose
 * the adds that land in an entry between its lookup and its deletion.
 */
struct totals_map {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, struct offcpu_key);
	__type(value, struct offcpu_val);
};
struct totals_map totals_a SEC(".maps"), totals_b SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);
	__type(key, __u32);
	__array(values, struct totals_map);
} totals SEC(".maps") = {
	.values = { [0] = &totals_a },
};

/*
 * A STACK_TRACE map slot holds one stack, chosen by a hash of the frames: a stack whose
 * slot another stack took first gets -EEXIST, at every switch-out, so one unlucky stack
 * would lose all its frames for the whole collection. Such stacks go to this second map,
 * where the stack that took their slot is not.
 */
struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 4096);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, OFFCPU_MAX_FRAMES * sizeof(__u64));
} stacks2 SEC(".maps");

/* Scratch copy of the top of a user stack. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64[CALLER_SCAN_WORDS]);
} scan_buf SEC(".maps");

/*
 * DWARF unwinding (offcpu.h, collect/unwtab.c). The loader fills rows, pages and files
 * with each binary's table, and procs with each followed process's executable mappings,
 * which it reads from /proc when the program asks (maps_req) and at exec.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1 << 20);
	__type(key, __u32);
	__type(value, struct offcpu_unwind_row);
} rows SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1 << 18);
	__type(key, __u32);
	__type(value, __u32);
} pages SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct offcpu_file);
} files SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct offcpu_proc);
} procs SEC(".maps");

/* The unwound stacks, under a hash of their frames; emptied after each run like stacks. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 16384);
	__type(key, __u64);
	__type(value, struct offcpu_ustack);
} ustacks SEC(".maps");

/* Processes whose mappings were asked for and not read yet (the loader deletes the entry). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u8);
} maps_pending SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 64 * 1024);
} maps_req SEC(".maps");

struct unwinder {
	struct offcpu_ustack st;
	__u64 pc, sp, bp;
	__u64 m_start, m_end, m_offset;  /* the mapping of the last pc */
	__u64 hash;
	__u32 m_file, m_reason;
	__u32 tgid;
	__u32 bp_lost;
	__u32 exact;                     /* pc is not a return address: look it up as is */
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct unwinder);
} unwinders SEC(".maps");

static __always_inline struct offcpu_counters *cpu_counters(void)
{
	__u32 cpu = bpf_get_smp_processor_id();

	if (cpu >= OFFCPU_MAX_CPUS)
		return NULL;
	return &counters[cpu];
}

/* x86-64: does the instruction before ret end a call (e8 rel32, or ff 15 rel32 with -fno-plt)? */
static __always_inline bool follows_call(__u64 ret)
{
	__u8 code[6];

	if (ret < 0x1000 + 6 || ret > USER_ADDR_MAX)
		return false;
	if (bpf_probe_read_user(code, sizeof(code), (void *)(ret - 6)))
		return false;
	return code[1] == 0xe8 || (code[0] == 0xff && code[1] == 0x15);
}

struct scan_ctx {
	__u64 *words;
	__u64 sp;
	__u32 ascending;  /* from sp up (rbp unusable), else from rbp down */
	__u32 nr;         /* words copied */
	__u32 probes;
	__u64 found;
};

/* bpf_loop body: look at words[nr - 1 - i] (the highest first) or words[i]. */
static int scan_word(__u32 i, void *data)
{
	struct scan_ctx *sc = data;
	__u32 idx;
	__u64 w;

	if (i >= sc->nr)
		return 1;
	idx = sc->ascending ? i : sc->nr - 1 - i;
	if (idx >= CALLER_SCAN_WORDS)
		return 1;
	w = sc->words[idx];
	if (w < 0x1000 || w > USER_ADDR_MAX)
		return 0;
	/* saved frame pointers and other pointers into the stack are not code: no need to read */
	if (w - sc->sp + STACK_NEAR < 2 * STACK_NEAR)
		return 0;
	if (follows_call(w)) {
		sc->found = w;
		return 1;
	}
	return ++sc->probes >= CALLER_MAX_PROBES;
}

/*
 * Debian's libc has no frame pointers: a blocking wrapper (read, clock_nanosleep, the futex
 * wait under pthread_mutex_lock) leaves rbp as its frame-pointer-keeping caller set it, so
 * the kernel's walk goes from the libc ip straight to the caller's caller. The caller's
 * return address still sits on the stack between the user sp and that rbp: take the
 * highest word below rbp that points just after a call instruction. Where libc used rbp as
 * a register (pthread_cond_wait, pthread_barrier_wait) the walk stops at the leaf; then take
 * the lowest such word above sp, which names at least the function that waits.
 * Only for threads in a system call: a preempted thread's user frames are its own.
 */
static __always_inline __u64 find_caller(struct task_struct *task)
{
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(task);
	struct scan_ctx sc = {};
	__u64 sp, bp, len;
	__u32 zero = 0;

	if (!regs || (long)BPF_CORE_READ(regs, orig_ax) < 0)
		return 0;
	sp = BPF_CORE_READ(regs, sp);
	bp = BPF_CORE_READ(regs, bp);
	if (sp & 7)
		return 0;
	if (bp > sp && bp - sp <= CALLER_SCAN_WORDS * 8 && !(bp & 7)) {
		len = bp - sp;
	} else {
		len = CALLER_SCAN_WORDS * 8;
		sc.ascending = 1;
	}
	sc.words = bpf_map_lookup_elem(&scan_buf, &zero);
	if (!sc.words)
		return 0;
	if (len > CALLER_SCAN_WORDS * 8 || len == 0)
		return 0;
	if (bpf_probe_read_user(sc.words, len, (void *)sp))
		return 0;
	sc.nr = len / 8;
	sc.sp = sp;
	bpf_loop(CALLER_SCAN_WORDS, scan_word, &sc, 0);
	return sc.found;
}

/*
 * Ask the loader to (re)read the mappings of process tgid. A stack that runs into an
 * unknown pc asks once until the loader has read them; a new executable mapping (force)
 * always asks, as a read already under way may have missed it.
 */
static __always_inline void request_maps(struct offcpu_counters *c, __u32 tgid, __u32 why,
					 bool force)
{
	struct offcpu_maps_req *r;
	__u8 one = 1;

	if (bpf_map_update_elem(&maps_pending, &tgid, &one, BPF_NOEXIST) && !force)
		return;
	r = bpf_ringbuf_reserve(&maps_req, sizeof(*r), 0);
	if (!r) {
		bpf_map_delete_elem(&maps_pending, &tgid);
		return;
	}
	r->tgid = tgid;
	r->why = why;
	bpf_ringbuf_submit(r, BPF_RB_FORCE_WAKEUP);
	if (c)
		c->maps_requests++;
}

/* Set u's mapping to the one holding pc: 0, or -1 if the process has none. */
static __always_inline int find_mapping(struct unwinder *u, __u64 pc)
{
	struct offcpu_proc *p = bpf_map_lookup_elem(&procs, &u->tgid);
	__u32 lo = 0, hi, mid, i;

	if (!p)
		return -1;
	hi = p->nr;
	if (hi > OFFCPU_MAX_MAPPINGS)
		hi = OFFCPU_MAX_MAPPINGS;
	if (!hi)
		return -1;
	/* the last mapping starting at or below pc */
	for (i = 0; i < 8 && hi - lo > 1; i++) {
		mid = (lo + hi) / 2;
		if (mid >= OFFCPU_MAX_MAPPINGS)
			return -1;
		if (p->m[mid].start <= pc)
			lo = mid;
		else
			hi = mid;
	}
	if (lo >= OFFCPU_MAX_MAPPINGS)
		return -1;
	if (pc < p->m[lo].start || pc >= p->m[lo].end)
		return -1;
	u->m_start = p->m[lo].start;
	u->m_end = p->m[lo].end;
	u->m_offset = p->m[lo].offset;
	u->m_file = p->m[lo].file;
	u->m_reason = p->m[lo].end_reason;
	return 0;
}

/* The row of file `file` covering file offset off, into *row: 0, or an OFFCPU_UNW_* reason. */
static __always_inline __u32 find_row(__u32 file, __u64 off, struct offcpu_unwind_row *row)
{
	struct offcpu_file *f = bpf_map_lookup_elem(&files, &file);
	struct offcpu_unwind_row *r;
	__u32 page, lo, hi, mid, i, k, *pk;

	if (!f || !f->nr_rows)
		return OFFCPU_UNW_NO_TABLE;
	if ((off >> OFFCPU_PAGE_SHIFT) < f->page_base || off > 0xffffffffULL)
		return OFFCPU_UNW_NO_FDE;
	page = (off >> OFFCPU_PAGE_SHIFT) - f->page_base;
	if (page >= f->nr_pages)
		page = f->nr_pages - 1;
	k = f->page_first + page;
	pk = bpf_map_lookup_elem(&pages, &k);
	if (!pk)
		return OFFCPU_UNW_NO_TABLE;
	lo = *pk;
	hi = f->row_first + f->nr_rows;
	if (page + 1 < f->nr_pages) {
		k++;
		pk = bpf_map_lookup_elem(&pages, &k);
		if (!pk)
			return OFFCPU_UNW_NO_TABLE;
		if (*pk + 1 < hi)
			hi = *pk + 1;
	}
	/* the last row at or below off in [lo, hi): a page holds at most 1 << OFFCPU_PAGE_SHIFT rows */
	for (i = 0; i < OFFCPU_PAGE_SHIFT + 2 && hi - lo > 1; i++) {
		mid = (lo + hi) / 2;
		r = bpf_map_lookup_elem(&rows, &mid);
		if (!r)
			return OFFCPU_UNW_NO_TABLE;
		if (r->pc <= off)
			lo = mid;
		else
			hi = mid;
	}
	r = bpf_map_lookup_elem(&rows, &lo);
	if (!r)
		return OFFCPU_UNW_NO_TABLE;
	if (r->pc > off || OFFCPU_ROW_CFA(r->kind) == OFFCPU_CFA_NONE)
		return OFFCPU_UNW_NO_FDE;
	*row = *r;
	return 0;
}

static __always_inline int read_word(__u64 addr, __u64 *v)
{
	if (addr & 7 || addr < 0x1000 || addr > USER_ADDR_MAX)
		return -1;
	return bpf_probe_read_user(v, sizeof(*v), (void *)addr) ? -1 : 0;
}

/* bpf_loop body: record u->pc, then step to its caller. Returns 1 to stop. */
static int unwind_step(__u32 i, void *data)
{
	struct offcpu_unwind_row row = {};
	__u64 pc, look, cfa, ra, bp, sp;
	__u32 n, end, zero = 0;
	/* bpf_loop's context must be on the stack: the per-CPU unwinder is looked up here */
	struct unwinder *u = bpf_map_lookup_elem(&unwinders, &zero);

	if (!u)
		return 1;
	pc = u->pc;
	bp = u->bp;
	n = u->st.nr;

	if (n >= OFFCPU_MAX_FRAMES) {
		u->st.end = OFFCPU_UNW_DEPTH;
		return 1;
	}
	u->st.ips[n] = pc;
	u->st.nr = n + 1;
	u->hash = (u->hash ^ pc) * 0x100000001b3ULL;
	look = u->exact ? pc : pc - 1;
	if (look < u->m_start || look >= u->m_end) {
		if (find_mapping(u, look)) {
			u->st.end = OFFCPU_UNW_NO_MAPPING;
			return 1;
		}
	}
	if (!u->m_file) {
		u->st.end = u->m_reason ? u->m_reason : OFFCPU_UNW_NO_TABLE;
		return 1;
	}
	end = find_row(u->m_file, look - u->m_start + u->m_offset, &row);
	if (end) {
		u->st.end = end;
		return 1;
	}
	sp = u->sp;
	u->exact = 0;
	switch (OFFCPU_ROW_CFA(row.kind)) {
	case OFFCPU_CFA_END:
		u->st.end = OFFCPU_UNW_COMPLETE;
		return 1;
	case OFFCPU_CFA_RSP:
		cfa = sp + row.cfa_off;
		break;
	case OFFCPU_CFA_RBP:
		if (u->bp_lost) {
			u->st.end = OFFCPU_UNW_RBP_LOST;
			return 1;
		}
		cfa = bp + row.cfa_off;
		break;
	case OFFCPU_CFA_PLT:
		cfa = sp + 8 + ((pc & 15) >= (__u64)row.rbp_off ? 8 : 0);
		break;
	case OFFCPU_CFA_SIGNAL:
		/* the interrupted context: rsp, rip and rbp as the kernel saved them */
		if (read_word(sp + OFFCPU_SIGFRAME_RSP, &cfa) || read_word(sp + OFFCPU_SIGFRAME_RIP, &ra) ||
		    bpf_probe_read_user(&bp, sizeof(bp), (void *)(sp + OFFCPU_SIGFRAME_RBP))) {
			u->st.end = OFFCPU_UNW_READ_FAULT;
			return 1;
		}
		u->sp = cfa;
		u->pc = ra;
		u->bp = bp;
		u->bp_lost = 0;
		u->exact = 1;
		return ra ? 0 : (u->st.end = OFFCPU_UNW_COMPLETE, 1);
	default:
		u->st.end = OFFCPU_UNW_UNSUPPORTED;
		return 1;
	}
	if (cfa <= sp) {
		u->st.end = OFFCPU_UNW_BAD_FRAME;
		return 1;
	}
	if (read_word(cfa - 8, &ra)) {
		u->st.end = OFFCPU_UNW_READ_FAULT;
		return 1;
	}
	if (OFFCPU_ROW_RBP(row.kind) == OFFCPU_RBP_SAVED) {
		if (read_word(cfa + 8 * (__s64)row.rbp_off, &bp))
			u->bp_lost = 1;
		else
			u->bp = bp;
	} else if (OFFCPU_ROW_RBP(row.kind) == OFFCPU_RBP_LOST) {
		u->bp_lost = 1;
	}
	u->sp = cfa;
	u->pc = ra;
	if (!ra) {
		u->st.end = OFFCPU_UNW_COMPLETE;
		return 1;
	}
	return 0;
}

/*
 * Unwind the user stack of task (current, switched out) from its user registers with the
 * tables, store it in ustacks, and return its key (0 if there is no user context or the
 * stack could not be stored). Every stack ends with a reason, counted.
 */
static __always_inline __u64 unwind_user(struct offcpu_counters *c, struct task_struct *task,
					 __u32 tgid, __u32 *endp)
{
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(task);
	struct offcpu_ustack *old;
	struct unwinder *u;
	__u32 zero = 0, end;
	__u64 key;

	u = bpf_map_lookup_elem(&unwinders, &zero);
	if (!u || !regs)
		return 0;
	if ((BPF_CORE_READ(regs, cs) & 3) != 3)
		return 0;  /* no user context (a kernel thread, or not yet returned from exec) */
	u->pc = BPF_CORE_READ(regs, ip);
	u->sp = BPF_CORE_READ(regs, sp);
	u->bp = BPF_CORE_READ(regs, bp);
	u->m_start = u->m_end = 0;
	u->m_file = 0;
	u->tgid = tgid;
	u->bp_lost = 0;
	u->exact = 1;
	u->hash = 0xcbf29ce484222325ULL;
	u->st.nr = 0;
	u->st.end = OFFCPU_UNW_DEPTH;
	bpf_loop(OFFCPU_MAX_FRAMES + 1, unwind_step, &zero, 0);
	end = u->st.end;
	*endp = end;
	if (end < OFFCPU_UNW_NR)
		c->unwind_end[end]++;
	if (end == OFFCPU_UNW_NO_MAPPING)
		request_maps(c, tgid, end, false);
	if (!u->st.nr)
		return 0;
	key = (u->hash ^ ((__u64)end << 56) ^ u->st.nr) * 0x9e3779b97f4a7c15ULL;
	if (!key)
		key = 1;
	old = bpf_map_lookup_elem(&ustacks, &key);
	if (old)
		return key;
	if (bpf_map_update_elem(&ustacks, &key, &u->st, BPF_NOEXIST) && !bpf_map_lookup_elem(&ustacks, &key)) {
		c->ustacks_full++;
		return 0;
	}
	return key;
}

/* A stack id: from the main map, or OFFCPU_STACK2 | id from the overflow map; < 0: lost. */
static __always_inline long get_stackid(void *ctx, __u64 flags)
{
	long id = bpf_get_stackid(ctx, &stacks, flags);

	if (id == -EEXIST) {
		id = bpf_get_stackid(ctx, &stacks2, flags);
		if (id >= 0)
			id |= OFFCPU_STACK2;
	}
	return id;
}

static __always_inline __u32 classify(bool preempt, unsigned int prev_state)
{
	if (preempt || prev_state == TASK_RUNNING)
		return OFFCPU_RUNNABLE;
	if (prev_state & TASK_UNINTERRUPTIBLE)
		return OFFCPU_IO;
	return OFFCPU_SLEEP;
}

/*
 * The switch-out slot of task (thread id tid), or NULL; create: make a zeroed one where
 * there is none. tp_btf keeps it in task storage, raw_tp in the pid-keyed map.
 */
static __always_inline struct switch_out *slot_of(struct task_struct *task, __u32 tid, bool btf,
						  bool create)
{
	struct switch_out zero = {};

	if (btf)
		return bpf_task_storage_get(&task_starts, task, 0,
					    create ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
	if (create)
		bpf_map_update_elem(&pid_starts, &tid, &zero, BPF_NOEXIST);
	return bpf_map_lookup_elem(&pid_starts, &tid);
}

/*
 * Add one off-CPU interval of delta ns that ended at now, with the stacks and state of its
 * switch-out s, to the aggregation map.
 */
static __always_inline void account(struct offcpu_counters *c, const struct switch_out *s,
				    __u32 tgid, __u32 tid, __u64 delta, __u64 now)
{
	struct offcpu_val first, *v;
	struct offcpu_key key = {};
	__u64 scaled;
	__u32 zero = 0;
	void *agg;

	if (delta < min_block_ns) {
		c->short_blocks++;
		return;
	}
	key.tgid = tgid;
	key.tid = tid;
	key.ustack_id = s->ustack_id;
	key.kstack_id = s->kstack_id;
	key.caller_ip = s->caller_ip;
	key.ustack_hash = s->ustack_hash;
	key.state = s->state;
	if (key.caller_ip)
		c->callers_found++;
	agg = bpf_map_lookup_elem(&totals, &zero);
	if (!agg) {
		c->map_full++;
		return;
	}
	/* sampling keeps one switch-out in sample_every: scale so the totals estimate all of them */
	scaled = delta * (sample_every ? sample_every : 1);
	v = bpf_map_lookup_elem(agg, &key);
	if (!v) {
		/* a new entry is created with its first interval in it, in one step */
		first.total_ns = scaled;
		first.count = 1;
		first.last_ns = now;
		if (!bpf_map_update_elem(agg, &key, &first, BPF_NOEXIST)) {
			c->recorded++;
			return;
		}
		v = bpf_map_lookup_elem(agg, &key);
		if (!v) {
			c->map_full++;
			return;
		}
	}
	__sync_fetch_and_add(&v->total_ns, scaled);
	__sync_fetch_and_add(&v->count, 1);
	v->last_ns = now;
	c->recorded++;
}

/*
 * The kernel does not report every switch: on this project's VMs, perf's own sched_switch
 * event misses now and then the switch from a VM agent's thread back to ours, so a
 * thread can run again without a switch-in. Its interval is then closed late, here, at
 * its next switch-out or exit: the thread was off the CPU for the time since its switch-out
 * less the time it ran since (se.sum_exec_runtime, which the scheduler brings up to date
 * before every switch). Run time excludes stolen and interrupt time where the kernel
 * accounts them, so the interval can come out a little long; without this it would be lost.
 */
static __always_inline void close_unseen(struct offcpu_counters *c, struct switch_out *s,
					 struct task_struct *task, __u64 now)
{
	__u64 ran = BPF_CORE_READ(task, se.sum_exec_runtime) - s->run_ns, gone = now - s->ts;
	__u32 tgid = BPF_CORE_READ(task, tgid), tid = BPF_CORE_READ(task, pid);

	c->switchins_unseen++;
	account(c, s, tgid, tid, ran < gone ? gone - ran : 0, now);
	s->ts = 0;
}

/* An interval kept for a second unwind that never came: account it with the stack it has. */
static __always_inline void flush_pending(struct offcpu_counters *c, struct switch_out *s,
					  __u32 tgid, __u32 tid)
{
	if (!s->pending_end)
		return;
	account(c, s, tgid, tid, s->pending_ns, s->pending_end);
	s->pending_end = 0;
	__sync_fetch_and_add(&retries_waiting, -1);
}

/* task is inside a system call (its saved user registers are those of the call). */
static __always_inline bool in_syscall(struct task_struct *task)
{
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(task);

	return regs && (long)BPF_CORE_READ(regs, orig_ax) >= 0;
}

static __always_inline void switch_out(void *ctx, struct offcpu_counters *c, struct task_struct *prev,
				       bool preempt, unsigned int prev_state, bool btf)
{
	struct task_struct *cur;
	struct switch_out *s;
	__u32 tgid, tid, end;
	long id;

	/* a dying task's last switch-out never gets a switch-in */
	if ((BPF_CORE_READ(prev, flags) & PF_KTHREAD) || (prev_state & TASK_DEAD))
		return;
	tgid = BPF_CORE_READ(prev, tgid);
	if (!bpf_map_lookup_elem(&tgids, &tgid))
		return;
	c->switches++;
	tid = BPF_CORE_READ(prev, pid);
	s = slot_of(prev, tid, btf, false);
	/* still off the CPU as far as we know: its switch-in went unreported */
	if (s && s->ts)
		close_unseen(c, s, prev, bpf_ktime_get_ns());
	if (s)
		flush_pending(c, s, tgid, tid);
	if (sample_every > 1 && bpf_get_prandom_u32() % sample_every) {
		c->sampled_out++;
		return;
	}
	if (!s)
		s = slot_of(prev, tid, btf, true);
	if (!s) {
		c->storage_failed++;
		return;
	}
	s->ustack_id = -1;
	s->kstack_id = -1;
	s->caller_ip = 0;
	s->ustack_hash = 0;
	s->retry = 0;
	if (user_stacks && dwarf) {
		/* prev is current here; raw_tp gets its BTF pointer from the helper */
		cur = btf ? prev : bpf_get_current_task_btf();
		s->ustack_hash = unwind_user(c, cur, tgid, &end);
		/*
		 * A library mapped a moment ago (the loader has been asked for it): a wait in a
		 * system call is unwound again when the call returns, and accounted then.
		 */
		s->retry = end == OFFCPU_UNW_NO_MAPPING && in_syscall(cur);
	} else if (user_stacks) {
		id = get_stackid(ctx, BPF_F_USER_STACK);
		if (id < 0)
			c->ustack_dropped++;
		s->ustack_id = id;
		/* prev is current here; raw_tp gets its BTF pointer from the helper */
		if (find_callers)
			s->caller_ip = find_caller(btf ? prev : bpf_get_current_task_btf());
	}
	if (kernel_stacks) {
		id = get_stackid(ctx, kstack_skip & BPF_F_SKIP_FIELD_MASK);
		if (id < 0)
			c->kstack_dropped++;
		s->kstack_id = id;
	}
	s->state = classify(preempt, prev_state);
	s->run_ns = BPF_CORE_READ(prev, se.sum_exec_runtime);
	s->ts = bpf_ktime_get_ns();
}

static __always_inline void switch_in(struct offcpu_counters *c, struct task_struct *next, bool btf)
{
	struct switch_out *s;
	__u32 tid;
	__u64 now;

	tid = BPF_CORE_READ(next, pid);
	s = slot_of(next, tid, btf, false);
	if (!s || !s->ts || (hide_sleep_ends && s->state == OFFCPU_SLEEP))
		return;
	now = bpf_ktime_get_ns();
	if (s->retry && !s->pending_end) {
		s->pending_ns = now - s->ts;
		s->pending_end = now;
		s->ts = 0;
		__sync_fetch_and_add(&retries_waiting, 1);
		return;
	}
	account(c, s, BPF_CORE_READ(next, tgid), tid, now - s->ts, now);
	s->ts = 0;
}

static __always_inline int on_switch(void *ctx, bool preempt, struct task_struct *prev,
				     struct task_struct *next, unsigned int prev_state, bool btf)
{
	struct offcpu_counters *c = cpu_counters();

	if (!c)
		return 0;
	switch_in(c, next, btf);
	switch_out(ctx, c, prev, preempt, prev_state, btf);
	return 0;
}

/* prev_state is the 4th argument since 5.18 (commit fa2c3254d7cf); older kernels are not supported. */
SEC("tp_btf/sched_switch")
int BPF_PROG(sched_switch_btf, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	return on_switch(ctx, preempt, prev, next, prev_state, true);
}

SEC("raw_tp/sched_switch")
int BPF_PROG(sched_switch_raw, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	return on_switch(ctx, preempt, prev, next, prev_state, false);
}

/*
 * Follow the benchmark's descendants: a new process of a followed parent is followed too.
 * A new thread or process waits for its first CPU from here: count that as runnable time
 * (no stack: it has not run yet), so per-thread on + off adds up to the thread's lifetime.
 */
static __always_inline int on_fork(struct task_struct *parent, struct task_struct *child, bool btf)
{
	__u32 ptgid = BPF_CORE_READ(parent, tgid), ctgid = BPF_CORE_READ(child, tgid);
	__u32 tid = BPF_CORE_READ(child, pid);
	struct switch_out *s;
	struct offcpu_counters *c;
	__u8 one = 1;

	if (!bpf_map_lookup_elem(&tgids, &ptgid))
		return 0;
	c = cpu_counters();
	if (!c)
		return 0;
	if (ptgid != ctgid && bpf_map_update_elem(&tgids, &ctgid, &one, BPF_ANY)) {
		c->tgid_full++;
		return 0;
	}
	/* a forked process starts with its parent's mappings */
	if (ptgid != ctgid && dwarf) {
		struct offcpu_proc *p = bpf_map_lookup_elem(&procs, &ptgid);

		if (p)
			bpf_map_update_elem(&procs, &ctgid, p, BPF_ANY);
	}
	s = slot_of(child, tid, btf, true);
	if (!s) {
		c->storage_failed++;
		return 0;
	}
	s->ustack_id = -1;
	s->kstack_id = -1;
	s->caller_ip = 0;
	s->ustack_hash = 0;
	s->state = OFFCPU_RUNNABLE;
	s->run_ns = BPF_CORE_READ(child, se.sum_exec_runtime);
	s->ts = bpf_ktime_get_ns();
	return 0;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(sched_fork_btf, struct task_struct *parent, struct task_struct *child)
{
	return on_fork(parent, child, true);
}

SEC("raw_tp/sched_process_fork")
int BPF_PROG(sched_fork_raw, struct task_struct *parent, struct task_struct *child)
{
	return on_fork(parent, child, false);
}

/* A followed process execs: its mappings are new; ask for them (the program's own ones). */
static __always_inline int on_exec(struct task_struct *task)
{
	__u32 tgid = BPF_CORE_READ(task, tgid);

	if (!dwarf || !bpf_map_lookup_elem(&tgids, &tgid))
		return 0;
	bpf_map_delete_elem(&procs, &tgid);
	bpf_map_delete_elem(&maps_pending, &tgid);
	request_maps(cpu_counters(), tgid, 0, true);
	return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(sched_exec_btf, struct task_struct *task)
{
	return on_exec(task);
}

SEC("raw_tp/sched_process_exec")
int BPF_PROG(sched_exec_raw, struct task_struct *task)
{
	return on_exec(task);
}

/*
 * A new executable mapping (ld.so loading a library, dlopen): mmap with PROT_EXEC, or
 * mprotect adding it, returned. Ask for the mappings now rather than at the first stack
 * that runs into the library. raw_syscalls:sys_exit runs for every system call on the
 * machine: the syscall number is tested first, the followed set only for these calls.
 */
/*
 * The current thread returns from the system call it waited in: unwind its stack again (the
 * mapping that stopped the first unwind is known by now, or it never will be) and account
 * the interval kept for it.
 */
static __always_inline void retry_unwind(void)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u64 id = bpf_get_current_pid_tgid(), key;
	__u32 tgid = id >> 32, tid = (__u32)id, end = OFFCPU_UNW_NO_MAPPING;
	struct offcpu_counters *c;
	struct switch_out *s;

	if (!bpf_map_lookup_elem(&tgids, &tgid))
		return;
	s = slot_of(task, tid, btf_slots, false);
	c = cpu_counters();
	if (!s || !s->pending_end || !c)
		return;
	key = unwind_user(c, task, tgid, &end);
	if (key)
		s->ustack_hash = key;
	/* count each stack's end once: the second unwind's */
	c->unwind_end[OFFCPU_UNW_NO_MAPPING]--;
	c->unwind_retried++;
	account(c, s, tgid, tid, s->pending_ns, s->pending_end);
	s->pending_end = 0;
	s->retry = 0;
	__sync_fetch_and_add(&retries_waiting, -1);
}

SEC("raw_tp/sys_exit")
int BPF_PROG(sys_exit_raw, struct pt_regs *regs, long ret)
{
	long nr = BPF_CORE_READ(regs, orig_ax);
	__u32 tgid;

	if (dwarf && retries_waiting)
		retry_unwind();
	if (!dwarf || ret < 0 || (nr != 9 && nr != 10) || !(BPF_CORE_READ(regs, dx) & 4))
		return 0;
	tgid = bpf_get_current_pid_tgid() >> 32;
	if (!bpf_map_lookup_elem(&tgids, &tgid))
		return 0;
	request_maps(cpu_counters(), tgid, 0, true);
	return 0;
}

/*
 * A followed thread exits. If its last switch-in went unreported, close that interval now
 * (its run time is as of the scheduler's last update, up to a tick old: the interval can
 * come out that much long). When the last thread of a process exits, stop following its
 * tgid (so a reused pid is not followed by mistake, and the map does not fill up on
 * fork-heavy benchmarks). In the raw_tp variant, drop the thread's pid-keyed switch-out
 * slot (task storage frees itself). signal->live is decremented before this tracepoint
 * fires (kernel/exit.c do_exit()).
 */
static __always_inline int on_exit(struct task_struct *task, bool btf)
{
	__u32 tgid = BPF_CORE_READ(task, tgid), tid = BPF_CORE_READ(task, pid);
	struct offcpu_counters *c;
	struct switch_out *s;

	if (!bpf_map_lookup_elem(&tgids, &tgid))
		return 0;
	s = slot_of(task, tid, btf, false);
	c = cpu_counters();
	if (s && s->ts && c)
		close_unseen(c, s, task, bpf_ktime_get_ns());
	if (s && c)
		flush_pending(c, s, tgid, tid);
	if (!btf)
		bpf_map_delete_elem(&pid_starts, &tid);
	if (BPF_CORE_READ(task, signal, live.counter) == 0) {
		bpf_map_delete_elem(&tgids, &tgid);
		bpf_map_delete_elem(&procs, &tgid);
		bpf_map_delete_elem(&maps_pending, &tgid);
	}
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(sched_exit_btf, struct task_struct *task)
{
	return on_exit(task, true);
}

SEC("raw_tp/sched_process_exit")
int BPF_PROG(sched_exit_raw, struct task_struct *task)
{
	return on_exit(task, false);
}

/*
 * pgo collect -a --binary: attached to the on-CPU sampling events of whole CPUs
 * (PERF_EVENT_IOC_SET_BPF), keeps the samples of followed processes only, so the rings
 * do not carry every task's stack copies to be dropped while draining (Linux 6.10+ drops
 * a sample when the program returns 0). The collector adds a process as it finds it runs
 * the binary; forks of followed ones are added above.
 */
SEC("perf_event")
int sample_filter(struct bpf_perf_event_data *ctx)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;

	return bpf_map_lookup_elem(&tgids, &tgid) ? 1 : 0;
}

char LICENSE[] SEC("license") = "Dual MIT/GPL";
