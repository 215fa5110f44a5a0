/* SPDX-License-Identifier: MIT */
/*
 * Internals of the DWARF unwinder (symbolize/unwind.h is its contract), shared by
 *
 *   unwind_space.c  the address spaces (mmap, fork, exit, exec) and the Dwfl cache: one
 *                   Dwfl per maps block, shared by the spaces that hold it, its modules
 *                   reported and its thread callbacks reading the sample's registers and
 *                   stack copy
 *   unwind.c        the per-sample unwinding (DWARF and frame pointers) and the stack
 *                   size statistics and report
 *
 * and nothing outside them. Ownership: struct symbolize_unwind owns its spaces; a space
 * holds one reference to its maps block (lib/cow) and one to its uw_sess (refs counts
 * them); a uw_sess holds a reference to the maps block its Dwfl was built for.
 * live_modules is the sum of every uw_sess's modules. The "sample being unwound" fields
 * are valid only during one symbolize_unwind_sample() or _fp_sample() call.
 */
#ifndef PGO_SYMBOLIZE_UNWIND_INTERNAL_H
#define PGO_SYMBOLIZE_UNWIND_INTERNAL_H

#include <elfutils/libdwfl.h>
#include <stdint.h>

#include "symbolize/unwind.h"
#include "lib/cow.h"
#include "lib/hashmap.h"

/* perf's x86-64 register numbers (arch/x86/include/uapi/asm/perf_regs.h) */
enum {
	PR_AX = 0, PR_BX, PR_CX, PR_DX, PR_SI, PR_DI, PR_BP, PR_SP, PR_IP,
	PR_R8 = 16,
};


/* What the search for a file's separate debug file found (cb_find_debuginfo). */
enum uw_debug {
	UW_DEBUG_NONE = 1,         /* no debug file */
	UW_DEBUG_NO_FRAME,         /* one without .debug_frame */
	UW_DEBUG_FRAME,            /* one with .debug_frame (or that could not be checked) */
};

/* Reads this far above SP are stack reads the copy did not cover. */
#define STACK_REACH (64ULL << 20)

struct uw_map {
	uint64_t start, end, pgoff;
	uint32_t path;             /* id in u->paths */
};

/*
 * A Dwfl with the modules of one set of mappings (a maps block), shared by the processes
 * that have that very block: a parent and the children it forked, until one of them maps
 * or unmaps a file (lib/cow then gives that one a block of its own). libdwfl reads a
 * module's ELF and parses its CFI once per Dwfl, so sharing makes a shell's thousands of
 * subshells cost what the shell costs; a Dwfl of their own re-read the shell's and libc's
 * CFI each (converting mksh's training: 25 s CPU).
 */
struct uw_sess {
	size_t refs;                   /* spaces holding it */
	struct pgo_cow *maps;          /* the block it is for (a reference) */
	size_t modules;                /* modules in dwfl */
	Dwfl *dwfl;                    /* NULL: not built (yet, or again after the budget of
					  live modules dropped it); the next holder sampled does */
	int attached;
};

struct uw_space {
	uint32_t pid;
	int sampled;                   /* counted in st.processes */
	struct pgo_cow *maps;          /* struct uw_map, shared copy-on-write with forks */
	struct uw_sess *sess;          /* its Dwfl, or NULL: none (yet, or after EXIT) */
};

struct symbolize_unwind {
	struct uw_space *spaces;
	size_t nr_spaces, alloc_spaces;
	struct pgo_u64map pid2space;   /* pid -> index + 1 */
	struct pgo_strtab paths;
	struct pgo_u64map debug_of;    /* path id -> enum uw_debug: its separate debug file */
	struct symbolize_unwind_stats st;
	size_t live_modules;           /* in all spaces' Dwfls */
	struct pgo_cow_budget maps_budget; /* mapping entries of all spaces */
	Dwfl_Callbacks cb;
	char *debuginfo_path;

	/* the sample being unwound */
	Dwarf_Word regs[17];
	uint64_t sp;
	const unsigned char *stack;
	uint64_t stack_len;
	uint64_t max_read;             /* highest stack byte read + 1, relative to sp */
	int past_stack;                /* a read above the copy failed */
	int read_failed;               /* any read failed */
	struct symbolize_unwind_frame *out;
	size_t nout, max;
	enum symbolize_unwind_end end;  /* how the last unwind ended */
	uint64_t fr_sp[SYMBOLIZE_UNWIND_MAX_FRAMES + 1]; /* fp joins: each frame's %rsp, %rbp */
	uint64_t fr_bp[SYMBOLIZE_UNWIND_MAX_FRAMES + 1]; /* (UINT64_MAX: unknown) */
	int want_regs;
	int strict;                    /* symbolize_unwind_set_strict() */
	int no_cfi_stop;               /* the last unwind stopped at a frame without CFI */

	uint32_t *needed;              /* stack bytes of each complete unwind */
	size_t nr_needed, alloc_needed;
	int needed_sorted;
};


/* unwind_space.c */
struct uw_space *uw_space_find(struct symbolize_unwind *u, uint32_t pid);
int uw_space_ready(struct symbolize_unwind *u, struct uw_space *sp);

#endif
