// SPDX-License-Identifier: MIT
/*
 * One run of the benchmark: the command looked up, forked and held on a pipe until its
 * events are open, exec, the poll loop with signal handling, and its exit status.
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
int session_check_command(const char *cmd)
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
	execvp(collect_exec_file(s->opts), s->opts->argv);
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

/* Open the run's events, set up the sources once per collection, start them for pid. */
static int run_prepare(struct session *s, pid_t pid)
{
	size_t k;

	if (session_open_events(s, pid))
		return -1;
	if (!s->sources_ready) {
		for (k = 0; k < s->opts->nr_sources; k++) {
			const struct collect_source *src = s->opts->sources[k];

			if (src->ops->init && src->ops->init(src->priv, s->w))
				return -1;
		}
		s->sources_ready = 1;
		if (session_write_kernel_mmap(s))
			return -1;
	}
	for (k = 0; k < s->opts->nr_sources; k++) {
		const struct collect_source *src = s->opts->sources[k];

		if (src->ops->start && src->ops->start(src->priv, s->w, pid))
			return -1;
	}
	return 0;
}

/* Poll the signalfd and the rings, draining them, until the benchmark exited. */
static int run_wait(struct session *s, pid_t pid, int *status, struct rusage *ru)
{
	struct pollfd *pfd;
	int exited = 0, i, ret = -1;

	pfd = session_pollfds(s);
	if (!pfd)
		return -1;
	while (!exited) {
		if (poll(pfd, (nfds_t)s->ncpu + 1, POLL_MS) < 0 && errno != EINTR) {
			pgo_error_errno("poll failed");
			goto out;
		}
		if (pfd[0].revents & POLLIN)
			exited = handle_signals(s, pid, status, ru);
		for (i = 1; i <= s->ncpu; i++)
			if (pfd[i].revents & (POLLHUP | POLLERR))
				pfd[i].fd = -1;  /* the event is gone; the final drain reads it */
		if (session_drain_all(s))
			goto out;
	}
	ret = 0;
out:
	free(pfd);
	return ret;
}

/* After the exit: the last records, the sources stopped, the run's totals and metadata. */
static int run_finish(struct session *s, unsigned int index, pid_t pid, uint64_t start, int status,
		      const struct rusage *ru)
{
	uint64_t end;
	int signaled;
	size_t k;

	/* The kernel wrote the last records before the exit was reported; read them. */
	if (session_drain_all(s) || session_report_unseen_lost(s, pid, event_time(s)))
		return -1;
	for (k = 0; k < s->opts->nr_sources; k++) {
		const struct collect_source *src = s->opts->sources[k];

		if (src->ops->stop && src->ops->stop(src->priv, s->w, pid))
			return -1;
	}
	end = event_time(s);
	s->res->exit_code = shell_status(status, &signaled);
	s->res->signaled = signaled;
	s->res->cpu_ns += (uint64_t)ru->ru_utime.tv_sec * 1000000000ULL + (uint64_t)ru->ru_utime.tv_usec * 1000 +
			  (uint64_t)ru->ru_stime.tv_sec * 1000000000ULL + (uint64_t)ru->ru_stime.tv_usec * 1000;
	s->res->samples += s->run_samples;
	s->res->runs++;
	if (collect_writer_meta(s->w, "run index=%u pid=%d start=%llu end=%llu status=%d samples=%llu",
				index, (int)pid, (unsigned long long)start, (unsigned long long)end,
				s->res->exit_code, (unsigned long long)s->run_samples))
		return -1;
	return 0;
}

int session_run_once(struct session *s, unsigned int index)
{
	int cork[2] = { -1, -1 }, errp[2] = { -1, -1 };
	int status = 0, execerr = 0, i, ret = -1;
	uint64_t start;
	struct rusage ru;
	ssize_t n;
	pid_t pid;

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

	if (run_prepare(s, pid))
		goto cancel;
	/* the run starts now, at the uncork: the FORK's time is the root's start of life */
	s->run_samples = 0;
	start = event_time(s);
	if (session_write_run_fork(s, pid, start))
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
			pgo_error_errno("cannot run '%s'", collect_exec_file(s->opts));
			waitpid(pid, NULL, 0);
			goto out;
		}
		if (run_wait(s, pid, &status, &ru))
			goto cancel_running;
		s->res->duration_ns += now_ns(CLOCK_MONOTONIC) - t0;
	}
	if (run_finish(s, index, pid, start, status, &ru))
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
	session_close_rings(s);
	for (i = 0; i < 2; i++) {
		if (cork[i] >= 0)
			close(cork[i]);
		if (errp[i] >= 0)
			close(errp[i]);
	}
	return ret;
}
