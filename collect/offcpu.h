/* SPDX-License-Identifier: MIT */
/*
 * Off-CPU recording: the types shared by the BPF program (offcpu.bpf.c) and its loader
 * (offcpu.c), fixed-width and pointer-free, then (user space only) the loader's API and
 * the encoding of off-CPU samples in perf.data (offcpusample.c).
 */
#ifndef PGO_COLLECT_OFFCPU_H
#define PGO_COLLECT_OFFCPU_H

#ifndef __bpf__
#include <linux/types.h>
#endif

/* Thread states an off-CPU interval is filed under (the state at switch-out). */
enum offcpu_state {
	OFFCPU_RUNNABLE = 0, /* preempted: ready to run, waiting for a CPU */
	OFFCPU_SLEEP = 1,    /* TASK_INTERRUPTIBLE: sleeps, waits for locks, pipes, sockets */
	OFFCPU_IO = 2,       /* TASK_UNINTERRUPTIBLE: usually disk I/O or page faults */
	OFFCPU_NR_STATES = 3,
};

/* Frames kept per stack (the kernel's sysctl_perf_event_max_stack is 127). */
#define OFFCPU_MAX_FRAMES 127

/* A stack id with this bit is in the overflow stack map (offcpu.bpf.c get_stackid()). */
#define OFFCPU_STACK2 (1 << 30)

/*
 * DWARF unwinding at switch-out (offcpu.bpf.c unwind_user()): each binary's .eh_frame (or
 * .debug_frame) is turned into sorted rows by collect/unwtab.c. A row holds from its pc
 * (a file offset) up to the next row's. x86-64 only: the CFA is rsp or rbp plus cfa_off,
 * the return address is at CFA - 8, rbp is unchanged or saved at CFA + 8 * rbp_off.
 */
enum offcpu_cfa_kind {
	OFFCPU_CFA_NONE = 0,     /* no FDE covers this pc */
	OFFCPU_CFA_RSP = 1,      /* CFA = rsp + cfa_off */
	OFFCPU_CFA_RBP = 2,      /* CFA = rbp + cfa_off */
	OFFCPU_CFA_PLT = 3,      /* .plt stub: CFA = rsp + 8 + ((pc & 15) >= rbp_off ? 8 : 0) */
	OFFCPU_CFA_SIGNAL = 4,   /* __restore_rt: the kernel's rt_sigframe ucontext at rsp */
	OFFCPU_CFA_END = 5,      /* return address undefined: the outermost frame */
	OFFCPU_CFA_UNSUPPORTED = 6, /* a rule the unwinder does not follow (expressions, drap) */
};
enum offcpu_rbp_kind {
	OFFCPU_RBP_SAME = 0,     /* unchanged (also: not mentioned by the CFI) */
	OFFCPU_RBP_SAVED = 1,    /* at CFA + 8 * rbp_off */
	OFFCPU_RBP_LOST = 2,     /* cannot be recovered: a later rbp-based CFA is unsupported */
};
#define OFFCPU_ROW_KIND(cfa, rbp) ((cfa) | ((rbp) << 4))
#define OFFCPU_ROW_CFA(kind) ((kind) & 15)
#define OFFCPU_ROW_RBP(kind) ((kind) >> 4)

struct offcpu_unwind_row {
	__u32 pc;                /* file offset where the row starts */
	__u16 cfa_off;
	__u8 kind;               /* OFFCPU_ROW_KIND(cfa kind, rbp kind) */
	__s8 rbp_off;
};

/* The signal frame's registers, from rsp in __restore_rt (struct rt_sigframe, x86-64 ABI). */
#define OFFCPU_SIGFRAME_RBP 120
#define OFFCPU_SIGFRAME_RSP 160
#define OFFCPU_SIGFRAME_RIP 168

/* Why a user stack ended (enum order is the order of the counters). */
enum offcpu_unwind_end {
	OFFCPU_UNW_COMPLETE = 0, /* reached the outermost frame (undefined return address, or 0) */
	OFFCPU_UNW_NO_MAPPING,   /* pc in no file mapping the collector knows (yet) */
	OFFCPU_UNW_ANON,         /* pc in anonymous executable memory (JIT) */
	OFFCPU_UNW_NO_TABLE,     /* the file has no usable .eh_frame/.debug_frame */
	OFFCPU_UNW_NO_FDE,       /* no FDE covers the pc */
	OFFCPU_UNW_UNSUPPORTED,  /* CFI rule not followed (expression, drap, huge frame) */
	OFFCPU_UNW_RBP_LOST,     /* CFA based on an rbp that could not be recovered */
	OFFCPU_UNW_READ_FAULT,   /* the stack could not be read */
	OFFCPU_UNW_DEPTH,        /* more than OFFCPU_MAX_FRAMES frames */
	OFFCPU_UNW_BAD_FRAME,    /* the stack did not grow towards the caller */
	OFFCPU_UNW_NR,
};

/* File offsets are looked up through pages of 1 << OFFCPU_PAGE_SHIFT bytes. */
#define OFFCPU_PAGE_SHIFT 10

/* One binary's table in the rows and pages arrays. */
struct offcpu_file {
	__u32 row_first;         /* index in the rows array */
	__u32 nr_rows;
	__u32 page_first;        /* index in the pages array of the page holding rows[row_first].pc */
	__u32 nr_pages;
	__u32 page_base;         /* rows[row_first].pc >> OFFCPU_PAGE_SHIFT */
	__u32 flags;
};

/* One executable mapping of a process. */
struct offcpu_mapping {
	__u64 start, end;        /* [start, end) in the process */
	__u64 offset;            /* file offset of start */
	__u32 file;              /* index in the files array; 0: none (see end) */
	__u32 end_reason;        /* without a file: OFFCPU_UNW_ANON or OFFCPU_UNW_NO_TABLE */
};

#define OFFCPU_MAX_MAPPINGS 96
struct offcpu_proc {
	__u32 nr;
	__u32 pad;
	struct offcpu_mapping m[OFFCPU_MAX_MAPPINGS]; /* sorted by start */
};

/* A DWARF-unwound user stack, in the ustacks map under a hash of its frames. */
struct offcpu_ustack {
	__u32 nr;
	__u32 end;               /* enum offcpu_unwind_end */
	__u64 ips[OFFCPU_MAX_FRAMES];
};

/* A request from the program to (re)read a process's mappings. */
struct offcpu_maps_req {
	__u32 tgid;
	__u32 why;
};

/* Aggregation key: one entry per distinct (thread, stacks, state, recovered caller). */
struct offcpu_key {
	__u32 tgid;
	__u32 tid;
	__s32 ustack_id;  /* -1: not taken (off, or a kernel thread); < -1: -errno of the failed walk */
	__s32 kstack_id;
	__u64 caller_ip;  /* return address into the caller of a frame-pointer-less libc call, or 0 */
	__u64 ustack_hash; /* DWARF-unwound user stack: its key in the ustacks map; 0: none */
	__u32 state;      /* enum offcpu_state */
	__u32 pad;
};

struct offcpu_val {
	__u64 total_ns;   /* summed off-CPU time, already scaled by the switch-out sampling factor */
	__u64 count;      /* intervals actually measured (unscaled) */
	__u64 last_ns;    /* bpf_ktime_get_ns() of the latest switch-in (CLOCK_MONOTONIC) */
};

/*
 * Overhead and loss counters, kept in .bss with one slot per CPU: sched_switch runs with
 * interrupts off, so plain increments need no atomics. The loader sums the slots.
 */
struct offcpu_counters {
	__u64 switches;        /* switch-outs of followed threads seen */
	__u64 sampled_out;     /* switch-outs skipped by sampling */
	__u64 short_blocks;    /* intervals below min_block_ns, not aggregated */
	__u64 recorded;        /* intervals aggregated */
	__u64 ustack_dropped;  /* user stack walk failed (-EEXIST collision, -ENOMEM map full, -EFAULT) */
	__u64 kstack_dropped;
	__u64 map_full;        /* aggregation map had no room: the interval is lost */
	__u64 storage_failed;  /* no task storage for a switched-out thread */
	__u64 tgid_full;       /* a forked process could not be added to the followed set */
	__u64 callers_found;   /* intervals whose libc caller was recovered from the stack */
	__u64 switchins_unseen; /* intervals closed without the kernel reporting their switch-in */
	__u64 unwind_end[OFFCPU_UNW_NR]; /* DWARF-unwound user stacks by how they ended */
	__u64 ustacks_full;    /* the ustacks map had no room: the stack is lost */
	__u64 maps_requests;   /* requests to read a process's mappings */
	__u64 unwind_retried;  /* stacks unwound again when their system call returned */
};

#define OFFCPU_MAX_CPUS 512

#ifndef __bpf__
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct perf_event_attr;
struct pgo_buf;

/* Frame names for the states, as the wall-clock view shows them: "runnable", "sleep", "io". */
const char *collect_offcpu_state_name(unsigned int state);

/*
 * One aggregated off-CPU entry, ready to become a perf.data SAMPLE. callchain holds
 * PERF_CONTEXT_KERNEL + kernel ips (leaf first), then PERF_CONTEXT_USER + user ips (leaf
 * first, the recovered libc caller already inserted); nr_callchain counts all of them.
 * Borrowed: valid only during the emit callback.
 */
struct collect_offcpu_sample {
	uint32_t tgid, tid;
	uint32_t state;          /* enum offcpu_state */
	uint64_t total_ns;       /* becomes PERIOD */
	uint64_t count;          /* intervals summed */
	uint64_t last_ns;        /* CLOCK_MONOTONIC time the latest of them ended */
	uint64_t ip;             /* first user frame (first kernel frame if no user stack), or 0 */
	const uint64_t *callchain;
	uint32_t nr_callchain;
};

/*
 * perf.data encoding of off-CPU samples (available with NO_BPF too, for tests and readers).
 *
 * The event: PERF_TYPE_SOFTWARE / PERF_COUNT_SW_BPF_OUTPUT, named "offcpu-time" through
 * EVENT_DESC, sample_type = COLLECT_OFFCPU_SAMPLE_TYPE, sample_id_all = 1, PERIOD = ns.
 * The thread state and interval count are in the PERF_SAMPLE_RAW payload,
 * struct collect_offcpu_raw (20 bytes, native endian, read it with memcpy):
 * `perf script -F +bpf-output` dumps it, collect_offcpu_raw_decode() parses it.
 */
#define COLLECT_OFFCPU_SAMPLE_TYPE                                                                 \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |            \
	 PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW)
#define COLLECT_OFFCPU_RAW_MAGIC "OFFC"
#define COLLECT_OFFCPU_RAW_VERSION 1

struct collect_offcpu_raw {
	char magic[4];           /* "OFFC" */
	uint8_t version;         /* 1 */
	uint8_t state;           /* enum offcpu_state */
	uint16_t reserved;
	uint64_t count;          /* off-CPU intervals in this sample */
	uint32_t reserved2;
} __attribute__((packed));

/* Fill attr (zeroed first) for the offcpu-time event. */
void collect_offcpu_attr(struct perf_event_attr *attr);
/* Append one PERF_RECORD_SAMPLE for attr id `id` at `time` (CLOCK_MONOTONIC ns); -1 on ENOMEM. */
int collect_offcpu_encode(const struct collect_offcpu_sample *s, uint64_t id, uint64_t time,
			  struct pgo_buf *out);
/* Parse a RAW payload; 0 and *state, *count set, or -1 if it is not ours (no message). */
int collect_offcpu_raw_decode(const void *raw, size_t size, unsigned int *state, uint64_t *count);
/*
 * The leaf frame docs/profile-json.md gives an off-CPU stack: "[runnable]", "[sleep]" or
 * "[io]"; "[offcpu]" for any other value (use OFFCPU_NR_STATES when the sample has no RAW
 * payload of ours, as in perf record --off-cpu files). On-CPU stacks get
 * COLLECT_ONCPU_STATE_FRAME in the wall view. Static strings.
 */
const char *collect_offcpu_state_frame(unsigned int state);
#define COLLECT_ONCPU_STATE_FRAME "[running]"

/* Loader settings; COLLECT_OFFCPU_OPTS_INIT gives the defaults. */
struct collect_offcpu_opts {
	int user_stacks;         /* walk the user stack at switch-out (frame pointers) */
	int kernel_stacks;       /* walk the kernel stack too: the dominant cost, about 2.5 us */
	int find_callers;        /* recover the caller of frame-pointer-less libc calls (fp) */
	int dwarf;               /* unwind user stacks from .eh_frame tables, not frame pointers */
	const char *const *preload; /* files whose tables to load before the run (NULL-ended), or NULL */
	int force_raw_tp;        /* use the raw_tp fallback even where tp_btf works (tests) */
	int hide_sleep_ends;     /* ignore switch-ins that end a sleep, as the kernel sometimes
				    does not report one (tests) */
	uint64_t min_block_ns;   /* shorter intervals are counted, not aggregated */
	uint32_t sample_every;   /* follow 1 switch-out in N (totals scaled by N); 0 or 1 = all */
	uint32_t max_stacks;     /* stack map entries (0 = 16384) */
	uint32_t max_entries;    /* aggregation entries (0 = 65536) */
};
#define COLLECT_OFFCPU_OPTS_INIT { .user_stacks = 1, .kernel_stacks = 1, .find_callers = 1, .dwarf = 1, .sample_every = 1 }

/*
 * What a command asks of off-CPU recording: pgo collect and pgo gate record/check take the
 * same options and set the recorder up the same way (offcpuopts.c), so they cannot drift.
 */
struct collect_offcpu;
struct collect_source;
struct collect_opts;
struct collect_result;

struct collect_offcpu_request {
	int mode;                /* < 0: where BPF works (a one-line note where not, on-CPU
				    only); 0: off; > 0: required (an error where it cannot work) */
	struct collect_offcpu_opts opts;
};
#define COLLECT_OFFCPU_REQUEST_INIT { -1, COLLECT_OFFCPU_OPTS_INIT }

/* The long options collect_offcpu_option() takes (names without "--"), NULL-terminated. */
struct collect_offcpu_optname {
	const char *name;
	int has_value;
};
extern const struct collect_offcpu_optname collect_offcpu_optnames[];

/* Their --help lines, for a usage text. */
#define COLLECT_OFFCPU_OPTIONS_HELP                                                                 \
	"      --off-cpu          also record where threads wait (eBPF, needs root and BTF): a\n"    \
	"                         second event offcpu-time, period = ns off-CPU, thread state in\n"  \
	"                         its raw data; on by default where BPF works (a note otherwise);\n" \
	"                         asked for explicitly and unavailable: exit 2\n"                    \
	"      --no-off-cpu       on-CPU samples only\n"                                            \
	"      --off-cpu-stacks S all (default), user, kernel or none: stacks taken at each\n"       \
	"                         switch-out; the kernel stack is the costly part\n"                 \
	"      --off-cpu-unwind M dwarf (default): unwind user stacks in the kernel from the\n"     \
	"                         binaries' .eh_frame, complete without frame pointers; fp: the\n"  \
	"                         frame-pointer walk (callers of libc calls found by a scan)\n"     \
	"      --no-off-cpu-callers  fp: do not look for the caller of a libc call on the user\n"    \
	"                         stack (libc has no frame pointers; the scan costs ~1 us)\n"        \
	"      --off-cpu-min TIME ignore off-CPU intervals shorter than TIME (e.g. 10us, 1ms)\n"     \
	"      --off-cpu-sample N follow one switch-out in N at random, scale the times by N\n"

/*
 * Apply option `name` (from collect_offcpu_optnames, without "--") with value val (NULL
 * for the options without one). Returns 1 if applied, 0 if name is not an off-CPU
 * option, -1 after reporting a bad value.
 */
int collect_offcpu_option(struct collect_offcpu_request *req, const char *name, const char *val);

/* Totals of struct offcpu_counters over all CPUs, plus what the loader saw. */
struct collect_offcpu_stats {
	struct offcpu_counters k;
	uint64_t samples;        /* samples emitted by drains */
	uint64_t total_ns;       /* off-CPU time in them */
	uint64_t emit_errors;    /* entries the loader could not read back */
	int raw_tp;              /* the raw_tp fallback is in use */
	int dwarf;               /* user stacks were unwound from .eh_frame tables */
	uint64_t tables, tables_failed, tables_full, table_rows; /* unwind tables loaded, files
				    without a usable one, tables that did not fit the maps, rows */
	uint64_t maps_reads;     /* /proc/PID/maps reads */
	/*
	 * Time spent in the sched_switch program and its invocations (all switches on the
	 * machine, followed or not), from the kernel's BPF run-time statistics, which the
	 * recorder turns on while it runs (0 where the kernel refuses).
	 */
	uint64_t prog_run_ns, prog_run_cnt;
};

/*
 * collect_run(o, r) with off-CPU recording as req asks: set up (when it is off, or
 * unavailable and not required, a note is printed and the run is on-CPU only), run,
 * read the off-CPU statistics into *st, tear down. *recorded says whether off-CPU time
 * was recorded. o->sources must be empty. Returns collect_run()'s result, or -1 after
 * reporting a failed setup (required but unavailable, out of memory).
 */
int collect_offcpu_run(struct collect_opts *o, const struct collect_offcpu_request *req,
		       struct collect_result *r, struct collect_offcpu_stats *st, int *recorded);

struct collect_offcpu;
struct collect_source;
typedef int (*collect_offcpu_emit_fn)(const struct collect_offcpu_sample *s, void *data);

#ifndef PGO_NO_BPF
/*
 * Can off-CPU recording work here? 0 if so; otherwise -1 with a one-line reason in why
 * ("needs root (CAP_BPF and CAP_PERFMON)", "kernel has no BTF ..."). Prints nothing.
 */
int collect_offcpu_probe(char *why, size_t len);
/* Load and attach the BPF program. New object in *out, freed with collect_offcpu_free(). */
int collect_offcpu_open(struct collect_offcpu **out, const struct collect_offcpu_opts *opts);
/* Follow process tgid and every process it forks from now on. Call before the exec is uncorked. */
int collect_offcpu_follow(struct collect_offcpu *o, pid_t tgid);
/*
 * Hand every aggregated entry to emit (in no particular order) and remove it from the
 * kernel, so periodic drains bound the map. The program is switched to the other of two
 * aggregation maps first, and the switch waits until no program still writes the old
 * one (an RCU grace period, ~10 ms): no interval is lost to a race with the copy. An
 * interval still in progress lands in a later drain. Returns 0, -1 after reporting a
 * failed switch, or the first negative value emit returned.
 */
int collect_offcpu_drain(struct collect_offcpu *o, collect_offcpu_emit_fn emit, void *data);
void collect_offcpu_get_stats(const struct collect_offcpu *o, struct collect_offcpu_stats *st);
void collect_offcpu_free(struct collect_offcpu *o);
/*
 * A collect_run() source (collect/collect.h) that follows each run's benchmark and writes
 * the drained entries as "offcpu-time" samples: at every drain pass, and at the end of each
 * run. Sample times are the end of the entry's latest interval, raised to the previous
 * drain's time so perf's reordering never sees them late. Borrows o, which must outlive
 * it. New: free with collect_offcpu_source_free(). NULL after reporting on ENOMEM.
 */
struct collect_source *collect_offcpu_source_new(struct collect_offcpu *o);
void collect_offcpu_source_free(struct collect_source *src);
#else
#include <stdio.h>
static inline int collect_offcpu_probe(char *why, size_t len)
{
	snprintf(why, len, "pgo was built without BPF (NO_BPF=1)");
	return -1;
}
static inline int collect_offcpu_open(struct collect_offcpu **out, const struct collect_offcpu_opts *opts)
{
	*out = NULL;
	return -1;
}
static inline int collect_offcpu_follow(struct collect_offcpu *o, pid_t tgid) { return -1; }
static inline int collect_offcpu_drain(struct collect_offcpu *o, collect_offcpu_emit_fn emit, void *data)
{
	return 0;
}
static inline void collect_offcpu_get_stats(const struct collect_offcpu *o, struct collect_offcpu_stats *st)
{
	*st = (struct collect_offcpu_stats){ 0 };
}
static inline void collect_offcpu_free(struct collect_offcpu *o) {}
static inline struct collect_source *collect_offcpu_source_new(struct collect_offcpu *o) { return NULL; }
static inline void collect_offcpu_source_free(struct collect_source *src) {}
#endif
#endif /* !__bpf__ */

#endif
