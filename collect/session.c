// SPDX-License-Identifier: MIT
/*
 * One collection: fork the benchmark, hold it on a pipe, open one sampling event per CPU
 * on it, let it exec, drain the per-CPU rings into the perf.data writer until it exits;
 * repeat for every run. collect/collect.h documents the contract.
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
#include "lib/alloc.h"
#include "lib/buf.h"
#include "lib/report.h"

/* 512 KiB per CPU, perf's default for root; halved while mmap hits the mlock limit. */
#define RING_PAGES 128
#define MIN_RING_PAGES 8
/* Drain at least this often, so memory and FINISHED_ROUND windows stay small. */
#define POLL_MS 100
#define DEFAULT_FREQ 999
/* User frames of an unwound sample (perf's kernel.perf_event_max_stack default + 1). */
#define COLLECT_UNWIND_MAX_PCS 128

struct ring {
	int fd;
	struct perf_event_mmap_page *pc;
	unsigned char *data;
	uint64_t size;   /* data area bytes, a power of two */
	uint64_t id;     /* the event's id, in every record it writes */
	uint64_t lost_seen; /* sum of the PERF_RECORD_LOST records read from this ring */
};

struct session {
	const struct collect_opts *opts;
	struct collect_result *res;
	struct collect_writer *w;
	struct perf_event_attr attr;
	int attr_idx;            /* -1 until the first run chose the event */
	int *cpus;
	int ncpu;
	unsigned int ring_pages;
	struct ring *rings;
	int sigfd;
	sigset_t oldmask;
	struct sigaction old_int, old_term; /* the caller's dispositions, for the child too */
	uint64_t first_id;       /* id used in the trailers of synthesized records */
	uint64_t run_samples;
	int sources_ready;
	int blocked;             /* oldmask is valid and must be restored */
	/* unwinding while draining (fp repair, dwarf-unwound): collect_opts.unwinder */
	const struct collect_unwinder *uw;
	uint64_t *m_head, *m_tail, *m_time; /* per ring, for the merge by time */
	uint64_t dropped;        /* samples that did not parse (never seen from a kernel) */
	uint64_t pcs[COLLECT_UNWIND_MAX_PCS];
	uint64_t out[8192 + 2 * COLLECT_UNWIND_MAX_PCS]; /* the rewritten sample */
	uint64_t copy[8192];     /* a record that wraps the ring end (size is a u16) */
};

static uint64_t now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static uint64_t event_time(const struct session *s)
{
	return s->attr.use_clockid ? now_ns(s->attr.clockid) : 0;
}

/* ---- command lookup ---- */

static int check_exec(const char *path)
{
	struct stat st;

	if (stat(path, &st))
		return -1;
	if (S_ISDIR(st.st_mode)) {
		errno = EISDIR;
		return -1;
	}
	return access(path, X_OK);
}

/* Fail early, before any event is opened, when the command cannot be run. */
static int check_command(const char *cmd)
{
	const char *path = getenv("PATH"), *p, *e;
	struct pgo_buf b = PGO_BUF_INIT;
	int saved = ENOENT;

	if (!*cmd)
		return pgo_error("cannot run '': empty command name");
	if (strchr(cmd, '/')) {
		if (check_exec(cmd))
			return pgo_error_errno("cannot run '%s'", cmd);
		return 0;
	}
	for (p = path ? path : "/usr/local/bin:/usr/bin:/bin"; ; p = e + 1) {
		e = strchrnul(p, ':');
		pgo_buf_reset(&b);
		if (pgo_buf_addf(&b, "%.*s/%s", e == p ? 1 : (int)(e - p), e == p ? "." : p, cmd)) {
			pgo_buf_release(&b);
			return -1;
		}
		if (!check_exec(b.data)) {
			pgo_buf_release(&b);
			return 0;
		}
		if (errno == EACCES)
			saved = EACCES;
		if (!*e)
			break;
	}
	pgo_buf_release(&b);
	if (saved == EACCES)
		return pgo_error("cannot run '%s': permission denied", cmd);
	return pgo_error("cannot run '%s': command not found", cmd);
}

/* ---- CPUs ---- */

static int online_cpus(struct session *s)
{
	char buf[1024];
	size_t alloc = 0;
	char *p;
	FILE *fp = fopen("/sys/devices/system/cpu/online", "re");
	long n;

	if (fp && fgets(buf, sizeof(buf), fp)) {
		for (p = buf; *p && *p != '\n';) {
			char *end;
			long a = strtol(p, &end, 10), b = a;

			if (end == p)
				break;
			if (*end == '-')
				b = strtol(end + 1, &end, 10);
			for (; a <= b; a++) {
				if (PGO_ALLOC_GROW(s->cpus, (size_t)s->ncpu + 1, alloc)) {
					fclose(fp);
					return -1;
				}
				s->cpus[s->ncpu++] = (int)a;
			}
			p = *end == ',' ? end + 1 : end;
		}
	}
	if (fp)
		fclose(fp);
	if (s->ncpu)
		return 0;
	n = sysconf(_SC_NPROCESSORS_ONLN);
	for (s->ncpu = 0; s->ncpu < (n > 0 ? n : 1); s->ncpu++) {
		if (PGO_ALLOC_GROW(s->cpus, (size_t)s->ncpu + 1, alloc))
			return -1;
		s->cpus[s->ncpu] = s->ncpu;
	}
	return 0;
}

/* ---- events ---- */

static long perf_event_open(struct perf_event_attr *a, pid_t pid, int cpu)
{
	return syscall(__NR_perf_event_open, a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

struct event_kind {
	const char *name;
	uint32_t type;
	uint64_t config;
};

static const struct event_kind kinds[] = {
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
};

static void base_attr(const struct session *s, const struct event_kind *k, struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = k->type;
	a->config = k->config;
	a->freq = 1;
	a->sample_freq = s->res->freq;
	a->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
	collect_callgraph_attr(a, s->res->callgraph, s->res->stack_size);
	a->disabled = 1;
	a->enable_on_exec = 1;
	a->inherit = 1;
	a->task = 1;
	a->mmap = 1;
	a->mmap2 = 1;
	a->comm = 1;
	a->comm_exec = 1;
	a->sample_id_all = 1;
	a->exclude_guest = 1;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	/* MMAP2 carries build-ids (5.12+): no pass over the binaries at the end. */
	a->build_id = 1;
	/*
	 * The kernel writes a PERF_RECORD_LOST only when the event next writes to a ring
	 * with room; records dropped just before the benchmark exits are reported nowhere
	 * else than in this count (6.0+), read at the end of each run.
	 */
	a->read_format = PERF_FORMAT_ID | PERF_FORMAT_LOST;
	a->watermark = 1;
	a->wakeup_watermark = MIN_RING_PAGES * 4096 / 2; /* fits the smallest ring we accept */
	if (s->ring_pages > RING_PAGES)
		a->wakeup_watermark = s->ring_pages * 4096 / 4; /* dwarf: big samples, fewer wakeups */
}

static int paranoid_level(void)
{
	FILE *fp = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
	int v = -99;

	if (fp) {
		if (fscanf(fp, "%d", &v) != 1)
			v = -99;
		fclose(fp);
	}
	return v;
}

static int refused(int err, const char *event)
{
	int p = paranoid_level();

	if (p != -99)
		return pgo_error("perf_event_open refused for '%s' (%s; kernel.perf_event_paranoid is %d): "
				 "run 'sysctl kernel.perf_event_paranoid=1' or give pgo CAP_PERFMON",
				 event, strerror(err), p);
	return pgo_error("perf_event_open refused for '%s' (%s): lower kernel.perf_event_paranoid "
			 "or give pgo CAP_PERFMON", event, strerror(err));
}

/*
 * First run: find an attr the kernel takes on cpu, trying the candidates in order and
 * dropping optional features the kernel refuses (perf's evsel__fallback, reduced).
 * Returns the fd; s->attr and s->res->event describe what was opened.
 */
static int choose_event(struct session *s, pid_t pid, int cpu)
{
	const struct event_kind *cand[3];
	const char *want = s->opts->event;
	size_t n = 0, i;
	int fd, err = 0;

	if (!want || !strcmp(want, "auto")) {
		cand[n++] = &kinds[0];
		cand[n++] = &kinds[1];
	} else {
		for (i = 0; i < PGO_ARRAY_SIZE(kinds); i++)
			if (!strcmp(want, kinds[i].name))
				cand[n++] = &kinds[i];
		if (!n)
			PGO_BUG("unchecked event '%s'", want);
	}
	for (i = 0; i < n; i++) {
		base_attr(s, cand[i], &s->attr);
		for (;;) {
			fd = (int)perf_event_open(&s->attr, pid, cpu);
			if (fd >= 0) {
				snprintf(s->res->event, sizeof(s->res->event), "%s", cand[i]->name);
				if (cand[i]->type == PERF_TYPE_HARDWARE)
					s->res->has_pmu = 1;
				return fd;
			}
			err = errno;
			if (err == EINVAL && s->attr.build_id) {
				s->attr.build_id = 0;  /* before 5.12: dev/inode MMAP2 */
				continue;
			}
			if (err == EINVAL && (s->attr.read_format & PERF_FORMAT_LOST)) {
				s->attr.read_format &= ~(uint64_t)PERF_FORMAT_LOST; /* before 6.0 */
				continue;
			}
			if (err == EINVAL && s->attr.use_clockid) {
				s->attr.use_clockid = 0;
				s->attr.clockid = 0;
				continue;
			}
			if ((err == EACCES || err == EPERM) && !s->attr.exclude_kernel) {
				/* perf_event_paranoid >= 2: user space only */
				s->attr.exclude_kernel = 1;
				s->attr.exclude_hv = 1;
				continue;
			}
			break;
		}
		pgo_debug(1, "event '%s' not available: %s", cand[i]->name, strerror(err));
		if (cand[i]->type == PERF_TYPE_HARDWARE &&
		    (err == ENOENT || err == EOPNOTSUPP || err == ENODEV || err == EINVAL) && i + 1 < n)
			continue;
		break;
	}
	if (err == EACCES || err == EPERM)
		return refused(err, cand[i < n ? i : n - 1]->name);
	if (cand[i < n ? i : n - 1]->type == PERF_TYPE_HARDWARE && (err == ENOENT || err == EOPNOTSUPP))
		return pgo_error("event 'cycles' is not supported on this machine (no hardware PMU); "
				 "use -e task-clock");
	errno = err;
	return pgo_error_errno("perf_event_open failed for '%s' on cpu %d", cand[n - 1]->name, cpu);
}

static void close_rings(struct session *s)
{
	int i;

	if (!s->rings)
		return;
	for (i = 0; i < s->ncpu; i++) {
		if (s->rings[i].pc)
			munmap(s->rings[i].pc, (size_t)(s->ring_pages + 1) * (size_t)sysconf(_SC_PAGESIZE));
		if (s->rings[i].fd >= 0)
			close(s->rings[i].fd);
		s->rings[i].pc = NULL;
		s->rings[i].fd = -1;
	}
}

static int map_ring(struct session *s, struct ring *r)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	void *p;

	for (;;) {
		p = mmap(NULL, (s->ring_pages + 1) * page, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, 0);
		if (p != MAP_FAILED)
			break;
		/* perf_event_mlock_kb is per user: shrink rather than fail */
		if (errno == EPERM && s->ring_pages > MIN_RING_PAGES && r == &s->rings[0]) {
			s->ring_pages /= 2;
			continue;
		}
		return pgo_error_errno("cannot map the sample buffer (%u pages; see "
				       "kernel.perf_event_mlock_kb)", s->ring_pages);
	}
	r->pc = p;
	r->data = (unsigned char *)p + page;
	r->size = (uint64_t)s->ring_pages * page;
	return 0;
}

static int open_events(struct session *s, pid_t pid)
{
	uint64_t *ids;
	int i, fd;

	ids = pgo_calloc((size_t)s->ncpu, sizeof(*ids));
	if (!ids)
		return -1;
	for (i = 0; i < s->ncpu; i++) {
		if (s->attr_idx < 0 && i == 0) {
			fd = choose_event(s, pid, s->cpus[i]);
		} else {
			fd = (int)perf_event_open(&s->attr, pid, s->cpus[i]);
			if (fd < 0 && (errno == EACCES || errno == EPERM))
				fd = refused(errno, s->res->event);
			else if (fd < 0)
				fd = pgo_error_errno("perf_event_open failed for '%s' on cpu %d",
						     s->res->event, s->cpus[i]);
		}
		if (fd < 0)
			goto fail;
		s->rings[i].fd = fd;
		if (ioctl(fd, PERF_EVENT_IOC_ID, &ids[i])) {
			pgo_error_errno("cannot read the event id");
			goto fail;
		}
		s->rings[i].id = ids[i];
		s->rings[i].lost_seen = 0;
		if (map_ring(s, &s->rings[i]))
			goto fail;
	}
	if (s->attr_idx < 0) {
		struct perf_event_attr fa = s->attr;

		/* unwound here: the file's samples carry the call chain, not the copies */
		if (s->uw)
			collect_callgraph_file_attr(&fa);
		s->attr_idx = collect_writer_add_attr(s->w, &fa, s->res->event);
		if (s->attr_idx < 0)
			goto fail;
		s->first_id = ids[0];
	}
	if (collect_writer_add_ids(s->w, s->attr_idx, ids, (size_t)s->ncpu))
		goto fail;
	free(ids);
	return 0;
fail:
	free(ids);
	close_rings(s);
	return -1;
}

/* ---- synthesized records ---- */

/* The sample_id_all trailer for our sample_type: {pid,tid} {time} {cpu,res} {identifier}. */
struct trailer {
	uint32_t pid, tid;
	uint64_t time;
	uint32_t cpu, res;
	uint64_t id;
};

static void fill_trailer(const struct session *s, struct trailer *t, uint32_t pid, uint32_t tid,
			 uint64_t time)
{
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
static int write_kernel_mmap(struct session *s)
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
	fill_trailer(s, &rec.t, 0, 0, 0);
	return collect_writer_record(s->w, &rec.h);
}

/*
 * Run boundary visible to perf: the run's root appears as a fork of pgo itself. pgo's own
 * pid gets no other record (no COMM), so readers see each run's root as the root of its own
 * process tree (convert/profile.c relies on this).
 */
static int write_run_fork(struct session *s, pid_t pid, uint64_t time)
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
	fill_trailer(s, &rec.t, (uint32_t)pid, (uint32_t)pid, time);
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

static int consume(struct session *s, struct ring *r, const struct perf_event_header *rec)
{
	const uint64_t *u = (const uint64_t *)(rec + 1);

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
		if (off + size > r->size) {
			/* wraps: the header itself never straddles (records are 8-byte aligned) */
			size_t first = (size_t)(r->size - off);

			memcpy(s->copy, r->data + off, first);
			memcpy((unsigned char *)s->copy + first, r->data, size - first);
			h = (const void *)s->copy;
		}
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
		if (off + size > r->size) {
			size_t first = (size_t)(r->size - off);

			memcpy(s->copy, r->data + off, first);
			memcpy((unsigned char *)s->copy + first, r->data, size - first);
			h = (const void *)s->copy;
		}
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

static int drain_all(struct session *s)
{
	long total = 0, n;
	size_t i;
	int c;

	if (s->uw) {
		total = drain_merged(s);
		if (total < 0)
			return -1;
	}
	for (c = 0; c < s->ncpu && !s->uw; c++) {
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
static int report_unseen_lost(struct session *s, pid_t pid, uint64_t time)
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
		fill_trailer(s, &rec.t, (uint32_t)pid, (uint32_t)pid, time);
		rec.t.cpu = (uint32_t)s->cpus[i];
		rec.t.id = r->id;
		if (consume(s, r, &rec.h))
			return -1;
	}
	return 0;
}

/* ---- one run ---- */

static int shell_status(int status, int *signaled)
{
	*signaled = 0;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status)) {
		*signaled = 1;
		return 128 + WTERMSIG(status);
	}
	return 1;
}

static void child_exec(const struct session *s, int cork, int errfd)
{
	char c;
	int err;

	sigaction(SIGINT, &s->old_int, NULL);
	sigaction(SIGTERM, &s->old_term, NULL);
	sigprocmask(SIG_SETMASK, &s->oldmask, NULL);
	if (read(cork, &c, 1) != 1)
		_exit(127); /* pgo gave up before uncorking */
	execvp(s->opts->argv[0], s->opts->argv);
	err = errno;
	if (write(errfd, &err, sizeof(err)) < 0)
		_exit(127);
	_exit(127);
}

/*
 * Handle pending signals: SIGCHLD reaps the benchmark; SIGINT/SIGTERM are forwarded to it,
 * unless the terminal sent them (then the benchmark, in our process group, got them too).
 */
static int handle_signals(struct session *s, pid_t pid, int *status, struct rusage *ru)
{
	struct signalfd_siginfo si;
	int exited = 0;

	while (read(s->sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if (si.ssi_signo == SIGCHLD) {
			if (wait4(pid, status, WNOHANG, ru) == pid)
				exited = 1;
			continue;
		}
		s->res->interrupted = 1;
		if (si.ssi_code != SI_KERNEL)
			kill(pid, (int)si.ssi_signo);
	}
	return exited;
}

static int run_once(struct session *s, unsigned int index)
{
	struct pollfd *pfd = NULL;
	int cork[2] = { -1, -1 }, errp[2] = { -1, -1 };
	int status = 0, exited = 0, execerr = 0, signaled, i, ret = -1;
	uint64_t start, end;
	struct rusage ru;
	ssize_t n;
	pid_t pid;
	size_t k;

	if (pipe2(cork, O_CLOEXEC) || pipe2(errp, O_CLOEXEC)) {
		pgo_error_errno("cannot create a pipe");
		goto out;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		pgo_error_errno("cannot fork");
		goto out;
	}
	if (pid == 0) {
		close(cork[1]);
		close(errp[0]);
		child_exec(s, cork[0], errp[1]);
	}
	close(cork[0]);
	close(errp[1]);
	cork[0] = errp[1] = -1;

	if (open_events(s, pid))
		goto cancel;
	if (!s->sources_ready) {
		for (k = 0; k < s->opts->nr_sources; k++) {
			const struct collect_source *src = s->opts->sources[k];

			if (src->ops->init && src->ops->init(src->priv, s->w))
				goto cancel;
		}
		s->sources_ready = 1;
		if (write_kernel_mmap(s))
			goto cancel;
	}
	for (k = 0; k < s->opts->nr_sources; k++) {
		const struct collect_source *src = s->opts->sources[k];

		if (src->ops->start && src->ops->start(src->priv, s->w, pid))
			goto cancel;
	}
	/* the run starts now, at the uncork: the FORK's time is the root's start of life */
	s->run_samples = 0;
	start = event_time(s);
	if (write_run_fork(s, pid, start))
		goto cancel;
	{
		uint64_t t0 = now_ns(CLOCK_MONOTONIC);

		if (write(cork[1], "x", 1) != 1) {
			pgo_error_errno("cannot start the benchmark");
			goto cancel;
		}
		close(cork[1]);
		cork[1] = -1;
		/* EOF: exec succeeded (the pipe is close-on-exec); an int: exec's errno */
		n = read(errp[0], &execerr, sizeof(execerr));
		if (n == (ssize_t)sizeof(execerr)) {
			errno = execerr;
			pgo_error_errno("cannot run '%s'", s->opts->argv[0]);
			waitpid(pid, NULL, 0);
			goto out;
		}

		pfd = pgo_calloc((size_t)s->ncpu + 1, sizeof(*pfd));
		if (!pfd)
			goto cancel_running;
		pfd[0].fd = s->sigfd;
		pfd[0].events = POLLIN;
		for (i = 0; i < s->ncpu; i++) {
			pfd[i + 1].fd = s->rings[i].fd;
			pfd[i + 1].events = POLLIN;
		}
		while (!exited) {
			if (poll(pfd, (nfds_t)s->ncpu + 1, POLL_MS) < 0 && errno != EINTR) {
				pgo_error_errno("poll failed");
				goto cancel_running;
			}
			if (pfd[0].revents & POLLIN)
				exited = handle_signals(s, pid, &status, &ru);
			for (i = 1; i <= s->ncpu; i++)
				if (pfd[i].revents & (POLLHUP | POLLERR))
					pfd[i].fd = -1;  /* the event is gone; the final drain reads it */
			if (drain_all(s))
				goto cancel_running;
		}
		s->res->duration_ns += now_ns(CLOCK_MONOTONIC) - t0;
	}
	/* The kernel wrote the last records before the exit was reported; read them. */
	if (drain_all(s) || report_unseen_lost(s, pid, event_time(s)))
		goto out;
	for (k = 0; k < s->opts->nr_sources; k++) {
		const struct collect_source *src = s->opts->sources[k];

		if (src->ops->stop && src->ops->stop(src->priv, s->w, pid))
			goto out;
	}
	end = event_time(s);
	s->res->exit_code = shell_status(status, &signaled);
	s->res->signaled = signaled;
	s->res->cpu_ns += (uint64_t)ru.ru_utime.tv_sec * 1000000000ULL + (uint64_t)ru.ru_utime.tv_usec * 1000 +
			  (uint64_t)ru.ru_stime.tv_sec * 1000000000ULL + (uint64_t)ru.ru_stime.tv_usec * 1000;
	s->res->samples += s->run_samples;
	s->res->runs++;
	if (collect_writer_meta(s->w, "run index=%u pid=%d start=%llu end=%llu status=%d samples=%llu",
				index, (int)pid, (unsigned long long)start, (unsigned long long)end,
				s->res->exit_code, (unsigned long long)s->run_samples))
		goto out;
	ret = 0;
	goto out;

cancel_running:
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	goto out;
cancel:
	/* closing the cork without a byte makes the child exit without exec */
	if (cork[1] >= 0)
		close(cork[1]);
	cork[1] = -1;
	waitpid(pid, NULL, 0);
out:
	free(pfd);
	close_rings(s);
	for (i = 0; i < 2; i++) {
		if (cork[i] >= 0)
			close(cork[i]);
		if (errp[i] >= 0)
			close(errp[i]);
	}
	return ret;
}

/* ---- the collection ---- */

static int write_summary_meta(struct session *s)
{
	const struct collect_result *r = s->res;
	const struct collect_unwind_stats *u = &r->unwind;

	if (collect_writer_meta(s->w, "pgo version=%s", PGO_VERSION) ||
	    collect_writer_meta(s->w, "event name=%s type=%u config=%llu freq=%u period=%llu "
				"callgraph=%s stack_user=%u has_pmu=%d has_lbr=0 kernel=%d",
				r->event, s->attr.type, (unsigned long long)s->attr.config, r->freq,
				(unsigned long long)(r->has_pmu ? 0 : 1000000000ULL / r->freq),
				collect_callgraph_name(r->callgraph), r->stack_size,
				r->has_pmu, !s->attr.exclude_kernel) ||
	    collect_writer_meta(s->w, "totals runs=%u samples=%llu lost=%llu lost_samples=%llu "
				"throttled=%llu cpu_ns=%llu duration_ns=%llu",
				r->runs, (unsigned long long)r->samples, (unsigned long long)r->lost,
				(unsigned long long)r->lost_samples, (unsigned long long)r->throttled,
				(unsigned long long)r->cpu_ns, (unsigned long long)r->duration_ns))
		return -1;
	if (!r->unwound)
		return 0;
	/* the stacks were unwound here: what became of them (collect/collect.h) */
	return collect_writer_meta(s->w, "unwound samples=%llu complete=%llu truncated_stack=%llu "
				   "truncated_cfi=%llu too_deep=%llu no_regs=%llu fp_kept=%llu "
				   "fp_repaired=%llu fp_frames_added=%llu fp_no_cfi=%llu cpu_ns=%llu",
				   (unsigned long long)u->samples, (unsigned long long)u->complete,
				   (unsigned long long)u->truncated_stack,
				   (unsigned long long)u->truncated_cfi, (unsigned long long)u->too_deep,
				   (unsigned long long)u->no_regs, (unsigned long long)u->fp_kept,
				   (unsigned long long)u->fp_repaired,
				   (unsigned long long)u->fp_frames_added,
				   (unsigned long long)u->fp_no_cfi, (unsigned long long)u->ns) ? -1 : 0;
}

static int validate(const struct collect_opts *o)
{
	size_t i;

	if (!o->argv || !o->argv[0])
		return pgo_error("no command to run");
	if (o->event && strcmp(o->event, "auto")) {
		for (i = 0; i < PGO_ARRAY_SIZE(kinds); i++)
			if (!strcmp(o->event, kinds[i].name))
				break;
		if (i == PGO_ARRAY_SIZE(kinds))
			return pgo_error("unknown event '%s' (use cycles, task-clock or cpu-clock)", o->event);
	}
	return 0;
}

static int max_sample_rate(void)
{
	FILE *fp = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "re");
	int v = 0;

	if (fp) {
		if (fscanf(fp, "%d", &v) != 1)
			v = 0;
		fclose(fp);
	}
	return v;
}

int collect_run(const struct collect_opts *opts, struct collect_result *res)
{
	struct session *s;
	sigset_t mask;
	unsigned int runs = opts->runs ? opts->runs : 1, i;
	int ret = -1, maxrate;
	size_t k;

	memset(res, 0, sizeof(*res));
	res->freq = opts->freq ? opts->freq : DEFAULT_FREQ;
	if (validate(opts) || check_command(opts->argv[0]))
		return -1;
	maxrate = max_sample_rate();
	if (maxrate > 0 && res->freq > (unsigned int)maxrate)
		return pgo_error("sampling rate %u Hz is above kernel.perf_event_max_sample_rate (%d); "
				 "use a lower -F", res->freq, maxrate);
	s = pgo_calloc(1, sizeof(*s));
	if (!s)
		return -1;
	s->opts = opts;
	s->res = res;
	s->attr_idx = -1;
	s->sigfd = -1;
	res->callgraph = opts->callgraph;
	res->stack_size = opts->stack_size ? opts->stack_size : COLLECT_DWARF_STACK_DEFAULT;
	/* auto is the command's to resolve (symbolize/fpcensus.h); DWARF is right either way */
	if (res->callgraph == COLLECT_CALLGRAPH_AUTO)
		res->callgraph = COLLECT_CALLGRAPH_DWARF_UNWOUND;
	/* without an unwinder, the copies go to the file (dwarf) or there are none (fp) */
	if (res->callgraph == COLLECT_CALLGRAPH_DWARF_UNWOUND && !opts->unwinder)
		res->callgraph = COLLECT_CALLGRAPH_DWARF;
	if (res->callgraph == COLLECT_CALLGRAPH_DWARF_UNWOUND && !opts->stack_size)
		res->stack_size = COLLECT_UNWOUND_STACK_DEFAULT;
	if (res->callgraph == COLLECT_CALLGRAPH_FP)
		res->stack_size = !opts->unwinder ? 0 : opts->stack_size ? opts->stack_size :
			COLLECT_FP_STACK_DEFAULT;
	if (res->callgraph == COLLECT_CALLGRAPH_NONE)
		res->stack_size = 0;
	if (opts->unwinder && res->stack_size &&
	    (res->callgraph == COLLECT_CALLGRAPH_FP || res->callgraph == COLLECT_CALLGRAPH_DWARF_UNWOUND)) {
		s->uw = opts->unwinder;
		res->unwound = 1;
	}
	if (opts->callgraph_why)
		snprintf(res->callgraph_why, sizeof(res->callgraph_why), "%s", opts->callgraph_why);
	s->ring_pages = collect_callgraph_ring_pages(res->callgraph, res->stack_size, res->freq,
						     POLL_MS, RING_PAGES);
	if (online_cpus(s))
		goto out_free;
	s->rings = pgo_calloc((size_t)s->ncpu, sizeof(*s->rings));
	s->m_head = pgo_calloc((size_t)s->ncpu * 3, sizeof(*s->m_head));
	if (!s->rings || !s->m_head)
		goto out_free;
	s->m_tail = s->m_head + s->ncpu;
	s->m_time = s->m_tail + s->ncpu;
	for (i = 0; i < (unsigned int)s->ncpu; i++)
		s->rings[i].fd = -1;
	if (collect_writer_open(&s->w, opts->output ? opts->output : "pgo.data"))
		goto out_free;
	if (collect_writer_set_cmdline(s->w, opts->argc_self, opts->argv_self) ||
	    (opts->compress_level && collect_writer_compress(s->w, opts->compress_level)))
		goto out_abort;

	/* An ignored SIGCHLD would auto-reap the benchmark and hide its status. */
	signal(SIGCHLD, SIG_DFL);
	sigemptyset(&mask);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigprocmask(SIG_BLOCK, &mask, &s->oldmask);
	s->blocked = 1;
	/*
	 * A shell starts background jobs with SIGINT ignored; an ignored signal never reaches
	 * the signalfd, so take the default (blocked, hence only read) while collecting.
	 */
	{
		struct sigaction dfl;

		memset(&dfl, 0, sizeof(dfl));
		dfl.sa_handler = SIG_DFL;
		sigaction(SIGINT, &dfl, &s->old_int);
		sigaction(SIGTERM, &dfl, &s->old_term);
	}
	s->sigfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	if (s->sigfd < 0) {
		pgo_error_errno("cannot create a signalfd");
		goto out_abort;
	}
	for (i = 1; i <= runs; i++) {
		if (run_once(s, i))
			goto out_abort;
		if (res->interrupted || res->exit_code)
			break;
	}
	if (s->uw && s->uw->ops->stats)
		s->uw->ops->stats(s->uw->priv, &res->unwind);
	if (s->dropped)
		pgo_warn("%llu samples did not parse and were left out",
			 (unsigned long long)s->dropped);
	if (write_summary_meta(s))
		goto out_abort;
	res->raw_bytes = collect_writer_raw_size(s->w);
	ret = collect_writer_commit(s->w);
	s->w = NULL;
	goto out_signals;

out_abort:
	collect_writer_abort(s->w);
	s->w = NULL;
out_signals:
	if (s->sigfd >= 0) {
		struct signalfd_siginfo si;

		/* consume what arrived at the end so restoring the mask does not deliver it */
		while (read(s->sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
			if (si.ssi_signo != SIGCHLD)
				res->interrupted = 1;
		close(s->sigfd);
	}
	if (s->blocked) {
		sigaction(SIGINT, &s->old_int, NULL);
		sigaction(SIGTERM, &s->old_term, NULL);
		sigprocmask(SIG_SETMASK, &s->oldmask, NULL);
	}
out_free:
	for (k = 0; k < opts->nr_sources; k++)
		if (opts->sources[k]->ops->release)
			opts->sources[k]->ops->release(opts->sources[k]->priv);
	if (s->w)
		collect_writer_abort(s->w);
	free(s->rings);
	free(s->m_head);
	free(s->cpus);
	free(s);
	return ret;
}
