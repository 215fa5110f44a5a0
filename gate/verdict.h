/* SPDX-License-Identifier: MIT */
/*
 * The gate's verdict policy: stage 1 is gate_compare(); a stage-1 regression may be
 * confirmed on more head runs (docs/gate-method.md §6.5), in interleaved mode on more runs
 * of both sides, and fails only if the same function flags again on all runs; otherwise the verdict is "inconclusive, not
 * reproduced" and passes with a warning. Collecting the runs is the caller's (cmd/).
 */
#ifndef PGO_GATE_VERDICT_H
#define PGO_GATE_VERDICT_H

#include "gate/compare.h"

/* "one word" status used by all reports: "regression", "pass" */
const char *gate_verdict_status(const struct gate_verdict *v);

/* 1 if v is a stage-1 verdict that confirmation runs could overturn (it fails). */
int gate_verdict_wants_confirmation(const struct gate_verdict *v);

/*
 * 1 if some root cause of `second` names the same function and kind as a root cause of
 * `first`, else 0.
 */
int gate_verdict_confirms(const struct gate_verdict *first, const struct gate_verdict *second);

/*
 * Stage 2: compare base against head's runs followed by head2's (the confirmation runs)
 * and keep the failure only if gate_verdict_confirms(first, result). *out is new.
 * Returns 0, or -1 after reporting.
 */
int gate_confirm(const struct gate_profile *base, const struct gate_profile *head,
		 const struct gate_profile *head2, const struct gate_opts *o,
		 const struct gate_verdict *first, struct gate_verdict **out);

/*
 * The same with confirmation runs of both sides (interleaved mode: base2 and head2 ran
 * alternately after the first stage, so a drift between the stages hits both): compares
 * base's runs followed by base2's against head's followed by head2's. base2 may be NULL
 * (gate_confirm).
 */
int gate_confirm_both(const struct gate_profile *base, const struct gate_profile *base2,
		      const struct gate_profile *head, const struct gate_profile *head2,
		      const struct gate_opts *o, const struct gate_verdict *first,
		      struct gate_verdict **out);

#endif
