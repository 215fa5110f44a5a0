/* SPDX-License-Identifier: MIT */
/*
 * The wall-clock view of a stack set: where the threads' time went, running or not. Every
 * on-CPU stack gets a "[running]" leaf; off-CPU stacks keep their state leaf ("[runnable]",
 * "[sleep]", "[io]"; "[offcpu]" is added where a stack has none, as in perf record --off-cpu
 * data). Both are in ns of thread time, so one flame graph shows the whole lifetime.
 *
 * Ownership: the result is a new set in *dst (convert_stackset_release() it).
 */
#ifndef PGO_CONVERT_WALL_H
#define PGO_CONVERT_WALL_H

#include "convert/stackset.h"

/*
 * Fill the empty set dst with the wall-clock stacks of src, run by run (same runs, same
 * order), in dst's CPU view, so every stack-set writer draws it as is. Returns 0, or -1
 * after reporting (allocation failure, overflow), with dst empty again.
 */
int convert_stackset_wall(const struct convert_stackset *src, struct convert_stackset *dst);

#endif
