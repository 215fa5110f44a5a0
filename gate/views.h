/* SPDX-License-Identifier: MIT */
/*
 * The stacks gate_compare() works on (internal to gate/): a view's stacks reduced to the
 * benchmark's own frames, the count matrices of functions x runs drawn from them, and
 * the call relations the root-cause list needs. Functions returning int return 0, or -1
 * on allocation failure (reported).
 */
#ifndef PGO_GATE_VIEWS_H
#define PGO_GATE_VIEWS_H

#include <stddef.h>
#include <stdint.h>

#include "gate/profile.h"

/* The two sides' stacks of the view compared: base (0) and head (1), and their runs. */
struct gate_sides {
	const struct gate_view *v[2];
	size_t k[2];
};

/* Free a view made by gate_view_own_code(); it is zeroed. */
void gate_view_release(struct gate_view *v);

/*
 * The stacks of `in` (kr runs) with only own-code frames (own[f]), identical results
 * merged. A stack without any own frame is charged to its outermost frame. With leaf_ok,
 * only the stacks whose unfolded leaf has leaf_ok[leaf] set are kept. *out must be zeroed.
 */
int gate_view_own_code(const struct gate_view *in, size_t kr, const unsigned char *own,
		       const unsigned char *leaf_ok, struct gate_view *out);

/*
 * Self and inclusive count matrices over nf functions, base runs in columns [0, kb), head
 * runs in [kb, kb + kh), added to self and incl (zeroed by the caller; incl may be NULL).
 */
int gate_sides_matrices(const struct gate_sides *sd, size_t nf, double *self, double *incl);

/* 1 if desc is below anc in some stack of either side. */
int gate_sides_is_descendant(const struct gate_sides *sd, uint32_t anc, uint32_t desc);

/* The heaviest caller of f in head (or base if f is gone from head); UINT32_MAX if none. */
uint32_t gate_sides_main_parent(const struct gate_sides *sd, uint32_t f, size_t nf);

#endif
