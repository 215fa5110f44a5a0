/* SPDX-License-Identifier: MIT */
/*
 * Strict number parsing for options and text formats: the whole string must be a number
 * in range ("10ms", "", " 5" and "0x" are errors). These do not print; the caller names
 * the option in its message.
 */
#ifndef PGO_LIB_PARSE_H
#define PGO_LIB_PARSE_H

#include <stdint.h>

/* Decimal, or hex with 0x. Returns 0, or -1 on any junk or overflow. */
int pgo_parse_u64(const char *s, uint64_t *out);
/* As pgo_parse_u64, and requires min <= value <= max. */
int pgo_parse_u64_range(const char *s, uint64_t min, uint64_t max, uint64_t *out);
/* A finite double; optional trailing '%' divides by 100 when allow_percent is set. */
int pgo_parse_double(const char *s, int allow_percent, double *out);
/* A duration: a number with an optional unit ns, us, ms, s (default unit given by the caller). */
int pgo_parse_duration_ns(const char *s, uint64_t default_unit_ns, uint64_t *out);

#endif
