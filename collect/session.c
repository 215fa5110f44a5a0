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
#include "collect/session_internal.h"
#include "lib/alloc.h"
#include "lib/buf.h"
#include "lib/report.h"

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

/* The call graph mode and the stack copy size asked for, resolved; whether we unwind here. */
static void choose_callgraph(struct session *s, const struct collect_opts *opts, struct collect_result *res)
{
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
}

/* The online CPUs and, per CPU, a (closed) ring and the merge's head, tail and time. */
static int alloc_rings(struct session *s)
{
	unsigned int i;

	if (session_online_cpus(s))
		return -1;
	s->rings = pgo_calloc((size_t)s->ncpu, sizeof(*s->rings));
	s->m_head = pgo_calloc((size_t)s->ncpu * 3, sizeof(*s->m_head));
	if (!s->rings || !s->m_head)
		return -1;
	s->m_tail = s->m_head + s->ncpu;
	s->m_time = s->m_tail + s->ncpu;
	for (i = 0; i < (unsigned int)s->ncpu; i++)
		s->rings[i].fd = -1;
	return 0;
}

/* Block SIGCHLD, SIGINT and SIGTERM and read them from a signalfd while collecting. */
static int catch_signals(struct session *s)
{
	sigset_t mask;

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
		return -1;
	}
	return 0;
}

/* Undo catch_signals(): what is pending is read first, then the caller's mask and handlers. */
static void restore_signals(struct session *s)
{
	if (s->sigfd >= 0) {
		struct signalfd_siginfo si;

		/* consume what arrived at the end so restoring the mask does not deliver it */
		while (read(s->sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
			if (si.ssi_signo != SIGCHLD)
				s->res->interrupted = 1;
		close(s->sigfd);
	}
	if (s->blocked) {
		sigaction(SIGINT, &s->old_int, NULL);
		sigaction(SIGTERM, &s->old_term, NULL);
		sigprocmask(SIG_SETMASK, &s->oldmask, NULL);
	}
}

/* The sources released, the writer aborted if still open, the session freed. */
static void session_free(struct session *s)
{
	const struct collect_opts *opts = s->opts;
	size_t k;

	for (k = 0; k < opts->nr_sources; k++)
		if (opts->sources[k]->ops->release)
			opts->sources[k]->ops->release(opts->sources[k]->priv);
	if (s->w)
		collect_writer_abort(s->w);
	free(s->rings);
	free(s->xfds);
	free(s->m_head);
	free(s->cpus);
	free(s);
}

int collect_run(const struct collect_opts *opts, struct collect_result *res)
{
	struct session *s;
	unsigned int runs = opts->runs ? opts->runs : 1, i;
	int ret = -1, maxrate;

	memset(res, 0, sizeof(*res));
	res->freq = opts->freq ? opts->freq : DEFAULT_FREQ;
	if (session_validate(opts) || (!opts->attach && session_check_command(collect_exec_file(opts))))
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
	choose_callgraph(s, opts, res);
	s->ring_pages = collect_callgraph_ring_pages(res->callgraph, res->stack_size, res->freq,
						     POLL_MS, RING_PAGES);
	if (alloc_rings(s))
		goto out_free;
	if (collect_writer_open(&s->w, opts->output ? opts->output : "pgo.data"))
		goto out_free;
	if (collect_writer_set_cmdline(s->w, opts->argc_self, opts->argv_self) ||
	    (opts->compress_level && collect_writer_compress(s->w, opts->compress_level)))
		goto out_abort;
	if (catch_signals(s))
		goto out_abort;
	for (i = 1; i <= runs && !opts->attach; i++) {
		if (session_run_once(s, i))
			goto out_abort;
		if (res->interrupted || res->exit_code)
			break;
	}
	if (opts->attach && session_attach_run(s))
		goto out_abort;
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
	restore_signals(s);
out_free:
	session_free(s);
	return ret;
}
