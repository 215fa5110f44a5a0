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

/* 1 if the file is a recording convert reads (perf.data or pprof), 0 if not (JSON, unreadable). */
int gate_is_perf_data(const char *path);

/* Symbolize a perf.data file into profile JSON text. */
int gate_perf_to_json(const char *path, char **text);

#endif
