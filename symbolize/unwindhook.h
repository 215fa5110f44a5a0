/* SPDX-License-Identifier: MIT */
/*
 * The collector's unwinder (struct collect_unwinder, collect/collect.h) made of the CFI
 * unwinder of symbolize/unwind.h, so pgo collect unwinds each sample while draining its
 * rings and writes plain call chains: dwarf-unwound samples get their whole user stack
 * from the CFI, fp samples (those whose chain has a user part) get the frames the
 * kernel's frame-pointer walk skipped put back (symbolize_unwind_fp_sample()).
 *
 * The vDSO has no file: its frames (clock_gettime's) are unwound with the collector's
 * own vDSO image, the same kernel's, copied into a memfd.
 *
 * Ownership: symbolize_unwind_hook_new() returns a new hook, freed with
 * symbolize_unwind_hook_free(); the collect_unwinder it fills borrows it.
 */
#ifndef PGO_SYMBOLIZE_UNWINDHOOK_H
#define PGO_SYMBOLIZE_UNWINDHOOK_H

#include "collect/collect.h"

struct symbolize_unwind_hook;

/* Returns 0 and fills *uw, or -1 after reporting. */
int symbolize_unwind_hook_new(struct symbolize_unwind_hook **out, struct collect_unwinder *uw);
void symbolize_unwind_hook_free(struct symbolize_unwind_hook *h);

#endif
