/* SPDX-License-Identifier: MIT */
/*
 * The sample-profile model shared by the AutoFDO (gcc) and LLVM (clang) writers:
 * per function, counts per line offset and nested inline instances per call site
 * (autofdo-algorithm.md). Built from a loaded profile's selected binaries:
 *   - per line offset the count is the MAX over the instructions of that line;
 *   - every line that has code in a sampled function gets an explicit 0;
 *   - inline chains become nested instances keyed by (call-site offset, callee);
 *   - totals are sums over all addresses at every level;
 *   - clones (foo.constprop.0, foo.cold) are merged (summed) into foo;
 *   - head counts: LBR call edges; without LBR the larger of the entry instruction's
 *     line count and the sum of the callers' call-line counts (from call stacks; an
 *     indirect call's count shared among its targets by their stack samples); at least 1;
 *   - gcc, call stacks, no LBR: a hot direct call to a small function (p->inline_max_size)
 *     gets an inline instance of the callee from the samples that came through it, and so
 *     does a hot indirect call whose dominant target is small (its call targets are then
 *     scaled down so that gcc promotes it early) (docs/convert.md "Inline instances from
 *     call stacks"); the callee keeps its own record;
 *   - gcc, LTO: an instance inlined across compile units is also copied (summed) into the
 *     callee's top-level record, created if it had none: gcc reads the profile before
 *     the link, where it can neither inline across units nor use such an instance, so
 *     the callee's own body is where those counts can go ("offlining").
 * Offsets are (line - start line) << 16 | discriminator, 32-bit wrapping.
 */
#ifndef PGO_CONVERT_SAMPLEPROF_H
#define PGO_CONVERT_SAMPLEPROF_H

#include <stddef.h>
#include <stdint.h>

#include "lib/hashmap.h"

struct convert_profile;

struct sp_target {
	uint32_t name;                 /* string id (profile strings) */
	uint64_t count;
};

/* 24 bytes: a large function has thousands, nearly all without targets */
struct sp_pos {
	uint32_t offset;
	uint32_t nr_targets;           /* indirect-call targets (malloc'd to fit) */
	uint64_t count;
	struct sp_target *targets;
};

struct sp_fn;

struct sp_callsite {
	uint32_t offset;
	uint32_t callee;               /* string id */
	struct sp_fn *fn;
};

struct sp_fn {
	uint32_t name;                 /* string id, clone suffix removed after merging */
	uint64_t head, total;
	struct sp_pos *pos;            /* as added while building; by offset after sp_build;
					  up to SP_SMALL_MAX the profile's (not malloc'd) */
	size_t nr_pos, alloc_pos;
	uint32_t *pos_ix;              /* while building, past a few: open addressing,
					  index + 1 of the position (0: empty) */
	size_t pos_ix_cap;             /* a power of two, or 0 */
	struct sp_callsite *cs;
	size_t nr_cs, alloc_cs;
	int from_stacks;               /* an instance made from call stacks: a copy of the
					  callee's samples, not more lines of this binary */
	uint32_t unit;                 /* symbolize_sym_frame.unit of its function, 0 unknown */
	uint64_t *entries;             /* an instance, while building: where its sampled
					  inlined copies begin (symbolize_symtab_inline_entry) */
	size_t nr_entries, alloc_entries;
};

/* What happens to DWARF discriminators in offsets. */
enum sp_discr {
	SP_DISCR_DROP = 0,             /* gcc 12: masks them, keeps the last duplicate */
	SP_DISCR_EXACT = 1,            /* newer gcc readers match them exactly */
	SP_DISCR_LLVM = 2,             /* clang: base discriminator, counts scaled by the
					  duplication factor (llvm/Support/Discriminator.h) */
	SP_DISCR_GCC16 = 3,            /* gcc 16: base discriminator, counts scaled by the
					  multiplicity (convert/afdo_version.h) */
};

/* Lines sampled, sampled once and sampled twice (before any floor). */
struct sp_density {
	uint64_t sampled, once, twice;
};

struct sp_fn_block;
struct sp_chunk;

/* sp_fn arrays of up to this many elements come from the profile's chunks (sampleprof.c) */
#define SP_SMALL_MAX 64

struct sp_profile {
	struct convert_profile *p;     /* strings live there */
	struct sp_fn_block *blocks;    /* where every sp_fn of the profile is allocated */
	struct sp_chunk *chunks;       /* where the small pos and cs arrays are */
	char *room;                    /* free space in the newest chunk */
	size_t room_len;
	void *spare[2][5];             /* freed small arrays: pos, cs; by 4, 8 ... 64 elements */
	struct sp_fn **fns;            /* top-level functions, sorted by name after sp_build */
	size_t nr_fns, alloc_fns;
	enum sp_discr discr;
	unsigned flags;                /* SP_* */
	uint64_t samples_no_line;      /* samples at addresses without line information */
	struct sp_density density;     /* of the records as sampled, before sp_build copies
					  instances into records of their own (offlining) */
};

/*
 * SP_OFFLINE_NESTED: also add every inline instance that has sampled inlined callees of
 * its own into its function's top-level record (sampleprof.c, "Offlining");
 * SP_OFFLINE_INLINED: only those of functions the binary has no out-of-line copy of.
 * Instances inlined across units (LTO) are always added, except for SP_DISCR_LLVM.
 */
#define SP_OFFLINE_NESTED 1u
#define SP_OFFLINE_INLINED 2u

int sp_build(struct convert_profile *p, enum sp_discr discr, unsigned flags, struct sp_profile *sp);
/* Add f's lines into d, at every level but in instances made from call stacks (their
 * lines are the callee's). */
void sp_add_density(struct sp_density *d, const struct sp_fn *f);
void sp_release(struct sp_profile *sp);
const char *sp_str(const struct sp_profile *sp, uint32_t id);

#endif
