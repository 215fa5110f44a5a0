/* SPDX-License-Identifier: MIT */
/*
 * Internals shared by the files that build the sample-profile model (convert/sampleprof.h
 * is its contract); not for anything outside convert/sampleprof*.c.
 *
 *   sampleprof.c          the records and their positions; per-address counts; sp_build()
 *   sampleprof_merge.c    merging records (clones into their function) and their order
 *   sampleprof_stacks.c   what branch records and call stacks add: call targets, inline
 *                         instances of hot calls
 *   sampleprof_entry.c    the addresses to count; entry counts; offline copies of instances
 *
 * Ownership: every record belongs to the profile (sp_release() frees them with their
 * blocks); a builder lives for one binary's build.
 */
#ifndef PGO_CONVERT_SAMPLEPROF_INTERNAL_H
#define PGO_CONVERT_SAMPLEPROF_INTERNAL_H

#include <stdint.h>

#include "symbolize/entryblock.h"
#include "convert/afdo_version.h"
#include "convert/internal.h"
#include "convert/sampleprof.h"

/* instructions looked at for a function's entry block */
#define ENTRY_INSNS_MAX 32

/*
 * add_zero's last inline path: the line-table rows of a function come in address order,
 * and consecutive rows mostly share their inline chain and often their line. Valid while
 * no record is freed (during the explicit-zeros pass).
 */
#define ZERO_DEPTH 32

struct zero_path {
	const struct sp_fn *top;       /* NULL: nothing cached */
	uint32_t depth;                /* levels below top cached */
	uint32_t off[ZERO_DEPTH];      /* level i: call-site offset in fn[i - 1] (top for 0) */
	uint32_t name[ZERO_DEPTH];     /* and callee */
	struct sp_fn *fn[ZERO_DEPTH];  /* its instance */
	const struct sp_fn *leaf;      /* the record and offset of the last position */
	uint32_t leaf_off;
};

/* Top-level functions while building: keyed by full ELF symbol name (clones apart). */
struct builder {
	struct sp_profile *sp;
	struct convert_profile *p;
	struct convert_binary *bin;
	struct pgo_u64map by_name;     /* name id -> index + 1 in sp->fns */
	struct pgo_u64map sampled;     /* symbol start -> size, functions that had samples */
	uint32_t last_name;            /* top_get's previous name (SYMBOLIZE_NO_NAME: none) */
	size_t last_idx;               /* and its index in sp->fns */
	size_t first;                  /* this binary's records: sp->fns[first..] */
	struct zero_path zp;           /* add_zero's */
};

/* LLVM's prefix encoding of discriminator components (base, duplication factor, copy id). */
static inline unsigned llvm_prefix_decode(unsigned u)
{
	if (u & 1)
		return 0;
	u >>= 1;
	return (u & 0x20) ? (((u >> 1) & 0xfe0) | (u & 0x1f)) : (u & 0x1f);
}

static inline uint32_t frame_offset(const struct sp_profile *sp, const struct symbolize_sym_frame *fr)
{
	uint32_t off = (fr->line - fr->start_line) << 16;

	switch (sp->discr) {
	case SP_DISCR_EXACT:
		return off | (fr->discr & 0xffff);
	case SP_DISCR_LLVM:
		return off | (llvm_prefix_decode(fr->discr) & 0xffff);
	case SP_DISCR_GCC16:
		return off | convert_gcc16_discr_base(fr->discr);
	default:
		return off;
	}
}

/* The top-level record of function name, created if missing (sampleprof.c). 0 or -1. */
int sp_top_get_slow(struct builder *B, uint32_t name, struct sp_fn **out);

static inline int top_get(struct builder *B, uint32_t name, struct sp_fn **out)
{
	/* the addresses of a function come one after another (sorted, or its lines) */
	if (name == B->last_name) {
		*out = B->sp->fns[B->last_idx];
		return 0;
	}
	return sp_top_get_slow(B, name, out);
}

/* sampleprof.c */
/* Add count at addr's line, its record top-level *top_out. 0 or -1. */
int sp_add_count(struct builder *B, uint64_t addr, uint64_t count, struct sp_fn **top_out);
/*
 * Add `count` at the line of sym's inline path from frames[first] on, whose function is
 * f: walk (and create) the nested instances, MAX in the innermost line.
 */
int sp_add_path(struct builder *B, struct sp_fn *f, const struct symbolize_sym *sym, uint32_t first,
		uint64_t count);
/* A call target seen at call_addr: gcc promotes the hottest target of an indirect call. */
int sp_add_target(struct builder *B, uint64_t call_addr, uint32_t callee, uint64_t count);
/* The name gcc matches: the symbol name cut at the first '.'. */
uint32_t sp_base_name_id(struct builder *B, uint32_t id);
/* f's instance of callee inlined at offset, created if missing, or NULL. */
struct sp_fn *sp_callee_get(struct sp_profile *sp, struct sp_fn *f, uint32_t offset, uint32_t callee);
/* The count of the line addr belongs to. */
uint64_t sp_count_at(struct builder *B, struct sp_fn *f, uint64_t addr);
/* The count of sym's line, found in top-level f along its inline path (0 if none). */
uint64_t sp_count_of(struct builder *B, struct sp_fn *f, const struct symbolize_sym *sym);
/* The leaf pos record of addr's inline path (created if missing), or NULL. */
struct sp_pos *sp_pos_of(struct builder *B, uint64_t addr);
/* What f and its instances own; the records themselves go with their blocks. */
void sp_fn_free(struct sp_profile *sp, struct sp_fn *f);
/* A new record of function name, zeroed, in the profile's blocks, or NULL. */
struct sp_fn *sp_fn_new(struct sp_profile *sp, uint32_t name);
/* The position at offset, created if missing; valid until the next sp_pos_get on f. */
struct sp_pos *sp_pos_get(struct sp_profile *sp, struct sp_fn *f, uint32_t offset);
/* Functions of units a and b, compiled apart (LTO); 0 if either unit is unknown. */
int sp_units_differ(uint32_t a, uint32_t b);
/* Add count to pos's call target callee (new if missing). Returns 0 or -1. */
int sp_pos_add_target(struct sp_pos *pos, uint32_t callee, uint64_t count);

/* sampleprof_merge.c */
/* Add src's counts, targets and instances to dst's. 0 or -1. */
int sp_merge_fn(struct sp_profile *sp, struct sp_fn *dst, struct sp_fn *src);
/* Merge foo.suffix into foo (gcc cuts names at the first '.'), then sort. */
int sp_merge_clones(struct sp_profile *sp);

/* sampleprof_stacks.c */
/*
 * LBR: every straight-line range [begin, end] ran `count` times. The execution count
 * of an instruction is the sum over the ranges that cover it; it is constant between
 * consecutive "points" (range begins and line-table rows), so summing per point and
 * taking the per-line MAX (add_count) gives autofdo's per-line counts.
 */
int sp_expand_ranges(struct builder *B);
/*
 * LBR call edges: a taken branch to a function's first instruction is a call; its count
 * is an exact entry count (head) and, at the call site, a call target.
 */
int sp_lbr_calls(struct builder *B, struct pgo_u64map *heads);
/*
 * Entry counts from call stacks without LBR. A function runs its entry once per call,
 * and each call executes the caller's call line once, so the sum over the call sites
 * the stacks show of the caller's count for the call line estimates the entry count in
 * the units of the body counts. The stack samples themselves are not used as counts:
 * they measure time below the call, not calls. An indirect call's line count is shared
 * among the targets the stacks show in proportion to their samples through it (the
 * only split the stacks give): giving each the whole line would give every one of
 * newlisp's primitives, called from one line of its evaluator, that line's count as head.
 * heads: callee start -> estimate.
 */
int sp_stack_heads(struct builder *B, struct pgo_u64map *heads);
/*
 * Inline instances for hot calls the call stacks show (--inline-max-size), which make
 * gcc inline them. 0 or -1.
 */
int sp_stack_inline(struct builder *B);
/*
 * Call stacks without LBR: the return addresses say which function each call site
 * reached. Counts are samples (time spent below the call), not calls, so they only
 * rank the targets of indirect calls, which is what gcc uses them for.
 */
int sp_stack_targets(struct builder *B);

/* sampleprof_entry.c */
/* Per-address counts in address order, so consecutive lookups share the symbolizer's caches. */
int sp_add_counts_sorted(struct builder *B);
/* The count of the entry block of the function at [start, start + size), in top; 0 if unknown. */
uint64_t sp_entry_block_count(struct builder *B, struct symbolize_entryblock *eb, struct sp_fn *top,
			      uint64_t start, uint64_t size);
/* f has sampled instances of its own, inlined in the binary (not copied from stacks) */
int sp_inlines(const struct sp_fn *f);
/*
 * Records of their own for inlined functions whose instances inline callees (gcc 12
 * inlines those from them: --offline-nested). 0 or -1.
 */
int sp_offline_instances(struct builder *B, struct symbolize_entryblock *eb);
/*
 * Tell the symbolizer which functions will be looked up: every sampled address and both
 * ends of every branch, range and call edge. A one-unit program (sqlite3) then keeps the
 * line-table rows of those functions only (symbolize_symtab_want).
 */
int sp_want_addrs(struct builder *B);

#endif
