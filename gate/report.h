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
/* One side's profile JSON texts (NUL-terminated): 1, or 2 for a head plus its confirmation runs. */
struct gate_svg_side {
	const char *text[2];
	size_t nr;
	const char *label;
};

/*
 * A differential flamegraph (convert/flamegraph.h): head's widths (mean per run), frames of
 * flagged functions red (root causes, their inclusive time and the callers "via"),
 * improvements blue, the rest grey; tooltips show base, head and the change.
 */
int gate_report_svg(const struct gate_verdict *v, const struct gate_svg_side *base,
		    const struct gate_svg_side *head, const char *path);

/*
 * How the gate obtained the two sides, said by the JSON ("mode") and Markdown reports:
 * "interleaved" (base and head built and run alternately in this job), "notes" (the
 * baseline is a git note recorded earlier), "profiles" (gate compare of two files). The
 * command sets it before writing reports; NULL (the default) leaves it out.
 */
void gate_report_set_mode(const char *mode);
const char *gate_report_mode(void);

/* "one word" status used by all reports: "regression", "pass" */
const char *gate_verdict_status(const struct gate_verdict *v);

#endif
