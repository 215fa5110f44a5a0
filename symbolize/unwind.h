/* SPDX-License-Identifier: MIT */
/*
 * The DWARF unwinder: turns a sample's user registers and copied user stack
 * (PERF_SAMPLE_REGS_USER + PERF_SAMPLE_STACK_USER, `pgo collect --call-graph dwarf` or
 * `perf record --call-graph dwarf`) into the user call chain, with libdwfl
 * (dwfl_attach_state + dwfl_getthread_frames) and the CFI of each mapped file
 * (.eh_frame, and .debug_frame when present, also from separate debug files).
 *
 * Address spaces: the caller replays the process events (executable MMAP/MMAP2, FORK
 * of a process, COMM exec) in time order. Each process has one Dwfl, built on its first
 * sample and kept across samples: a new mapping is added to it, a mapping that replaces
 * another (or an exec) rebuilds it. A forked child shares its parent's Dwfl until one of
 * them maps or unmaps a file (then that one gets its own), so a shell's subshells read
 * the shell's files once. Threads use their process's (samples carry the pid). The Dwfl
 * is dropped when the last process using it exits.
 * Memory reads are served from the stack copy and, for other addresses, from the
 * mapped files; nothing is read from the live system.
 *
 * x86-64 only (perf's register layout); samples of another ABI count as no_regs.
 *
 * Ownership: symbolize_unwind_new() returns a new unwinder, freed with
 * symbolize_unwind_free(). Errors: functions return -1 only on allocation failure
 * (after reporting); a stack that cannot be unwound is counted, never an error.
 */
#ifndef PGO_SYMBOLIZE_UNWIND_H
#define PGO_SYMBOLIZE_UNWIND_H

#include <stddef.h>
#include <stdint.h>

#include "collect/pdread.h"

struct symbolize_unwind;

/* Deepest user chain returned (perf's kernel.perf_event_max_stack default). */
#define SYMBOLIZE_UNWIND_MAX_FRAMES 127

/*
 * Bounds against hostile files (the same binary mapped at 30000 addresses cost 670 MB of
 * libdwfl modules): a process's Dwfl gets at most SYMBOLIZE_UNWIND_MAX_MAPS file mappings
 * (further ones are counted in maps_dropped; their frames end the stacks), and the Dwfls
 * of all processes together hold at most SYMBOLIZE_UNWIND_MAX_LIVE_MODULES modules (beyond,
 * the other processes' Dwfls are dropped and rebuilt when they are sampled again).
 */
#define SYMBOLIZE_UNWIND_MAX_MAPS 1024
#define SYMBOLIZE_UNWIND_MAX_LIVE_MODULES 8192
/* Mapping entries of all processes together (children that map a file copy theirs). */
#define SYMBOLIZE_UNWIND_MAX_LIVE_MAPS ((size_t)1 << 20)

struct symbolize_unwind_stats {
	uint64_t samples;          /* samples with user registers and a stack copy */
	uint64_t complete;         /* unwound up to the outermost frame (_start, clone) */
	uint64_t truncated_stack;  /* stopped: the next frame lies past the stack copy */
	uint64_t truncated_cfi;    /* stopped: no module, no CFI, or CFI that did not apply */
	uint64_t too_deep;         /* stopped at SYMBOLIZE_UNWIND_MAX_FRAMES */
	uint64_t no_regs;          /* no user registers (kernel thread) or another ABI */
	uint64_t frames;           /* user frames returned */
	uint64_t processes;        /* address spaces (pids) with samples unwound */
	uint64_t dwfl_builds;      /* Dwfl sessions built: one per set of mappings (a parent and
				      the children it forked share one until theirs differ) */
	uint64_t modules;          /* files reported to them (each ELF read, its CFI parsed once) */
	uint64_t max_live_modules; /* the most modules that all spaces' Dwfls held at once */
	uint64_t debug_files;      /* separate debug files given to libdw (for .debug_frame;
				      each decompressed once per Dwfl; those without are not) */
	uint64_t maps_dropped;     /* beyond SYMBOLIZE_UNWIND_MAX_MAPS (one process) or _LIVE_MAPS */
	uint64_t stack_copy;       /* largest stack copy seen (bytes) */
	uint64_t ns;               /* CPU time spent unwinding (thread CPU clock) */
};

int symbolize_unwind_new(struct symbolize_unwind **out);
void symbolize_unwind_free(struct symbolize_unwind *u);

/* An executable file mapping of process pid (MMAP/MMAP2). Anonymous and special ("[vdso]",
 * "//anon") mappings are ignored: they have no file to read CFI from. */
int symbolize_unwind_mmap(struct symbolize_unwind *u, uint32_t pid, uint64_t start, uint64_t len,
			uint64_t pgoff, const char *path);
/* A new process (FORK with pid != ppid): it starts with its parent's mappings. */
int symbolize_unwind_fork(struct symbolize_unwind *u, uint32_t pid, uint32_t ppid);
/* The process image was replaced (COMM exec): its mappings and Dwfl are dropped. */
void symbolize_unwind_exec(struct symbolize_unwind *u, uint32_t pid);
/*
 * The process exited (EXIT of its main thread): its Dwfl is dropped (if no other process
 * shares it), its mappings kept (a later sample of the pid, from a buffer flushed late, is
 * unwound again from them).
 */
void symbolize_unwind_exit(struct symbolize_unwind *u, uint32_t pid);

/* One frame of an unwound user chain. */
struct symbolize_unwind_frame {
	uint64_t pc;
	int activation;            /* pc is where the thread was (the sampled IP, or a signal
				      frame), not a return address: symbolize pc, not pc - 1 */
};

/*
 * Unwind the user stack of sample s (needs REGS_USER with SP and IP, and STACK_USER).
 * Fills frames leaf first (frames[0] is the user IP at the sample) and returns how many
 * (0 when the sample cannot be unwound at all: no registers), or -1 on allocation
 * failure. `max` must be at least 1.
 */
int symbolize_unwind_sample(struct symbolize_unwind *u, const struct collect_pd_sample *s,
			  struct symbolize_unwind_frame *frames, size_t max);

const struct symbolize_unwind_stats *symbolize_unwind_stats(const struct symbolize_unwind *u);

/*
 * Strict: a frame is taken only if the frame inside it had CFI. Where it has none (a
 * stripped .eh_frame, JIT code, an anonymous mapping), libdwfl falls back to following
 * %rbp, right in code with frame pointers, anything in code without; strict ends the
 * stack there instead (counted as truncated_cfi). The collector is strict (it also has
 * the vDSO's CFI); convert is not, for files whose vDSO frames only the fallback passes.
 */
void symbolize_unwind_set_strict(struct symbolize_unwind *u, int strict);

/* How the last symbolize_unwind_sample() ended. */
enum symbolize_unwind_end {
	SYMBOLIZE_UNWIND_COMPLETE,     /* at the outermost frame */
	SYMBOLIZE_UNWIND_PAST_STACK,   /* the next frame lies past the stack copy */
	SYMBOLIZE_UNWIND_CFI,          /* no module, no CFI, or CFI that did not apply */
	SYMBOLIZE_UNWIND_TOO_DEEP,     /* at the frame limit */
	SYMBOLIZE_UNWIND_NO_REGS,      /* no user registers */
};
enum symbolize_unwind_end symbolize_unwind_last_end(const struct symbolize_unwind *u);

/*
 * A frame-pointer chain repaired with the CFI (pgo collect's fp mode). The kernel walks
 * %rbp from the sampled registers: a function that keeps no frame pointer (a libc leaf
 * such as clock_gettime or memcpy, or one caught in its prologue or epilogue) leaves
 * %rbp at its caller's frame, so the walk skips that caller. chain[0..nr) is the
 * kernel's user chain (chain[0] the IP); s has the user registers and a copy of the top
 * of the stack. The sample is unwound with the CFI as far as the copy allows, and the
 * kernel's chain is joined where a CFI frame's return address sits in the stack slot
 * the kernel read ([%rbp + 8] of the frame-pointer walk, redone in the copy): the frames
 * below the join come from the CFI, those above from the kernel. Writes the chain to
 * pcs (leaf first) and returns its length (-1 on allocation failure).
 *   - complete CFI unwind: its frames (the truth, whatever the kernel read);
 *   - a join: CFI frames up to the join, the kernel's from there;
 *   - no join but CFI frames beyond the IP: those alone (the kernel's walk disagrees
 *     with the CFI, so its frames cannot be trusted: the stack is cut, not guessed);
 *   - no CFI at the IP (JIT code, a stripped file): the kernel's chain as it is.
 * *how says which (enum symbolize_unwind_fp_how).
 */
enum symbolize_unwind_fp_how {
	SYMBOLIZE_UNWIND_FP_KEPT,      /* the result is the kernel's chain */
	SYMBOLIZE_UNWIND_FP_REPAIRED,  /* complete or joined, and different from the kernel's */
	SYMBOLIZE_UNWIND_FP_CUT,       /* CFI frames only, cut (symbolize_unwind_last_end() says why) */
	SYMBOLIZE_UNWIND_FP_NO_CFI,    /* no CFI at the IP: the kernel's chain kept */
};
int symbolize_unwind_fp_sample(struct symbolize_unwind *u, const struct collect_pd_sample *s,
			       const uint64_t *chain, size_t nr, uint64_t *pcs, size_t max,
			       enum symbolize_unwind_fp_how *how);

/*
 * Stack bytes the unwinds needed (from the sampled SP to the end of the highest stack
 * word read), at percentile pct (0..100) of the unwinds that completed or ran past the
 * stack copy; 0 if none. This is what --call-graph dwarf,SIZE must copy for them to be
 * complete. Those that ran past the copy needed more than it, more than any complete one:
 * SYMBOLIZE_UNWIND_PAST_COPY if the percentile falls among them.
 */
#define SYMBOLIZE_UNWIND_PAST_COPY UINT64_MAX
uint64_t symbolize_unwind_stack_needed(struct symbolize_unwind *u, double pct);

/*
 * Add u's counts to *sum and say what happened to the stacks of input `path` on stderr:
 * complete and truncated unwinds, by cause, and the stack bytes they needed (one line;
 * a warning when more than 5% of the stacks are truncated). Nothing when u saw no sample.
 */
void symbolize_unwind_report(struct symbolize_unwind *u, const char *path,
			   struct symbolize_unwind_stats *sum);

#endif
