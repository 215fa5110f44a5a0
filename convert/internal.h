/* SPDX-License-Identifier: MIT */
/*
 * Internals shared by the files of convert/: the loaded profile's layout. Not a
 * contract for other modules (they use profile.h, stacks.h, afdo.h, llvm.h).
 */
#ifndef PGO_CONVERT_INTERNAL_H
#define PGO_CONVERT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "convert/pairmap.h"
#include "convert/profile.h"
#include "convert/stacks.h"
#include "symbolize/symtab.h"
#include "lib/hashmap.h"

#define DSO_KERNEL CONVERT_DSO_KERNEL
#define DSO_UNKNOWN CONVERT_DSO_UNKNOWN
/* Not a DSO: the thread-state leaf of an off-CPU stack, addr = enum offcpu_state. */
#define DSO_STATE CONVERT_DSO_STATE
/* (dso, file offset) packed in a u64 for the per-address aggregation */
#define ADDR_KEY(dso, off) (((uint64_t)(dso) << 40) | (off))
#define ADDR_KEY_DSO(k) ((uint32_t)((k) >> 40))
#define ADDR_KEY_OFF(k) ((k) & ((1ULL << 40) - 1))

struct symbolize_ksyms;

/* samples per ADDR_KEY: open addressing, at most 3/4 full (profile.c) */
struct convert_addr_counts {
	struct convert_addr_count {
		uint64_t key;
		uint64_t n;            /* 0: an empty slot */
	} *slots;
	size_t mask;                   /* number of slots - 1 (no slots: 0) */
	unsigned shift;                /* 64 - log2(number of slots) */
	size_t count;
};

struct convert_dso {
	char *path;
	uint8_t build_id[20];
	int build_id_len;
	uint64_t samples;              /* on-CPU samples of the selected event */
	struct symbolize_symtab *st;     /* opened lazily; NULL if it could not be */
	int open_tried;
	int binary;                    /* index of the selected binary + 1, 0 if not selected */
};

struct stack_frame {
	uint32_t dso;                  /* DSO index, DSO_KERNEL or DSO_UNKNOWN */
	uint32_t ret;                  /* a return address: symbolize addr - 1 */
	uint64_t addr;                 /* file offset in the DSO, or the raw address */
};

struct stack_rec {
	uint32_t run, pid, tid, view, attr_name, nr;
	uint64_t first;                /* index of the first frame (leaf first) in the pool */
	uint64_t weight, samples;
	uint64_t hash;
	uint64_t next;                 /* next stack with the same hash, index + 1 */
};

struct convert_binary {
	char *path;
	char build_id_hex[41];
	struct symbolize_symtab *st;
	struct pgo_u64map counts;      /* link-time vaddr -> samples */
	struct pairmap branches;       /* LBR (from, to) vaddrs -> count */
	struct pairmap ranges;         /* LBR straight-line (begin, end) vaddrs -> count */
	struct pairmap calls;          /* call stacks: (return address, callee address) -> samples */
	struct pairmap ucalls;         /* the same from DWARF-unwound stacks (frameless callees too) */
	struct pairmap leaf_calls;     /* the innermost edges only: (return address, sampled IP) */
	struct pairmap leaf_ucalls;    /* the same from DWARF-unwound stacks */
	uint64_t samples;
};

struct convert_profile {
	struct convert_info info;
	struct pgo_strtab strs;        /* names, paths, event names */
	struct pgo_strtab dso_keys;    /* "path\n<build-id hex>" -> dso index */
	struct convert_dso *dsos;
	size_t nr_dsos, alloc_dsos;
	struct convert_addr_counts addr_counts; /* ADDR_KEY -> samples (selected event, user space) */
	struct pairmap branches;       /* ADDR_KEY pairs, as in struct convert_binary */
	struct pairmap ranges;
	struct pairmap calls;
	struct pairmap ucalls;
	struct pairmap leaf_calls;
	struct pairmap leaf_ucalls;
	struct convert_binary *bins;
	size_t nr_bins;
	struct convert_run_info *runs;
	size_t nr_runs, alloc_runs;
	struct stack_rec *stacks;
	size_t nr_stacks, alloc_stacks;
	struct pgo_u64map stack_index; /* hash -> index + 1 of the first stack with it */
	struct stack_frame *frames;
	size_t nr_frames, alloc_frames;
	int want_stacks;
	uint64_t inline_max_size;      /* convert_options.inline_max_size */
	struct symbolize_ksyms *ksyms;   /* loaded at the first kernel frame */
	int join_runs;                 /* loading a pprof input without runs: join joined_run */
	int weight_is_count;           /* loading a translated pprof input: a sample's
					  PERF_SAMPLE_WEIGHT is the number of samples it stands for */
	uint32_t joined_run;           /* index + 1 of the run such inputs share, 0 before one */
};

/* Open the symtab of a DSO lazily (NULL if it cannot be read). */
struct symbolize_symtab *convert_dso_symtab(struct convert_profile *p, uint32_t dso);
const char *convert_str(const struct convert_profile *p, uint32_t id);

#endif
