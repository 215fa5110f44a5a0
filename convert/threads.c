// SPDX-License-Identifier: MIT
/* Per-thread on-CPU + off-CPU time against thread lifetimes (convert/threads.h). */
#include <stdlib.h>
#include <string.h>

#include "collect/pdformat.h"
#include "collect/pdread.h"
#include "convert/threads.h"
#include "lib/alloc.h"
#include "lib/hashmap.h"
#include "lib/report.h"

struct acc {
	struct convert_thread_time *t;
	size_t nr, alloc;
	struct pgo_u64map tid2idx;     /* tid -> index + 1 of its latest entry */
};

/*
 * The thread's current entry, or a new one for an unknown tid. Only a FORK (fresh) starts a
 * new entry for a known tid that has exited (tid reuse): the off-CPU samples of a thread
 * are written after its EXIT and still belong to it.
 */
static struct convert_thread_time *get(struct acc *a, uint32_t pid, uint32_t tid, uint64_t time,
				       int fresh)
{
	struct convert_thread_time *t;
	uint64_t *slot;

	if (pgo_u64map_get(&a->tid2idx, tid, &slot) < 0)
		return NULL;
	if (*slot && !fresh)
		return &a->t[*slot - 1];
	if (*slot && fresh && !a->t[*slot - 1].has_exit && !a->t[*slot - 1].has_fork &&
	    !a->t[*slot - 1].cpu_samples && !a->t[*slot - 1].offcpu_samples) {
		t = &a->t[*slot - 1];     /* seen only through COMM/MMAP before its FORK */
		t->start_ns = time;
		return t;
	}
	if (PGO_ALLOC_GROW(a->t, a->nr + 1, a->alloc) < 0)
		return NULL;
	t = &a->t[a->nr++];
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->tid = tid;
	t->start_ns = t->end_ns = time;
	if (pgo_u64map_put(&a->tid2idx, tid, a->nr) < 0)
		return NULL;
	return t;
}

/* One record's share of its thread: lifetime ends, name, on- and off-CPU time. 0 or -1. */
static int on_event(struct acc *a, const struct collect_pd_event *ev)
{
	struct convert_thread_time *t;

	switch (ev->type) {
	case PERF_RECORD_FORK:
		t = get(a, ev->u.task.pid, ev->u.task.tid, ev->u.task.time, 1);
		if (!t)
			return -1;
		t->has_fork = 1;
		break;
	case PERF_RECORD_EXIT:
		t = get(a, ev->u.task.pid, ev->u.task.tid, ev->u.task.time, 0);
		if (!t)
			return -1;
		t->has_exit = 1;
		t->end_ns = ev->u.task.time;
		break;
	case PERF_RECORD_COMM:
		t = get(a, ev->u.comm.pid, ev->u.comm.tid, ev->time, 0);
		if (!t)
			return -1;
		snprintf(t->comm, sizeof(t->comm), "%s", ev->u.comm.comm);
		/*
		 * The program's life starts at exec: pgo collect's FORK is written before
		 * the child waits to be uncorked, and sampling starts at exec.
		 */
		if (ev->u.comm.exec && ev->time > t->start_ns)
			t->start_ns = ev->time;
		break;
	case PERF_RECORD_SAMPLE:
		t = get(a, ev->u.sample.pid, ev->u.sample.tid, ev->time, 0);
		if (!t)
			return -1;
		if (!strcmp(ev->u.sample.attr->name, PD_OFFCPU_EVENT_NAME)) {
			t->offcpu_ns += ev->u.sample.period;
			t->offcpu_samples++;
		} else {
			t->cpu_ns += ev->u.sample.period;
			t->cpu_samples++;
		}
		/* off-CPU samples are written at drain time, after the thread may have exited */
		if (!t->has_exit && ev->time > t->end_ns)
			t->end_ns = ev->time;
		break;
	default:
		break;
	}
	return 0;
}

/* The threads whose whole life the recording saw, summed, and the worst covered. */
static void summarize(const struct acc *a, struct convert_thread_summary *sum)
{
	const struct convert_thread_time *t;
	size_t i;

	for (i = 0; i < a->nr; i++) {
		uint64_t life;
		double cov;

		t = &a->t[i];
		if (!t->has_fork || !t->has_exit || t->end_ns <= t->start_ns)
			continue;
		life = t->end_ns - t->start_ns;
		sum->threads++;
		sum->lifetime_ns += life;
		sum->cpu_ns += t->cpu_ns;
		sum->offcpu_ns += t->offcpu_ns;
		cov = (double)(t->cpu_ns + t->offcpu_ns) / (double)life;
		if (cov < sum->worst) {
			sum->worst = cov;
			sum->worst_tid = t->tid;
		}
	}
}

/* threads inherit their process's name; COMM records come only for exec */
static void inherit_comm(struct acc *a)
{
	size_t i;

	for (i = 0; i < a->nr; i++) {
		uint64_t *lead;

		if (a->t[i].comm[0] || a->t[i].pid == a->t[i].tid)
			continue;
		lead = pgo_u64map_find(&a->tid2idx, a->t[i].pid);
		if (lead)
			memcpy(a->t[i].comm, a->t[*lead - 1].comm, sizeof(a->t[i].comm));
	}
}

int convert_thread_times(const char *path, struct convert_thread_time **out, size_t *nr,
			 struct convert_thread_summary *sum)
{
	struct acc a = { NULL, 0, 0, PGO_U64MAP_INIT };
	struct collect_pdread *r;
	struct collect_pd_event ev;
	size_t i;
	int ret, err = -1;

	*out = NULL;
	*nr = 0;
	memset(sum, 0, sizeof(*sum));
	sum->worst = 1.0;
	if (collect_pdread_open(path, &r) < 0)
		return -1;
	for (i = 0; i < collect_pdread_nr_attrs(r); i++) {
		const struct collect_pd_attr *at = collect_pdread_attr(r, i);

		if (!strcmp(at->name, PD_OFFCPU_EVENT_NAME))
			sum->has_offcpu = 1;
		else if (collect_attr_is_ns_clock(&at->attr))
			sum->cpu_is_ns = 1;
	}
	while ((ret = collect_pdread_next(r, &ev)) > 0)
		if (on_event(&a, &ev) < 0)
			goto out;
	if (ret < 0)
		goto out;
	summarize(&a, sum);
	inherit_comm(&a);
	*out = a.t;
	*nr = a.nr;
	a.t = NULL;
	err = 0;
out:
	free(a.t);
	pgo_u64map_release(&a.tid2idx);
	collect_pdread_free(r);
	return err;
}

int convert_threads_report(const char *path, double min_coverage, FILE *fp)
{
	struct convert_thread_summary sum;
	struct convert_thread_time *t;
	size_t nr, i;

	if (convert_thread_times(path, &t, &nr, &sum) < 0)
		return -1;
	fprintf(fp, "# per-thread time of %s: on-CPU (sampled) + off-CPU vs lifetime (FORK or exec -> EXIT), ms\n",
		path);
	fprintf(fp, "%8s %8s %-16s %10s %10s %10s %9s\n", "pid", "tid", "comm", "lifetime", "on-cpu",
		"off-cpu", "covered");
	for (i = 0; i < nr; i++) {
		const struct convert_thread_time *x = &t[i];
		int checked = x->has_fork && x->has_exit && x->end_ns > x->start_ns;
		double life = (double)(x->end_ns - x->start_ns) / 1e6;
		double cov = checked ? (double)(x->cpu_ns + x->offcpu_ns) / 1e6 / life : 0;

		if (!x->cpu_samples && !x->offcpu_samples && !checked)
			continue;
		fprintf(fp, "%8u %8u %-16s %10.1f %10.1f %10.1f ", x->pid, x->tid, x->comm[0] ? x->comm : "?",
			life, (double)x->cpu_ns / 1e6, (double)x->offcpu_ns / 1e6);
		if (checked)
			fprintf(fp, "%8.1f%%%s\n", 100 * cov, cov < min_coverage ? " SHORT" : "");
		else
			fprintf(fp, "%9s\n", x->has_fork ? "no exit" : "no fork");
	}
	if (!sum.has_offcpu)
		fprintf(fp, "# no offcpu-time event: off-CPU time was not recorded, coverage is on-CPU only\n");
	if (!sum.cpu_is_ns)
		fprintf(fp, "# the on-CPU event does not count nanoseconds: coverage is not meaningful\n");
	if (sum.threads)
		fprintf(fp, "# %zu threads: %.1f ms on + %.1f ms off = %.1f%% of %.1f ms lifetime; shortfall %.1f ms; "
			"lowest %.1f%% (tid %u)\n", sum.threads, sum.cpu_ns / 1e6, sum.offcpu_ns / 1e6,
			100.0 * (double)(sum.cpu_ns + sum.offcpu_ns) / (double)sum.lifetime_ns,
			sum.lifetime_ns / 1e6,
			sum.cpu_ns + sum.offcpu_ns < sum.lifetime_ns
				? (double)(sum.lifetime_ns - sum.cpu_ns - sum.offcpu_ns) / 1e6 : 0.0,
			100 * sum.worst, sum.worst_tid);
	else
		fprintf(fp, "# no thread has both a FORK and an EXIT record: nothing to check\n");
	free(t);
	return 0;
}
