/* SPDX-License-Identifier: MIT */
/*
 * The profile JSON of docs/profile-json.md ("format": "pgo-profile", "version": 1):
 * what `pgo convert --to json` writes and what the gate reads from files and git notes.
 * Writer and reader work on the stack set model (convert/stackset.h); a written profile
 * reads back to an equal set.
 *
 * The reader is strict: wrong types, negative or non-integer weights, empty frames,
 * duplicate keys or run numbers, an unknown unit or view are errors that name the
 * input and the field (`invalid profile 'x.json': runs[1].cpu["main;f"]: expected a
 * non-negative integer`); an unknown major version is refused with its number.
 * Unknown keys are ignored, as the format asks.
 */
#ifndef PGO_CONVERT_PROFILE_JSON_H
#define PGO_CONVERT_PROFILE_JSON_H

#include <stddef.h>
#include <stdio.h>

#include "convert/stackset.h"

#define CONVERT_PROFILE_FORMAT "pgo-profile"
#define CONVERT_PROFILE_VERSION 1

/*
 * Write set as profile JSON to fp (runs in set order, stacks sorted). Missing metadata
 * is left out (binary is then {} and rate_hz 0); a run's cpu_ns/offcpu_ns of 0 is written as the sum of its stacks.
 * Returns 0, or -1: after reporting (a weight above INT64_MAX, allocation failure), or
 * on a write error with ferror(fp) set and nothing reported, so the caller names the
 * file (pgo_atomic_commit() does).
 */
int convert_profile_json_write(FILE *fp, const struct convert_stackset *set);

/*
 * Parse a profile held in memory (len bytes, need not be NUL-terminated). `name` says
 * where it came from ("base.json", "git note on 1a2b3c") for messages. `set` must be
 * empty (CONVERT_STACKSET_INIT); on success it holds the profile, on error (-1, after
 * reporting) it is empty again.
 */
int convert_profile_json_parse(const char *data, size_t len, const char *name,
			       struct convert_stackset *set);

/* Read and parse a file ("-" is stdin); same contract as convert_profile_json_parse(). */
int convert_profile_json_load(const char *path, struct convert_stackset *set);

#endif
