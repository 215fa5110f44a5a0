/* SPDX-License-Identifier: MIT */
/*
 * A tiny unit-test harness (perf tests.h style) that prints TAP.
 *
 *   static int test_x(void) { T_ASSERT(1 + 1 == 2); return T_OK; }
 *   static const struct t_case cases[] = { { "x", test_x }, };
 *   T_MAIN(cases)
 *
 * T_ASSERT prints file:line and the expression and fails the case. A case skipped with
 * `return t_skip("reason")` is reported as "ok N - name # SKIP reason" and counted apart by
 * tests/run.sh; one that returns T_SKIP without a reason fails.
 */
#ifndef PGO_TEST_H
#define PGO_TEST_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { T_OK = 0, T_FAIL = -1, T_SKIP = -2 };

static char t_skip_why[256];

/* return t_skip(fmt, ...): skip the case for the reason given. */
static inline __attribute__((format(printf, 1, 2))) int t_skip(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t_skip_why, sizeof(t_skip_why), fmt, ap);
	va_end(ap);
	return T_SKIP;
}

struct t_case {
	const char *name;
	int (*fn)(void);
};

#define T_ASSERT(cond)                                                                         \
	do {                                                                                   \
		if (!(cond)) {                                                                 \
			fprintf(stderr, "# %s:%d: assertion failed: %s\n", __FILE__, __LINE__, #cond); \
			return T_FAIL;                                                         \
		}                                                                              \
	} while (0)

#define T_ASSERT_EQ_U64(a, b)                                                                  \
	do {                                                                                   \
		unsigned long long _a = (a), _b = (b);                                         \
		if (_a != _b) {                                                                \
			fprintf(stderr, "# %s:%d: %s == %s failed: %llu != %llu\n", __FILE__,  \
				__LINE__, #a, #b, _a, _b);                                     \
			return T_FAIL;                                                         \
		}                                                                              \
	} while (0)

#define T_ASSERT_STR(a, b)                                                                     \
	do {                                                                                   \
		const char *_a = (a), *_b = (b);                                               \
		if (!_a || !_b || strcmp(_a, _b)) {                                            \
			fprintf(stderr, "# %s:%d: %s == %s failed: '%s' != '%s'\n", __FILE__,  \
				__LINE__, #a, #b, _a ? _a : "(null)", _b ? _b : "(null)");     \
			return T_FAIL;                                                         \
		}                                                                              \
	} while (0)

/* |a - b| <= tol * max(1, |b|): relative tolerance for reference values. */
#define T_ASSERT_NEAR(a, b, tol)                                                               \
	do {                                                                                   \
		double _a = (a), _b = (b);                                                     \
		double _s = fabs(_b) > 1 ? fabs(_b) : 1;                                       \
		if (!(fabs(_a - _b) <= (tol) * _s)) {                                          \
			fprintf(stderr, "# %s:%d: %s ~ %s failed: %.12g vs %.12g\n", __FILE__, \
				__LINE__, #a, #b, _a, _b);                                     \
			return T_FAIL;                                                         \
		}                                                                              \
	} while (0)

static inline int t_run(const struct t_case *cases, size_t n)
{
	size_t i;
	int failed = 0;

	printf("1..%zu\n", n);
	for (i = 0; i < n; i++) {
		int r;

		t_skip_why[0] = 0;
		r = cases[i].fn();
		if (r == T_OK) {
			printf("ok %zu - %s\n", i + 1, cases[i].name);
		} else if (r == T_SKIP && t_skip_why[0]) {
			printf("ok %zu - %s # SKIP %s\n", i + 1, cases[i].name, t_skip_why);
		} else {
			if (r == T_SKIP)
				printf("# skipped without a reason: return t_skip(\"why\")\n");
			printf("not ok %zu - %s\n", i + 1, cases[i].name);
			failed++;
		}
		fflush(stdout);
	}
	return failed ? 1 : 0;
}

#define T_MAIN(cases)                                                                          \
	int main(void)                                                                         \
	{                                                                                      \
		return t_run(cases, sizeof(cases) / sizeof(cases[0]));                         \
	}

#endif
