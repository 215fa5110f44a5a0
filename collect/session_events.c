// SPDX-License-Identifier: MIT
/*
 * The sampling events of a collection: the online CPUs, the event chosen (cycles, else
 * task-clock or cpu-clock) and its attr, one event and one mapped ring per CPU.
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

/* ---- CPUs ---- */

int session_online_cpus(struct session *s)
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

static long perf_event_open(const struct session *s, struct perf_event_attr *a, pid_t pid, int cpu)
{
	return syscall(__NR_perf_event_open, a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC | s->open_flags);
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
	if (s->opts->attach) {
		/* running already: enabled by session_enable() once every event is open */
		a->enable_on_exec = 0;
		/* events on whole CPUs (pid -1, a cgroup) see every task: nothing to inherit */
		a->inherit = !!s->opts->attach->pids;
	}
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

static int refused(const struct session *s, int err, const char *event)
{
	int p = paranoid_level();
	const struct collect_attach *at = s->opts->attach;

	if (at && !at->pids)
		return pgo_error("perf_event_open refused for '%s' on whole CPUs (%s; "
				 "kernel.perf_event_paranoid is %d): -a and --cgroup need root, "
				 "CAP_PERFMON or 'sysctl kernel.perf_event_paranoid=0'",
				 event, strerror(err), p);
	if (at)
		return pgo_error("perf_event_open refused for '%s' on the process (%s; "
				 "kernel.perf_event_paranoid is %d): attaching needs root or CAP_PERFMON, "
				 "or a process of your own user that you may ptrace (kernel.yama.ptrace_scope) "
				 "with kernel.perf_event_paranoid <= 2", event, strerror(err), p);

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
			fd = (int)perf_event_open(s, &s->attr, pid, cpu);
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
		return refused(s, err, cand[i < n ? i : n - 1]->name);
	if (cand[i < n ? i : n - 1]->type == PERF_TYPE_HARDWARE && (err == ENOENT || err == EOPNOTSUPP))
		return pgo_error("event 'cycles' is not supported on this machine (no hardware PMU); "
				 "use -e task-clock");
	errno = err;
	return pgo_error_errno("perf_event_open failed for '%s' on cpu %d", cand[n - 1]->name, cpu);
}

void session_close_rings(struct session *s)
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
	for (i = 0; i < (int)s->nr_xfds; i++)
		close(s->xfds[i]);
	s->nr_xfds = 0;
}

/*
 * Attach -p: one more thread's events, one per CPU, writing into the CPU's ring
 * (PERF_EVENT_IOC_SET_OUTPUT, as perf record -p does). 0, 1 when the thread is gone
 * already, or -1.
 */
int session_open_thread(struct session *s, pid_t tid)
{
	uint64_t id;
	int i, fd;

	for (i = 0; i < s->ncpu; i++) {
		fd = (int)perf_event_open(s, &s->attr, tid, s->cpus[i]);
		if (fd < 0 && errno == ESRCH)
			return 1;
		if (fd < 0 && (errno == EACCES || errno == EPERM))
			return refused(s, errno, s->res->event);
		if (fd < 0)
			return pgo_error_errno("perf_event_open failed for '%s' on thread %d, cpu %d",
					       s->res->event, (int)tid, s->cpus[i]);
		if (PGO_ALLOC_GROW(s->xfds, s->nr_xfds + 1, s->alloc_xfds)) {
			close(fd);
			return -1;
		}
		s->xfds[s->nr_xfds++] = fd;
		if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, s->rings[i].fd))
			return pgo_error_errno("cannot redirect the events of thread %d", (int)tid);
		if (ioctl(fd, PERF_EVENT_IOC_ID, &id))
			return pgo_error_errno("cannot read the event id");
		if (collect_writer_add_ids(s->w, s->attr_idx, &id, 1))
			return -1;
	}
	return 0;
}

/* Attach: start every event (they were opened disabled). */
int session_enable(struct session *s)
{
	size_t i;

	for (i = 0; i < (size_t)s->ncpu; i++)
		if (s->rings[i].fd >= 0 && ioctl(s->rings[i].fd, PERF_EVENT_IOC_ENABLE, 0))
			return pgo_error_errno("cannot enable the sampling event");
	for (i = 0; i < s->nr_xfds; i++)
		ioctl(s->xfds[i], PERF_EVENT_IOC_ENABLE, 0); /* a thread gone meanwhile: no matter */
	return 0;
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

int session_open_events(struct session *s, pid_t pid)
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
			fd = (int)perf_event_open(s, &s->attr, pid, s->cpus[i]);
			if (fd < 0 && (errno == EACCES || errno == EPERM))
				fd = refused(s, errno, s->res->event);
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
	session_close_rings(s);
	return -1;
}

int session_validate(const struct collect_opts *o)
{
	size_t i;

	if (!o->attach && (!o->argv || !o->argv[0]))
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
