/* SPDX-License-Identifier: MIT */
/*
 * The gate's reports of a verdict: a terminal table, a versioned JSON document
 * ("pgo-verdict" v1), a Markdown PR comment and a differential flamegraph. File outputs
 * are written atomically ("-" is stdout). Each returns 0, or -1 after reporting.
 */
#ifndef PGO_GATE_REPORT_H
#define PGO_GATE_REPORT_H

#include <stdio.h>

#include "gate/compare.h"

#define GATE_VERDICT_FORMAT "pgo-verdict"
#define GATE_VERDICT_VERSION 1

/* Human-readable table of the notable rows (all rows with verbose). */
int gate_report_term(const struct gate_verdict *v, FILE *out, int verbose);
/* The full verdict: every hypothesis, the estimates, the options. */
int gate_report_json(const struct gate_verdict *v, const char *path);
/* A PR comment: verdict line, root causes, other flags, how to read it. */
int gate_report_markdown(const struct gate_verdict *v, const char *path);
/*
 * A differential flamegraph of head: flagged regressions red, improvements blue, the
 * rest grey. Needs the flamegraph renderer from convert; until then it reports that and
 * returns -1.
 */
int gate_report_svg(const struct gate_verdict *v, const struct gate_profile *base,
		    const struct gate_profile *head, const char *path);

/* "one word" status used by all reports: "regression", "pass" */
const char *gate_verdict_status(const struct gate_verdict *v);

#endif
