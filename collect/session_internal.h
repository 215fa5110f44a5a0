/* SPDX-License-Identifier: MIT */
/*
 * Internals of one collection (collect/collect.h is its contract), shared by
 *
 *   session.c         collect_run(): the call graph mode, the rings, the signals, the runs
 *                     and the summary metadata
 *   session_events.c  the online CPUs, the event chosen and one event and ring per CPU
 *   session_run.c     one run: the command looked up, fork, exec, the poll loop, signals
 *   session_drain.c   draining the rings merged by time, synthesized records, unwinding
 *                     while draining, the attach filter (which processes' records to keep)
 *   session_attach.c  attaching to running processes (-p, -a --binary, --cgroup): the
 *                     targets, the events, the recording until its duration or a signal
 *   session_proc.c    records of already-running processes synthesized from /proc (COMM,
 *                     FORK per thread, MMAP2 with build-ids), as perf record -p writes them
 *
 * and nothing outside them. Ownership: collect_run() allocates the session and frees it
 * with its cpus, rings and merge arrays (m_head holds m_tail and m_time); each run opens
 * the rings (session_open_events) and closes them (session_close_rings) before it returns.
 * The writer w belongs to the session until it is committed or aborted. Invariants:
 * ncpu entries in cpus, rings, m_head, m_tail and m_time; a ring's fd is -1 when closed;
 * attr_idx is -1 until the first run chose the event, and every later run reuses attr.
 */
#ifndef PGO_COLLECT_SESSION_INTERNAL_H
#define PGO_COLLECT_SESSION_INTERNAL_H

#include <linux/perf_event.h>
#include <signal.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "collect/collect.h"
#include "lib/hashmap.h"

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
	/* attaching (opts->attach): NULL for a started command */
	struct attach *at;
	int open_flags;          /* perf_event_open flags besides CLOEXEC (PERF_FLAG_PID_CGROUP) */
	int *xfds;               /* -p: the events of further threads, their output set to rings */
	size_t nr_xfds, alloc_xfds;
};

/*
 * The attach filter: with events on whole CPUs (-a --binary), the drain keeps the records
 * of followed processes only. follow maps a pid to ATTACH_*; pending holds the processes
 * that exec'd and are kept or dropped at their first executable mapping (the binary's).
 */
enum { ATTACH_FOLLOWED = 1, ATTACH_PENDING = 2 };
struct attach {
	int filter;              /* drop the records of processes not followed */
	const char *binary;      /* -a --binary: the file's real path */
	struct pgo_u64map follow;
	struct attach_pending {
		uint32_t pid;
		char comm[16];
	} *pending;
	size_t nr_pending, alloc_pending;
	pid_t *new_pids;         /* processes followed since the sources last heard of them */
	size_t nr_new, alloc_new;
	unsigned int followed;   /* processes followed in all */
};

static inline uint64_t now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static inline uint64_t event_time(const struct session *s)
{
	return s->attr.use_clockid ? now_ns(s->attr.clockid) : 0;
}

/* session_events.c */
int session_validate(const struct collect_opts *o);
int session_online_cpus(struct session *s);
int session_open_events(struct session *s, pid_t pid);
int session_open_thread(struct session *s, pid_t tid);
void session_close_rings(struct session *s);
int session_enable(struct session *s);

struct pollfd;

/* session_drain.c */
int session_write_kernel_mmap(struct session *s);
int session_write_run_fork(struct session *s, pid_t pid, uint64_t time);
int session_drain_all(struct session *s);
int session_report_unseen_lost(struct session *s, pid_t pid, uint64_t time);
int session_attach_follow(struct session *s, uint32_t pid);
void session_fill_trailer(const struct session *s, void *trailer, uint32_t pid, uint32_t tid,
			  uint64_t time);
int session_feed_unwinder(struct session *s, const struct perf_event_header *rec);
struct pollfd *session_pollfds(const struct session *s);

/* session_proc.c */
int session_synth_process(struct session *s, pid_t pid, uint64_t time);

/* session_attach.c */
int session_attach_run(struct session *s);

/* session_run.c */
int session_check_command(const char *cmd);
int session_run_once(struct session *s, unsigned int index);

#endif
