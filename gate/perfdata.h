/* SPDX-License-Identifier: MIT */
/*
 * The gate's input from the collector: symbolize a perf.data file (pgo collect -r N)
 * into profile JSON text (docs/profile-json.md) through convert's API. The text is what `pgo gate record` stores in a git note and
 * what gate_profile_parse() reads, so files, notes and fresh collections share one path.
 *
 * All functions return 0, or -1 after reporting; *text is new (free()).
 */
#ifndef PGO_GATE_PERFDATA_H
#define PGO_GATE_PERFDATA_H

#include <stddef.h>

/* 1 if the file starts with the perf.data magic, 0 if not (or unreadable). */
int gate_is_perf_data(const char *path);

/* Symbolize a perf.data file into profile JSON text. */
int gate_perf_to_json(const char *path, char **text);

/*
 * Symbolize n >= 1 perf.data files into one profile JSON text: the runs of paths[0],
 * then those of paths[1], ... (each run stays separate), e.g. one side's blocks of an
 * interleaved collection.
 */
int gate_perfs_to_json(const char *const *paths, size_t n, char **text);

#endif
