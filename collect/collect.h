/* SPDX-License-Identifier: MIT */
/*
 * The collector: run a benchmark N times under a sampling profiler and write one
 * perf.data file that perf report/script (6.1) read without warnings.
 *
 * How a run works (collect/session.c): fork; the child blocks on a pipe ("cork"); one
 * sampling event per CPU is opened on the child's pid (disabled, enable_on_exec, inherit,
 * so every thread and child process is followed from exec on); every source's start hook
 * runs; the child is uncorked and execs; the per-CPU rings are drained (with every source's
 * drain hook) until the child exits; then a final drain and every source's stop hook.
 *
 * Runs in one file. Each run is its own process tree whose root is a direct child of pgo.
 * Readers separate runs in either of two ways:
 *  - perf-visible: each run starts with a PERF_RECORD_FORK whose pid is the run's root and
 *    whose ppid is pgo's own pid (`perf script --show-task-events`), and ends with the
 *    kernel's PERF_RECORD_EXIT of that root. pgo's pid has no other record (no COMM), so
 *    each run's root is the root of its own process tree;
 *  - pgo metadata (feature bit PD_FEAT_PGO_META, see collect/pdformat.h): one line per run,
 *    "run index=<i> pid=<root> start=<ns> end=<ns> status=<exit code> samples=<n>", times on
 *    the samples' clock (CLOCK_MONOTONIC). A record belongs to run i iff start <= time <= end.
 *
 * Errors: collect_run() reports through lib/report.h and returns -1; then no output file
 * exists (the output is written through lib/atomicfile.h). Once the benchmark has run, its
 * failure is not an error: the file is written and res->exit_code carries its status.
 */
#ifndef PGO_COLLECT_COLLECT_H
#define PGO_COLLECT_COLLECT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct collect_writer;
struct collect_pd_sample;
struct collect_pd_mmap;
struct collect_pd_task;
struct collect_pd_comm;

enum collect_callgraph {
	COLLECT_CALLGRAPH_NONE,
	COLLECT_CALLGRAPH_FP,    /* kernel frame-pointer walk: PERF_SAMPLE_CALLCHAIN; with an
				    unwinder, repaired where frames lack a frame pointer */
	COLLECT_CALLGRAPH_DWARF, /* user regs + stack copy, unwound by convert (collect/callgraph.h) */
	COLLECT_CALLGRAPH_AUTO,  /* fp or dwarf-unwound, from the benchmark binary (symbolize/fpcensus.h) */
	COLLECT_CALLGRAPH_DWARF_UNWOUND, /* user regs + stack copy in the ring, unwound by the
					    collector; the file gets plain call chains */
};

/*
 * Counts of the collector's own unwinding (fp repair and dwarf-unwound modes). A stack
 * the unwinder could not follow to its end is cut there, never guessed on.
 */
struct collect_unwind_stats {
	uint64_t samples;          /* samples given to the unwinder */
	uint64_t complete;         /* user stack followed to its outermost frame or joined to
				      a frame-pointer chain that goes on from there */
	uint64_t truncated_stack;  /* cut: the next frame lies past the stack copy */
	uint64_t truncated_cfi;    /* cut: no module, no CFI, or CFI that did not apply
				      (stripped .eh_frame, JIT code, an unmapped address) */
	uint64_t too_deep;         /* cut at the frame limit */
	uint64_t no_regs;          /* no user registers: no user stack */
	uint64_t fp_kept;          /* fp: the kernel's chain was right as it was */
	uint64_t fp_repaired;      /* fp: frames the kernel's walk skipped were put back */
	uint64_t fp_frames_added;  /* ... that many frames in all */
	uint64_t fp_no_cfi;        /* fp: the leaf had no usable CFI: the kernel's chain kept */
	uint64_t ns;               /* collector CPU time spent unwinding */
};

/*
 * How the collector unwinds user stacks while draining the rings (the layer below the
 * unwinder: cmd/ fills this with symbolize/unwind.h's). The process events come in
 * time order, from every CPU's ring. `unwind` gets a sample with user registers and a
 * stack copy (and, in fp mode, the kernel's chain in s->callchain) and writes the user
 * pcs, leaf first (pcs[0] is the user IP), returning how many (0: none) or -1 on an
 * allocation failure (after reporting). The other hooks return 0 or -1 likewise.
 */
struct collect_unwinder_ops {
	int (*mmap)(void *priv, const struct collect_pd_mmap *m);
	int (*fork)(void *priv, const struct collect_pd_task *t);
	int (*comm)(void *priv, const struct collect_pd_comm *c);
	int (*exit)(void *priv, const struct collect_pd_task *t);
	int (*unwind)(void *priv, const struct collect_pd_sample *s, uint64_t *pcs, size_t max);
	void (*stats)(void *priv, struct collect_unwind_stats *st);
};

struct collect_unwinder {
	const struct collect_unwinder_ops *ops;
	void *priv;
};

/*
 * An extra event source (the off-CPU BPF sampler) plugged into the session. Every hook is
 * optional (NULL); each returns 0 or reports and returns -1, which aborts the collection
 * (no file is written). `priv` belongs to the source; the session never frees it.
 *
 * Records a source writes must parse like the on-CPU ones (perf checks this when it opens
 * the file): its attrs need PERF_SAMPLE_IDENTIFIER and sample_id_all=1, ids from
 * collect_writer_new_id(), and times on CLOCK_MONOTONIC (use_clockid=1), the on-CPU clock.
 * The on-CPU attr is always index 0 (init runs after it was added).
 */
struct collect_source_ops {
	const char *name;
	/* Once, before the first run: add attrs (collect_writer_add_attr) with their names. */
	int (*init)(void *priv, struct collect_writer *w);
	/* Each run, after fork and before uncork: the benchmark's pid is known, exec not done. */
	int (*start)(void *priv, struct collect_writer *w, pid_t pid);
	/* Each run, after every drain pass of the on-CPU rings (about every 100 ms). */
	int (*drain)(void *priv, struct collect_writer *w);
	/* Each run, after the benchmark exited and the on-CPU rings were drained a last time. */
	int (*stop)(void *priv, struct collect_writer *w, pid_t pid);
	/* Once, at the end, success or not. */
	void (*release)(void *priv);
	/*
	 * Attach -a: a BPF_PROG_TYPE_PERF_EVENT program that keeps the samples of the
	 * processes this source follows (start hook), for the events of whole CPUs; -1: none.
	 */
	int (*sample_filter)(void *priv);
};

struct collect_source {
	const struct collect_source_ops *ops;
	void *priv;
};

/*
 * Attaching to running processes instead of starting a command (collect/session_attach.c):
 * exactly one of pids, binary and cgroup is set, and argv is NULL. The recording ends after
 * duration_ns, at SIGINT/SIGTERM, or (pids) when every process named exited. The processes
 * already running are described from /proc (COMM, FORK per thread, MMAP2 with build-ids) at
 * the start, as perf record -p does; the file has one run ("run index=1 pid=<first pid>")
 * and an "attach" metadata line. Detaching leaves the processes running.
 */
struct collect_attach {
	const pid_t *pids;        /* -p: these processes, every thread, and what they start */
	size_t nr_pids;
	const char *binary;       /* -a --binary: every process running this file (a full path) */
	const char *cgroup;       /* --cgroup: every task of this cgroup v2 directory */
	uint64_t duration_ns;     /* 0: until a signal (or, for pids, until they all exited) */
	const char *exe;          /* the main executable, when known (off-CPU unwind tables) */
};

struct collect_opts {
	char *const *argv;        /* the benchmark: argv[0] is looked up in PATH; required
				     unless attach is set */
	const char *file;         /* NULL, or the program to execute with argv instead of
				     argv[0] (the program sees argv exactly; pgo gate runs the
				     base's build under the head's argv) */
	const struct collect_attach *attach; /* NULL: run argv */
	const char *output;       /* perf.data path; NULL means "pgo.data" */
	const char *event;        /* NULL or "auto" (cycles, else task-clock), "cycles",
	                             "task-clock", "cpu-clock" */
	unsigned int freq;        /* samples per second; 0 means 999 */
	enum collect_callgraph callgraph; /* auto is taken as dwarf-unwound: resolve it first */
	const char *callgraph_why; /* why that mode, copied to the result; may be NULL */
	uint32_t stack_size;      /* dwarf: user stack bytes per sample; 0 means the default */
	/*
	 * Unwinds at collection time; NULL: fp records the kernel's chain as it is, and
	 * dwarf-unwound falls back to dwarf (copies in the file).
	 */
	const struct collect_unwinder *unwinder;
	unsigned int runs;        /* 0 means 1 */
	int argc_self;            /* pgo's own command line, for the CMDLINE feature */
	char *const *argv_self;
	struct collect_source *const *sources; /* extra sources, may be NULL */
	size_t nr_sources;
	int compress_level;       /* zstd level of perf record -z's format; 0 = uncompressed */
};

struct collect_result {
	int exit_code;            /* benchmark status as a shell gives it: code, or 128+signal */
	int signaled;             /* the last run was killed by a signal (exit_code - 128) */
	int interrupted;          /* pgo got SIGINT/SIGTERM and forwarded it; later runs skipped
				     (attach: the recording ended there) */
	unsigned int attached;    /* attach: processes followed (at the start and picked up) */
	unsigned int attached_exited; /* attach: of those, how many exited while recording */
	unsigned int runs;        /* runs completed (written) */
	uint64_t samples;         /* PERF_RECORD_SAMPLE records written, all runs */
	uint64_t lost;            /* sum of PERF_RECORD_LOST.lost (records dropped by a full ring) */
	uint64_t lost_samples;    /* sum of PERF_RECORD_LOST_SAMPLES.lost */
	uint64_t throttled;       /* PERF_RECORD_THROTTLE records */
	uint64_t duration_ns;     /* wall time of all runs (fork to exit) */
	uint64_t cpu_ns;          /* user+sys CPU time of the benchmarks (wait4 rusage) */
	char event[32];           /* event actually used: "cycles", "task-clock" or "cpu-clock" */
	unsigned int freq;        /* rate asked for (Hz) */
	int has_pmu;              /* a hardware cycles event could be opened */
	enum collect_callgraph callgraph; /* mode used (auto resolved to fp or dwarf-unwound) */
	uint32_t stack_size;      /* dwarf, dwarf-unwound, repaired fp: bytes of user stack
				     copied per sample (0: none) */
	int unwound;              /* the collector unwound the stacks (unwind holds its counts) */
	struct collect_unwind_stats unwind;
	char callgraph_why[160];  /* auto: why that mode ("./bench omits frame pointers ...") */
	uint64_t raw_bytes;       /* bytes of records recorded (before any compression) */
};

/* The program a run executes: opts->file, else argv[0] (looked up in PATH). */
static inline const char *collect_exec_file(const struct collect_opts *opts)
{
	return opts->file ? opts->file : opts->argv[0];
}

/* Run the whole collection. Returns 0 (see res) or -1 after reporting an error. */
int collect_run(const struct collect_opts *opts, struct collect_result *res);

#endif
