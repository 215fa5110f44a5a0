// SPDX-License-Identifier: MIT
/*
 * Draining the per-CPU rings into the perf.data writer, merged by time, with the
 * records pgo synthesizes (kernel mmap, run forks, unseen losses) and the unwinding of
 * samples while draining (collect_opts.unwinder).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "collect/callgraph.h"
#include "collect/collect.h"
#include "collect/pdformat.h"
#include "collect/pdread.h"
#include "collect/pdwrite.h"
#include "collect/session_internal.h"
#include "lib/alloc.h"
#include "lib/buf.h"
#include "lib/report.h"

/* ---- synthesized records ---- */

/* The sample_id_all trailer for our sample_type: {pid,tid} {time} {cpu,res} {identifier}. */
struct trailer {
	uint32_t pid, tid;
	uint64_t time;
	uint32_t cpu, res;
	uint64_t id;
};

void session_fill_trailer(const struct session *s, void *trailer, uint32_t pid, uint32_t tid,
			  uint64_t time)
{
	struct trailer *t = trailer;

	t->pid = pid;
	t->tid = tid;
	t->time = time;
	t->cpu = (uint32_t)s->cpus[0];
	t->res = 0;
	t->id = s->first_id;
}

/*
 * Size of the kernel text from /proc/iomem ("Kernel code", _text to _etext in physical
 * addresses): reading it is cheap, while finding _etext means reading 100k+ lines of
 * kallsyms (about 35 ms of system time here). 0 if unknown (not root: addresses hidden).
 */
static uint64_t kernel_text_len(void)
{
	FILE *fp = fopen("/proc/iomem", "re");
	char line[256];
	unsigned long a, b;
	uint64_t len = 0;

	if (!fp)
		return 0;
	while (fgets(line, sizeof(line), fp))
		if (strstr(line, ": Kernel code") && sscanf(line, " %lx-%lx", &a, &b) == 2 && b > a) {
			len = (uint64_t)(b - a + 1);
			break;
		}
	fclose(fp);
	return len;
}

/* perf's synthesized kernel map, so kernel frames resolve against kallsyms. */
int session_write_kernel_mmap(struct session *s)
{
	struct {
		struct perf_event_header h;
		uint32_t pid, tid;
		uint64_t start, len, pgoff;
		char filename[24];
		struct trailer t;
	} rec;
	uint64_t text = 0, etext = 0, len, a;
	char line[512], type, name[256];
	FILE *fp;

	_Static_assert(sizeof(rec) % 8 == 0, "records are 8-byte multiples");
	if (s->attr.exclude_kernel)
		return 0;
	len = kernel_text_len();
	fp = fopen("/proc/kallsyms", "re");
	if (!fp)
		return 0;
	while (fgets(line, sizeof(line), fp) && !(text && (len || etext))) {
		if (sscanf(line, "%lx %c %255s", &a, &type, name) != 3)
			continue;
		if (!strcmp(name, "_text"))
			text = a;
		else if (!strcmp(name, "_etext"))
			etext = a;
	}
	fclose(fp);
	if (!len && etext > text)
		len = etext - text;
	if (!text || !len) {
		pgo_debug(1, "no kernel map (kallsyms hidden by kernel.kptr_restrict?)");
		return 0;
	}
	memset(&rec, 0, sizeof(rec));
	rec.h.type = PERF_RECORD_MMAP;
	rec.h.misc = PERF_RECORD_MISC_KERNEL;
	rec.h.size = sizeof(rec);
	rec.pid = (uint32_t)-1;
	rec.tid = 0;
	rec.start = text;
	rec.len = len;
	rec.pgoff = text;
	snprintf(rec.filename, sizeof(rec.filename), "[kernel.kallsyms]_text");
	session_fill_trailer(s, &rec.t, 0, 0, 0);
	return collect_writer_record(s->w, &rec.h);
}

/*
 * Run boundary visible to perf: the run's root appears as a fork of pgo itself. pgo's own
 * pid gets no other record (no COMM), so readers see each run's root as the root of its own
 * process tree (convert/profile.c relies on this).
 */
int session_write_run_fork(struct session *s, pid_t pid, uint64_t time)
{
	struct {
		struct perf_event_header h;
		uint32_t pid, ppid, tid, ptid;
		uint64_t time;
		struct trailer t;
	} rec;
	uint32_t self = (uint32_t)getpid();

	memset(&rec, 0, sizeof(rec));
	rec.h.type = PERF_RECORD_FORK;
	rec.h.size = sizeof(rec);
	rec.pid = rec.tid = (uint32_t)pid;
	rec.ppid = rec.ptid = self;
	rec.time = time;
	session_fill_trailer(s, &rec.t, (uint32_t)pid, (uint32_t)pid, time);
	return collect_writer_record(s->w, &rec.h);
}

/* ---- ring draining ---- */

/* ---- unwinding while draining ---- */

/* The NUL-terminated string at byte off of rec, or NULL if it runs past the record. */
static const char *rec_str(const struct perf_event_header *rec, size_t off)
{
	const char *p = (const char *)rec + off;

	if (off >= rec->size || !memchr(p, '\0', rec->size - off))
		return NULL;
	return p;
}

/* Give the unwinder the process events it needs (mappings, forks, execs, exits). */
static int unwinder_event(struct session *s, const struct perf_event_header *rec)
{
	const struct collect_unwinder_ops *ops = s->uw->ops;
	const uint32_t *w = (const uint32_t *)(rec + 1);
	const uint64_t *q = (const uint64_t *)(rec + 1);

	switch (rec->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2: {
		struct collect_pd_mmap m;
		size_t fn = rec->type == PERF_RECORD_MMAP2 ? 72 : 40;

		memset(&m, 0, sizeof(m));
		m.filename = rec_str(rec, fn);
		if (!m.filename || !ops->mmap)
			return 0;
		m.pid = w[0];
		m.tid = w[1];
		m.start = q[1];
		m.len = q[2];
		m.pgoff = q[3];
		if (rec->type == PERF_RECORD_MMAP2) {
			m.prot = w[14];
			m.flags = w[15];
		}
		m.executable = !(rec->misc & PERF_RECORD_MISC_MMAP_DATA);
		return ops->mmap(s->uw->priv, &m);
	}
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT: {
		struct collect_pd_task t;

		if (rec->size < sizeof(*rec) + 24)
			return 0;
		t.pid = w[0];
		t.ppid = w[1];
		t.tid = w[2];
		t.ptid = w[3];
		t.time = q[2];
		if (rec->type == PERF_RECORD_FORK)
			return ops->fork ? ops->fork(s->uw->priv, &t) : 0;
		return ops->exit ? ops->exit(s->uw->priv, &t) : 0;
	}
	case PERF_RECORD_COMM: {
		struct collect_pd_comm c;

		c.comm = rec_str(rec, sizeof(*rec) + 8);
		if (!c.comm || !ops->comm)
			return 0;
		c.pid = w[0];
		c.tid = w[1];
		c.exec = !!(rec->misc & PERF_RECORD_MISC_COMM_EXEC);
		return ops->comm(s->uw->priv, &c);
	}
	default:
		return 0;
	}
}

/*
 * A sample of our attr (IDENTIFIER IP TID TIME CPU PERIOD CALLCHAIN REGS_USER STACK_USER)
 * becomes IDENTIFIER IP TID TIME CPU PERIOD CALLCHAIN: the kernel part of its chain, then
 * PERF_CONTEXT_USER and the unwound user pcs, in s->out. Returns 0, 1 when the record
 * does not parse (not the kernel's layout: dropped, as the file's attr cannot describe
 * it), or -1 after the unwinder reported an error.
 */
static int unwind_sample(struct session *s, const struct perf_event_header *rec)
{
	const uint64_t *p = (const uint64_t *)(rec + 1), *end = (const uint64_t *)((const char *)rec + rec->size);
	struct collect_pd_sample smp;
	struct perf_event_header *h = (struct perf_event_header *)s->out;
	uint64_t *o = s->out + 1, nr, nk, i;
	int n;

	if (end - p < 7)
		return 1;
	memset(&smp, 0, sizeof(smp));
	smp.sample_type = s->attr.sample_type;
	smp.cpumode = rec->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	smp.id = p[0];
	smp.ip = p[1];
	smp.pid = (uint32_t)p[2];
	smp.tid = (uint32_t)(p[2] >> 32);
	smp.time = p[3];
	smp.cpu = (uint32_t)p[4];
	smp.period = p[5];
	nr = p[6];
	p += 7;
	if (nr > (uint64_t)(end - p) || nr > 8192)
		return 1;
	smp.nr_callchain = nr;
	smp.callchain = p;
	p += nr;
	if (p >= end)
		return 1;
	smp.user_regs_abi = *p++;
	if (smp.user_regs_abi) {
		smp.user_regs_mask = s->attr.sample_regs_user;
		smp.nr_user_regs = (size_t)__builtin_popcountll(smp.user_regs_mask);
		if (smp.nr_user_regs > (size_t)(end - p))
			return 1;
		smp.user_regs = p;
		p += smp.nr_user_regs;
	}
	if (p >= end)
		return 1;
	smp.user_stack_size = *p++;
	if (smp.user_stack_size) {
		if (smp.user_stack_size % 8 || smp.user_stack_size / 8 + 1 > (uint64_t)(end - p))
			return 1;
		smp.user_stack = p;
		p += smp.user_stack_size / 8;
		smp.user_stack_dyn_size = *p++;
	}
	n = s->uw->ops->unwind(s->uw->priv, &smp, s->pcs, COLLECT_UNWIND_MAX_PCS);
	if (n < 0)
		return -1;
	/* the kernel part: everything before the user context (all of it with exclude_callchain_user) */
	for (nk = 0; nk < nr && smp.callchain[nk] != (uint64_t)PERF_CONTEXT_USER; nk++)
		;
	memcpy(o, rec + 1, 6 * sizeof(uint64_t));
	o += 6;
	*o++ = nk + (n ? 1 + (uint64_t)n : 0);
	memcpy(o, smp.callchain, nk * sizeof(uint64_t));
	o += nk;
	if (n) {
		*o++ = (uint64_t)PERF_CONTEXT_USER;
		for (i = 0; i < (uint64_t)n; i++)
			*o++ = s->pcs[i];
	}
	h->type = PERF_RECORD_SAMPLE;
	h->misc = rec->misc;
	h->size = (uint16_t)((o - s->out) * sizeof(uint64_t));
	return 0;
}

int session_feed_unwinder(struct session *s, const struct perf_event_header *rec)
{
	return s->uw ? unwinder_event(s, rec) : 0;
}

/* ---- the attach filter ---- */

/* Follow pid from now on; the sources (off-CPU) hear of it after this drain. 0 or -1. */
int session_attach_follow(struct session *s, uint32_t pid)
{
	struct attach *at = s->at;
	uint64_t *v;
	int added = pgo_u64map_get(&at->follow, pid, &v);

	if (added < 0)
		return -1;
	if (*v == ATTACH_FOLLOWED)
		return 0;
	*v = ATTACH_FOLLOWED;
	at->followed++;
	if (PGO_ALLOC_GROW(at->new_pids, at->nr_new + 1, at->alloc_new))
		return -1;
	at->new_pids[at->nr_new++] = (pid_t)pid;
	return 0;
}

static int attach_state(const struct attach *at, uint32_t pid)
{
	const uint64_t *v = pgo_u64map_find(&at->follow, pid);

	return v ? (int)*v : 0;
}

static void attach_set(struct attach *at, uint32_t pid, int state)
{
	uint64_t *v = pgo_u64map_find(&at->follow, pid);

	if (v)
		*v = (uint64_t)state;
}

static ssize_t pending_find(const struct attach *at, uint32_t pid)
{
	size_t i;

	for (i = 0; i < at->nr_pending; i++)
		if (at->pending[i].pid == pid)
			return (ssize_t)i;
	return -1;
}

static void pending_drop(struct attach *at, size_t i)
{
	at->pending[i] = at->pending[--at->nr_pending];
}

/* A process exec'd: it is decided at its first executable mapping, the new binary's. */
static int pending_add(struct attach *at, uint32_t pid, const char *comm)
{
	ssize_t i = pending_find(at, pid);
	uint64_t *v;

	if (i < 0) {
		if (PGO_ALLOC_GROW(at->pending, at->nr_pending + 1, at->alloc_pending))
			return -1;
		i = (ssize_t)at->nr_pending++;
		at->pending[i].pid = pid;
	}
	snprintf(at->pending[i].comm, sizeof(at->pending[i].comm), "%s", comm ? comm : "");
	if (pgo_u64map_get(&at->follow, pid, &v) < 0)
		return -1;
	*v = ATTACH_PENDING;
	return 0;
}

/* The COMM exec the kernel wrote for a process found to run the binary, written now. */
static int pending_comm(struct session *s, uint32_t pid, const char *comm, uint64_t time)
{
	struct {
		struct perf_event_header h;
		uint32_t pid, tid;
		char comm[16];
		struct trailer t;
	} rec;

	memset(&rec, 0, sizeof(rec));
	rec.h.type = PERF_RECORD_COMM;
	rec.h.misc = PERF_RECORD_MISC_COMM_EXEC;
	rec.h.size = sizeof(rec);
	rec.pid = rec.tid = pid;
	snprintf(rec.comm, sizeof(rec.comm), "%s", comm);
	session_fill_trailer(s, &rec.t, pid, pid, time);
	if (collect_writer_record(s->w, &rec.h))
		return -1;
	return session_feed_unwinder(s, &rec.h);
}

/* The time in a non-sample record's sample_id_all trailer. */
static uint64_t trailer_time(const struct perf_event_header *rec)
{
	return rec->size >= sizeof(*rec) + 24 ?
		*(const uint64_t *)((const char *)rec + rec->size - 24) : 0;
}

/*
 * Attach: whether to keep rec (1), drop it (0), or -1. With events on whole CPUs and a
 * binary to look for, the records of processes not followed are dropped; a process is
 * followed when it runs the binary (found at the start, or its first executable mapping
 * after an exec is the binary) or its parent is followed (a worker forked). Otherwise
 * the kernel chose the records (the processes' own events, or a cgroup's); forks of new
 * processes are noted for the sources and exits are counted.
 */
static int attach_filter(struct session *s, const struct perf_event_header *rec)
{
	struct attach *at = s->at;
	const uint32_t *w = (const uint32_t *)(rec + 1);
	const uint64_t *u = (const uint64_t *)(rec + 1);
	uint32_t pid;
	int st;

	switch (rec->type) {
	case PERF_RECORD_SAMPLE:
		if (!at->filter || rec->size < sizeof(*rec) + 24)
			return 1;
		return attach_state(at, (uint32_t)u[2]) == ATTACH_FOLLOWED;
	case PERF_RECORD_FORK:
		if (rec->size < sizeof(*rec) + 16)
			return 0;
		st = attach_state(at, w[1]);
		if (w[0] == w[1])  /* a new thread */
			return !at->filter || st == ATTACH_FOLLOWED;
		if (at->filter && st != ATTACH_FOLLOWED)
			return 0;
		return session_attach_follow(s, w[0]) ? -1 : 1;
	case PERF_RECORD_EXIT:
		if (rec->size < sizeof(*rec) + 16)
			return 0;
		st = attach_state(at, w[0]);
		if (w[0] == w[2] && st == ATTACH_FOLLOWED) {
			s->res->attached_exited++;
			attach_set(at, w[0], 0);
			return 1;
		}
		return !at->filter || st == ATTACH_FOLLOWED;
	case PERF_RECORD_COMM:
		if (!at->filter || rec->size < sizeof(*rec) + 16)
			return 1;
		pid = w[0];
		if (rec->misc & PERF_RECORD_MISC_COMM_EXEC) {
			const char *comm = rec_str(rec, sizeof(*rec) + 8);

			return pending_add(at, pid, comm) ? -1 : 0;
		}
		return attach_state(at, pid) == ATTACH_FOLLOWED;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2: {
		ssize_t i;
		const char *fn;

		if (!at->filter || rec->size < sizeof(*rec) + 8)
			return 1;
		pid = w[0];
		st = attach_state(at, pid);
		if (st != ATTACH_PENDING)
			return st == ATTACH_FOLLOWED;
		if (rec->misc & PERF_RECORD_MISC_MMAP_DATA)
			return 0;
		i = pending_find(at, pid);
		fn = rec_str(rec, rec->type == PERF_RECORD_MMAP2 ? 72 : 40);
		if (i < 0 || !fn || strcmp(fn, at->binary)) {
			attach_set(at, pid, 0);
			if (i >= 0)
				pending_drop(at, (size_t)i);
			return 0;
		}
		attach_set(at, pid, 0);
		if (session_attach_follow(s, pid) ||
		    pending_comm(s, pid, at->pending[i].comm, trailer_time(rec)))
			return -1;
		pending_drop(at, (size_t)i);
		return 1;
	}
	default:
		return 1;
	}
}

static int consume(struct session *s, struct ring *r, const struct perf_event_header *rec)
{
	const uint64_t *u = (const uint64_t *)(rec + 1);

	if (s->at) {
		int keep = attach_filter(s, rec);

		if (keep <= 0)
			return keep;
	}
	switch (rec->type) {
	case PERF_RECORD_SAMPLE:
		if (s->uw) {
			int err = unwind_sample(s, rec);

			if (err < 0)
				return -1;
			if (err) {
				s->dropped++;
				return 0;
			}
			rec = (const struct perf_event_header *)s->out;
		}
		s->run_samples++;
		break;
	case PERF_RECORD_LOST: /* {id, lost} */
		if (rec->size >= sizeof(*rec) + 16) {
			s->res->lost += u[1];
			r->lost_seen += u[1];
		}
		break;
	case PERF_RECORD_LOST_SAMPLES: /* {lost} */
		if (rec->size >= sizeof(*rec) + 8)
			s->res->lost_samples += u[0];
		break;
	case PERF_RECORD_THROTTLE:
		s->res->throttled++;
		break;
	default:
		if (s->uw && unwinder_event(s, rec))
			return -1;
		break;
	}
	return collect_writer_record(s->w, rec);
}

/* The signalfd, then every CPU's ring: POLLIN on each (freed by the caller), or NULL. */
struct pollfd *session_pollfds(const struct session *s)
{
	struct pollfd *pfd = pgo_calloc((size_t)s->ncpu + 1, sizeof(*pfd));
	int i;

	if (!pfd)
		return NULL;
	pfd[0].fd = s->sigfd;
	pfd[0].events = POLLIN;
	for (i = 0; i < s->ncpu; i++) {
		pfd[i + 1].fd = s->rings[i].fd;
		pfd[i + 1].events = POLLIN;
	}
	return pfd;
}

/*
 * The record of size bytes at offset off of r's data: in place, or copied whole into
 * s->copy when it wraps (the header itself never straddles: records are 8-byte aligned).
 */
static const struct perf_event_header *ring_record(struct session *s, const struct ring *r,
						   uint64_t off, size_t size)
{
	size_t first;

	if (off + size <= r->size)
		return (const void *)(r->data + off);
	first = (size_t)(r->size - off);
	memcpy(s->copy, r->data + off, first);
	memcpy((unsigned char *)s->copy + first, r->data, size - first);
	return (const void *)s->copy;
}

/* Returns the number of records read, or -1. */
static long drain_ring(struct session *s, struct ring *r)
{
	uint64_t head, tail;
	long n = 0;

	if (!r->pc)
		return 0;
	head = __atomic_load_n(&r->pc->data_head, __ATOMIC_ACQUIRE);
	tail = r->pc->data_tail;
	if (head - tail > r->size) {
		/* cannot happen in non-overwrite mode; resynchronize rather than parse garbage */
		pgo_warn("sample buffer overrun; skipping %llu bytes", (unsigned long long)(head - tail));
		tail = head;
	}
	while (tail < head) {
		uint64_t off = tail & (r->size - 1);
		const struct perf_event_header *h = (const void *)(r->data + off);
		size_t size = h->size;

		if (size < sizeof(*h) || size > head - tail) {
			pgo_warn("corrupt record in the sample buffer (size %zu); skipping the rest", size);
			tail = head;
			break;
		}
		h = ring_record(s, r, off, size);
		if (consume(s, r, h))
			return -1;
		tail += size;
		n++;
	}
	__atomic_store_n(&r->pc->data_tail, tail, __ATOMIC_RELEASE);
	return n;
}

/* The u64 at byte pos of the ring (8-byte aligned: never straddles the end). */
static uint64_t ring_u64(const struct ring *r, uint64_t pos)
{
	return *(const uint64_t *)(r->data + (pos & (r->size - 1)));
}

/*
 * Time of the record at pos: a sample's TIME follows IDENTIFIER, IP and TID; other
 * records carry it in their sample_id_all trailer ({pid,tid} {time} {cpu,res} {id}).
 */
static uint64_t ring_time(const struct ring *r, uint64_t pos)
{
	const struct perf_event_header *h = (const void *)(r->data + (pos & (r->size - 1)));

	if (h->type == PERF_RECORD_SAMPLE && h->size >= 40)
		return ring_u64(r, pos + 32);
	if (h->type != PERF_RECORD_SAMPLE && h->size >= 40)
		return ring_u64(r, pos + h->size - 24);
	return 0;
}

/*
 * Drain every ring in time order (a merge of the rings, each in time order itself), so
 * the unwinder sees a process's mappings before its samples whichever CPU each ran on.
 * Returns the number of records read, or -1.
 */
static long drain_merged(struct session *s)
{
	long n = 0;
	int c, best;

	for (c = 0; c < s->ncpu; c++) {
		struct ring *r = &s->rings[c];

		s->m_head[c] = s->m_tail[c] = 0;
		if (!r->pc)
			continue;
		s->m_head[c] = __atomic_load_n(&r->pc->data_head, __ATOMIC_ACQUIRE);
		s->m_tail[c] = r->pc->data_tail;
		if (s->m_head[c] - s->m_tail[c] > r->size) {
			pgo_warn("sample buffer overrun; skipping %llu bytes",
				 (unsigned long long)(s->m_head[c] - s->m_tail[c]));
			s->m_tail[c] = s->m_head[c];
		}
		if (s->m_tail[c] < s->m_head[c])
			s->m_time[c] = ring_time(r, s->m_tail[c]);
	}
	for (;;) {
		struct ring *r;
		const struct perf_event_header *h;
		uint64_t off;
		size_t size;

		best = -1;
		for (c = 0; c < s->ncpu; c++)
			if (s->m_tail[c] < s->m_head[c] && (best < 0 || s->m_time[c] < s->m_time[best]))
				best = c;
		if (best < 0)
			break;
		r = &s->rings[best];
		off = s->m_tail[best] & (r->size - 1);
		h = (const void *)(r->data + off);
		size = h->size;
		if (size < sizeof(*h) || size > s->m_head[best] - s->m_tail[best] || size % 8) {
			pgo_warn("corrupt record in the sample buffer (size %zu); skipping the rest", size);
			s->m_tail[best] = s->m_head[best];
			continue;
		}
		h = ring_record(s, r, off, size);
		if (consume(s, r, h))
			return -1;
		s->m_tail[best] += size;
		n++;
		if (s->m_tail[best] < s->m_head[best])
			s->m_time[best] = ring_time(r, s->m_tail[best]);
	}
	for (c = 0; c < s->ncpu; c++)
		if (s->rings[c].pc)
			__atomic_store_n(&s->rings[c].pc->data_tail, s->m_tail[c], __ATOMIC_RELEASE);
	return n;
}

int session_drain_all(struct session *s)
{
	long total = 0, n;
	size_t i;
	int c;

	/* unwinding, and the attach filter, see every CPU's records in time order */
	if (s->uw || (s->at && s->at->filter)) {
		total = drain_merged(s);
		if (total < 0)
			return -1;
	}
	for (c = 0; c < s->ncpu && !s->uw && !(s->at && s->at->filter); c++) {
		n = drain_ring(s, &s->rings[c]);
		if (n < 0)
			return -1;
		total += n;
	}
	if (total && collect_writer_round(s->w))
		return -1;
	for (i = 0; i < s->opts->nr_sources; i++) {
		const struct collect_source *src = s->opts->sources[i];

		if (src->ops->drain && src->ops->drain(src->priv, s->w))
			return -1;
	}
	return 0;
}

/*
 * Records the kernel dropped but never reported with a PERF_RECORD_LOST (the ring had no
 * later write): write one for each ring, so the file and the totals say what was lost.
 */
int session_report_unseen_lost(struct session *s, pid_t pid, uint64_t time)
{
	struct {
		struct perf_event_header h;
		uint64_t id, lost;
		struct trailer t;
	} rec;
	uint64_t v[3];
	int i;

	if (!(s->attr.read_format & PERF_FORMAT_LOST))
		return 0;
	for (i = 0; i < s->ncpu; i++) {
		struct ring *r = &s->rings[i];

		/* {value, id, lost} for read_format ID|LOST */
		if (r->fd < 0 || read(r->fd, v, sizeof(v)) != (ssize_t)sizeof(v) || v[2] <= r->lost_seen)
			continue;
		memset(&rec, 0, sizeof(rec));
		rec.h.type = PERF_RECORD_LOST;
		rec.h.size = sizeof(rec);
		rec.id = r->id;
		rec.lost = v[2] - r->lost_seen;
		session_fill_trailer(s, &rec.t, (uint32_t)pid, (uint32_t)pid, time);
		rec.t.cpu = (uint32_t)s->cpus[i];
		rec.t.id = r->id;
		if (consume(s, r, &rec.h))
			return -1;
	}
	return 0;
}
