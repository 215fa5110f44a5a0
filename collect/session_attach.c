// SPDX-License-Identifier: MIT
/*
 * Attaching to running processes (collect_opts.attach, collect/collect.h): the targets,
 * their events, the recording until its duration, a signal or (-p) the processes' exit.
 *
 * -p PID: one event per thread and CPU (pid = the thread, inherit: threads and children
 * created while recording are followed by the kernel), every thread's event on a CPU
 * writing into that CPU's ring (PERF_EVENT_IOC_SET_OUTPUT), as perf record -p does.
 * -a --binary PATH: one event per CPU on every task (pid -1), the drain keeping the
 * records of the processes that run PATH (session_drain.c's attach filter): those
 * running at the start (/proc/N/exe), those that exec it later (their first executable
 * mapping is PATH) and the children of followed ones. Per-CPU events see a process from
 * its exec on, with no race between a new process and pgo noticing it (attaching to it
 * after an exec notification would miss its start and cost an event per thread and CPU).
 * --cgroup DIR: one event per CPU with PERF_FLAG_PID_CGROUP; the kernel keeps the cgroup's
 * records only.
 * Processes running at the start are described from /proc (session_proc.c) after their
 * events are enabled, stamped with the start time, so no mapping is missed in between.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "collect/collect.h"
#include "collect/pdwrite.h"
#include "collect/session_internal.h"
#include "lib/alloc.h"
#include "lib/buf.h"
#include "lib/report.h"

/* pid's state letter in /proc/pid/stat ('Z': a zombie), and its user+system ticks; 0 if gone. */
static char proc_stat(pid_t pid, uint64_t *ticks)
{
	char path[64], buf[1024], *p;
	unsigned long long ut = 0, st = 0;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	p = strrchr(buf, ')');  /* the comm may hold spaces and parentheses */
	if (!p || p[1] != ' ' || !p[2])
		return 0;
	/* fields 3 (state) .. 15 (stime) */
	if (ticks && sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) == 2)
		*ticks += ut + st;
	return p[2];
}

static int alive(pid_t pid)
{
	char c = proc_stat(pid, NULL);

	return c && c != 'Z' && c != 'X';
}

/* The threads of pid (/proc/pid/task), appended to *tids. 0, 1 if pid is gone, or -1. */
static int list_threads(pid_t pid, pid_t **tids, size_t *nr, size_t *alloc)
{
	char path[64];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return 1;
	while ((de = readdir(d))) {
		char *end;
		long tid = strtol(de->d_name, &end, 10);

		if (*end || tid <= 0)
			continue;
		if (PGO_ALLOC_GROW(*tids, *nr + 1, *alloc)) {
			closedir(d);
			return -1;
		}
		(*tids)[(*nr)++] = (pid_t)tid;
	}
	closedir(d);
	return 0;
}

static int has_tid(const pid_t *tids, size_t nr, pid_t tid)
{
	size_t i;

	for (i = 0; i < nr; i++)
		if (tids[i] == tid)
			return 1;
	return 0;
}

/*
 * -p: events on every thread of every pid. A thread started after the listing by one that
 * has no event yet is found by listing again, until a pass finds nothing new.
 */
static int open_pids(struct session *s, const struct collect_attach *a)
{
	pid_t *done = NULL, *now = NULL;
	size_t nr_done = 0, alloc_done = 0, nr_now, alloc_now = 0, i, k;
	int found = 1, err = 0, pass;

	for (pass = 0; found && !err && pass < 100; pass++) {
		found = 0;
		for (k = 0; k < a->nr_pids && !err; k++) {
			nr_now = 0;
			err = list_threads(a->pids[k], &now, &nr_now, &alloc_now);
			if (err > 0) {
				err = pass ? 0 : pgo_error("no process %d (it exited, or is not visible "
							   "here)", (int)a->pids[k]);
				continue;
			}
			for (i = 0; i < nr_now && !err; i++) {
				if (has_tid(done, nr_done, now[i]))
					continue;
				found = 1;
				if (s->attr_idx < 0)
					err = session_open_events(s, now[i]);
				else
					err = session_open_thread(s, now[i]);
				if (err > 0) {
					err = 0;  /* the thread exited meanwhile */
					continue;
				}
				if (!err && PGO_ALLOC_GROW(done, nr_done + 1, alloc_done))
					err = -1;
				if (!err)
					done[nr_done++] = now[i];
			}
		}
	}
	if (!err && s->attr_idx < 0)
		err = pgo_error("no thread of the processes given to attach to");
	free(done);
	free(now);
	return err ? -1 : 0;
}

/* The processes running the binary (/proc/N/exe is it), followed and described. */
static int scan_binary(struct session *s, const char *binary, uint64_t time)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	int err = 0;

	if (!d)
		return pgo_error_errno("cannot list /proc");
	while (!err && (de = readdir(d))) {
		char path[64], exe[PATH_MAX];
		char *end;
		long pid = strtol(de->d_name, &end, 10);
		ssize_t n;

		if (*end || pid <= 0 || pid == getpid())
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/exe", pid);
		n = readlink(path, exe, sizeof(exe) - 1);
		if (n <= 0)
			continue;
		exe[n] = '\0';
		if (strcmp(exe, binary))
			continue;
		err = session_attach_follow(s, (uint32_t)pid);
		if (!err && session_synth_process(s, (pid_t)pid, time) < 0)
			err = -1;
	}
	closedir(d);
	return err;
}

/* The processes of the cgroup (cgroup.procs), followed (for the sources) and described. */
static int scan_cgroup(struct session *s, const char *dir, uint64_t time)
{
	char path[PATH_MAX];
	FILE *fp;
	long pid;
	int err = 0;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	fp = fopen(path, "re");
	if (!fp)
		return pgo_error_errno("cannot read '%s'", path);
	while (!err && fscanf(fp, "%ld", &pid) == 1) {
		if (pid <= 0 || pid == getpid())
			continue;
		err = session_attach_follow(s, (uint32_t)pid);
		if (!err && session_synth_process(s, (pid_t)pid, time) < 0)
			err = -1;
	}
	fclose(fp);
	return err;
}

/* The sources (off-CPU) follow the processes followed since they last heard. */
static int start_new(struct session *s)
{
	struct attach *at = s->at;
	size_t i, k;

	for (i = 0; i < at->nr_new; i++)
		for (k = 0; k < s->opts->nr_sources; k++) {
			const struct collect_source *src = s->opts->sources[k];

			if (src->ops->start && src->ops->start(src->priv, s->w, at->new_pids[i]))
				return -1;
		}
	at->nr_new = 0;
	return 0;
}

/* Once: the sources' attrs and the kernel map, as a started run's first prepare does. */
static int init_sources(struct session *s)
{
	size_t k;

	for (k = 0; k < s->opts->nr_sources; k++) {
		const struct collect_source *src = s->opts->sources[k];

		if (src->ops->init && src->ops->init(src->priv, s->w))
			return -1;
	}
	s->sources_ready = 1;
	return session_write_kernel_mmap(s);
}

/*
 * -a: a source's BPF filter (the off-CPU program's followed processes) on every ring's
 * event, so other tasks' samples never reach the rings; without one, or where the kernel
 * refuses it, the drain's filter alone decides.
 */
static void set_sample_filter(struct session *s)
{
	size_t k;
	int i, fd = -1;

	for (k = 0; k < s->opts->nr_sources && fd < 0; k++) {
		const struct collect_source *src = s->opts->sources[k];

		if (src->ops->sample_filter)
			fd = src->ops->sample_filter(src->priv);
	}
	if (fd < 0)
		return;
	for (i = 0; i < s->ncpu; i++)
		if (s->rings[i].fd >= 0 && ioctl(s->rings[i].fd, PERF_EVENT_IOC_SET_BPF, fd)) {
			pgo_debug(1, "no BPF sample filter on cpu %d (%s): filtering while draining",
				  s->cpus[i], strerror(errno));
			return;
		}
	pgo_debug(1, "BPF sample filter on the events of every CPU");
}

/* SIGINT/SIGTERM end the recording; 1 then. */
static int signalled(struct session *s)
{
	struct signalfd_siginfo si;
	int stop = 0;

	while (read(s->sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
		if (si.ssi_signo != SIGCHLD)
			stop = 1;
	return stop;
}

static int any_alive(const struct collect_attach *a)
{
	size_t k;

	for (k = 0; k < a->nr_pids; k++)
		if (alive(a->pids[k]))
			return 1;
	return 0;
}

/* Poll and drain until the duration is over, a signal came, or (-p) the processes exited. */
static int record(struct session *s, uint64_t t0)
{
	const struct collect_attach *a = s->opts->attach;
	struct pollfd *pfd;
	int i, ret = -1;

	pfd = session_pollfds(s);
	if (!pfd)
		return -1;
	for (;;) {
		int ms = POLL_MS;
		uint64_t now = now_ns(CLOCK_MONOTONIC);

		if (a->duration_ns) {
			if (now - t0 >= a->duration_ns)
				break;
			if (a->duration_ns - (now - t0) < (uint64_t)ms * 1000000)
				ms = (int)((a->duration_ns - (now - t0)) / 1000000) + 1;
		}
		if (poll(pfd, (nfds_t)s->ncpu + 1, ms) < 0 && errno != EINTR) {
			pgo_error_errno("poll failed");
			goto out;
		}
		if ((pfd[0].revents & POLLIN) && signalled(s)) {
			s->res->interrupted = 1;
			break;
		}
		for (i = 1; i <= s->ncpu; i++)
			if (pfd[i].revents & (POLLHUP | POLLERR))
				pfd[i].fd = -1;  /* the event is gone; the final drain reads it */
		if (session_drain_all(s) || start_new(s))
			goto out;
		if (a->pids && !any_alive(a))
			break;
	}
	ret = 0;
out:
	free(pfd);
	return ret;
}

static void attach_free(struct attach *at)
{
	if (!at)
		return;
	pgo_u64map_release(&at->follow);
	free(at->pending);
	free(at->new_pids);
	free(at);
}

/* The "attach" metadata line: what was attached to. */
static int attach_meta(struct session *s, const struct collect_attach *a)
{
	struct pgo_buf b = PGO_BUF_INIT;
	size_t k;
	int err = 0;

	if (a->pids) {
		err = pgo_buf_addf(&b, "pids=");
		for (k = 0; k < a->nr_pids && !err; k++)
			err = pgo_buf_addf(&b, "%s%d", k ? "," : "", (int)a->pids[k]);
	} else if (a->binary) {
		err = pgo_buf_addf(&b, "binary=%s", a->binary);
	} else {
		err = pgo_buf_addf(&b, "cgroup=%s", a->cgroup);
	}
	if (!err)
		err = collect_writer_meta(s->w, "attach %s duration_ns=%llu processes=%u exited=%u",
					  b.data, (unsigned long long)a->duration_ns, s->res->attached,
					  s->res->attached_exited);
	pgo_buf_release(&b);
	return err ? -1 : 0;
}

int session_attach_run(struct session *s)
{
	const struct collect_attach *a = s->opts->attach;
	uint64_t start, end, t0, ticks0 = 0, ticks1 = 0;
	pid_t first = a->nr_pids ? a->pids[0] : 0;
	int cgfd = -1, ret = -1;
	size_t k;

	s->at = pgo_calloc(1, sizeof(*s->at));
	if (!s->at)
		return -1;
	s->at->follow = (struct pgo_u64map)PGO_U64MAP_INIT;
	s->at->filter = !!a->binary;
	s->at->binary = a->binary;
	if (a->pids) {
		for (k = 0; k < a->nr_pids; k++) {
			if (!alive(a->pids[k])) {
				pgo_error("no process %d to attach to", (int)a->pids[k]);
				goto out;
			}
			if (session_attach_follow(s, (uint32_t)a->pids[k]))
				goto out;
		}
		if (open_pids(s, a))
			goto out;
	} else if (a->cgroup) {
		cgfd = open(a->cgroup, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (cgfd < 0) {
			pgo_error_errno("cannot open the cgroup '%s'", a->cgroup);
			goto out;
		}
		s->open_flags = PERF_FLAG_PID_CGROUP;
		if (session_open_events(s, cgfd))
			goto out;
	} else {
		/*
		 * Every task's samples reach the rings, the followed ones' only are kept: with
		 * 16 KiB stack copies of a busy machine, twice the ring a process needs.
		 */
		if (s->ring_pages > RING_PAGES && s->ring_pages < 4096)
			s->ring_pages *= 2;
		if (session_open_events(s, -1))
			goto out;
	}
	if (init_sources(s))
		goto out;
	if (a->binary)
		set_sample_filter(s);
	s->run_samples = 0;
	start = event_time(s);
	t0 = now_ns(CLOCK_MONOTONIC);
	if (session_enable(s))
		goto out;
	/* what runs already, described after the events started (no mapping slips between) */
	for (k = 0; k < a->nr_pids; k++) {
		proc_stat(a->pids[k], &ticks0);
		if (session_synth_process(s, a->pids[k], start) < 0)
			goto out;
	}
	if (a->binary && scan_binary(s, a->binary, start))
		goto out;
	if (a->cgroup && scan_cgroup(s, a->cgroup, start))
		goto out;
	if (!s->at->followed && a->binary)
		pgo_info("no process runs %s yet; waiting for one", a->binary);
	else
		pgo_info("recording %u process%s%s", s->at->followed, s->at->followed == 1 ? "" : "es",
			 a->duration_ns ? "" : " until SIGINT or SIGTERM");
	if (start_new(s) || record(s, t0))
		goto out;
	for (k = 0; k < a->nr_pids; k++)
		proc_stat(a->pids[k], &ticks1);
	if (ticks1 > ticks0)
		s->res->cpu_ns = (ticks1 - ticks0) * (1000000000ULL / (uint64_t)sysconf(_SC_CLK_TCK));
	s->res->duration_ns = now_ns(CLOCK_MONOTONIC) - t0;
	/* the last records, the sources stopped: the recording is whole */
	if (session_drain_all(s) || session_report_unseen_lost(s, first, event_time(s)))
		goto out;
	for (k = 0; k < s->opts->nr_sources; k++) {
		const struct collect_source *src = s->opts->sources[k];

		if (src->ops->stop && src->ops->stop(src->priv, s->w, first))
			goto out;
	}
	end = event_time(s);
	s->res->attached = s->at->followed;
	s->res->samples = s->run_samples;
	s->res->runs = 1;
	if (collect_writer_meta(s->w, "run index=1 pid=%d start=%llu end=%llu status=0 samples=%llu",
				(int)first, (unsigned long long)start, (unsigned long long)end,
				(unsigned long long)s->run_samples) ||
	    attach_meta(s, a))
		goto out;
	ret = 0;
out:
	session_close_rings(s);
	if (cgfd >= 0)
		close(cgfd);
	attach_free(s->at);
	s->at = NULL;
	return ret;
}
