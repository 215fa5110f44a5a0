/* SPDX-License-Identifier: MIT */
/*
 * The gate's inputs as convert's stack set (convert/stackset.h), the one profile model
 * across the convert -> gate boundary: a perf.data file (pgo collect -r N) symbolized
 * through convert, or a profile JSON file (docs/profile-json.md). JSON text exists only
 * at the edges: files, and the git notes that `pgo gate record` stores
 * (gate_input_to_json()).
 *
 * A set made from perf.data has its stacks in the order a profile JSON of it is read
 * back (stacks by first appearance over runs and views, sorted by folded string within
 * a run's view), so a fresh collection, its file and its note give the same verdict to
 * the last bit.
 *
 * All functions return 0, or -1 after reporting; sets must be CONVERT_STACKSET_INIT on
 * entry and are left empty on error.
 */
#ifndef PGO_GATE_INPUT_H
#define PGO_GATE_INPUT_H

#include <stddef.h>

#include "convert/stackset.h"

/* 1 if the file is a recording convert reads (perf.data or pprof), 0 if not (JSON, unreadable). */
int gate_input_is_perf_data(const char *path);

/* Symbolize a perf.data file (with >= 1 run) into set. */
int gate_input_from_perf(const char *path, struct convert_stackset *set);
/*
 * Symbolize n >= 1 perf.data files into one set: the runs of paths[0], then those of
 * paths[1], ... (each run stays separate), e.g. one side's blocks of an interleaved check.
 */
int gate_input_from_perfs(const char *const *paths, size_t n, struct convert_stackset *set);

/* A profile file: perf.data or pprof (by their first bytes), or profile JSON (at most 1 GiB). */
int gate_input_load(const char *path, struct convert_stackset *set);

/* The profile JSON text of set (what a note stores); *text is new (free()). */
int gate_input_to_json(const struct convert_stackset *set, const char *what, char **text);

#endif
