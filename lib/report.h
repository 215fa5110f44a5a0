/* SPDX-License-Identifier: MIT */
/*
 * Diagnostics: the one way pgo reports errors, warnings and debug output.
 *
 * Messages follow git style: no capital first letter, no final full stop, the failed
 * action first, the subject quoted ("cannot open 'x.data'"). Everything goes to stderr,
 * prefixed with the program name. Library code reports an error once, where it is
 * found, and returns; only cmd/ decides the exit code.
 */
#ifndef PGO_LIB_REPORT_H
#define PGO_LIB_REPORT_H

#define PGO_PRINTF(a, b) __attribute__((format(printf, a, b)))

/* Name printed before every message ("pgo collect"); borrowed, must outlive all calls. */
void pgo_report_set_prog(const char *name);
/* 0 = errors, warnings and summaries, 1 = -v, 2 = -vv; -1 = -q (no pgo_info lines). */
void pgo_report_set_verbosity(int level);
int pgo_report_verbosity(void);

/* Print "error: ..." and return -1, so callers can write `return pgo_error(...)`. */
int pgo_error(const char *fmt, ...) PGO_PRINTF(1, 2);
/* Same, with ": strerror(errno)" appended (errno is read before anything else runs). */
int pgo_error_errno(const char *fmt, ...) PGO_PRINTF(1, 2);
void pgo_warn(const char *fmt, ...) PGO_PRINTF(1, 2);
/* Informational line, suppressed by -q. */
void pgo_info(const char *fmt, ...) PGO_PRINTF(1, 2);
/* Printed only when verbosity >= level. */
void pgo_debug(int level, const char *fmt, ...) PGO_PRINTF(2, 3);

/* A broken invariant: print file:line and abort(). Never for bad input. */
void pgo_bug(const char *file, int line, const char *fmt, ...) PGO_PRINTF(3, 4) __attribute__((noreturn));
#define PGO_BUG(...) pgo_bug(__FILE__, __LINE__, __VA_ARGS__)

#endif
