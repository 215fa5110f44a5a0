// SPDX-License-Identifier: MIT
/* The gate's verdict as a Markdown PR comment. */
#include <math.h>
#include <stdlib.h>

#include "gate/report.h"
#include "lib/atomicfile.h"
#include "lib/buf.h"
#include "lib/report.h"

/* Function names go inside backticks; a backtick in a name would end the span. */
static int add_code(struct pgo_buf *b, const char *s)
{
	int e = pgo_buf_addch(b, '`');

	for (; *s && !e; s++)
		e = pgo_buf_addch(b, *s == '`' ? '\'' : *s);
	return e | pgo_buf_addch(b, '`');
}

static int add_row(struct pgo_buf *b, const struct gate_result *r, const char *note)
{
	int e = pgo_buf_adds(b, "| ");

	e |= add_code(b, r->name);
	e |= pgo_buf_addf(b, " | %s | %.2f%% | %.2f%% | %+.2f pp | ", r->kind == GATE_SELF ? "self" : "inclusive",
			  r->base_pct, r->head_pct, 100 * r->delta);
	if (isinf(r->rel))
		e |= pgo_buf_adds(b, "new");
	else
		e |= pgo_buf_addf(b, "%+.1f%%", 100 * r->rel);
	e |= pgo_buf_addf(b, " | [%+.2f, %+.2f] pp | %.2g | %s", 100 * r->ci_lo, 100 * r->ci_hi,
			  isnan(r->q) ? 1.0 : r->role == GATE_ROLE_IMPROVED ? r->q_down : r->q, note);
	if (r->via && *r->via) {
		e |= pgo_buf_adds(b, " (via ");
		e |= add_code(b, r->via);
		e |= pgo_buf_adds(b, ")");
	}
	return e | pgo_buf_adds(b, " |\n");
}

static int add_table(struct pgo_buf *b, const struct gate_verdict *v, int rank, const char *title)
{
	size_t i;
	int e = 0, any = 0;

	for (i = 0; i < v->nr_results; i++) {
		const struct gate_result *r = &v->results[i];
		int match = rank == 0 ? r->role == GATE_ROLE_ROOT :
			    rank == 1 ? (r->role == GATE_ROLE_VIA || r->role == GATE_ROLE_ROOT_INCL) :
			    rank == 2 ? r->role == GATE_ROLE_MOVED :
			    rank == 4 ? r->role == GATE_ROLE_OUTSIDE :
			    rank == 5 ? r->role == GATE_ROLE_DRIFT : r->role == GATE_ROLE_IMPROVED;
		const char *note = r->role == GATE_ROLE_ROOT ? "**root cause**" : gate_role_name(r->role);

		if (!match)
			continue;
		if (!any) {
			e |= pgo_buf_addf(b, "\n**%s**\n\n| function | time | base | head | Δ | Δ rel | 95%% CI | q | |\n"
					     "|---|---|---:|---:|---:|---:|---:|---:|---|\n", title);
			any = 1;
		}
		e |= add_row(b, r, note);
	}
	return e;
}

static int add_drift_frames(struct pgo_buf *b, const struct gate_verdict *v)
{
	size_t i;
	int e = 0;

	if (!v->nr_drift_frames)
		return 0;
	e |= pgo_buf_adds(b, "\nKernel and library frames that grew (folded into the own functions "
			      "that call them; never a root cause):");
	for (i = 0; i < v->nr_drift_frames && i < 5; i++) {
		e |= pgo_buf_adds(b, i ? ", " : " ");
		e |= add_code(b, v->drift_frames[i].name);
		e |= pgo_buf_addf(b, " %+.2f pp", 100 * v->drift_frames[i].delta);
	}
	return e | pgo_buf_adds(b, ".\n");
}

static int add_power(struct pgo_buf *b, const struct gate_verdict *v)
{
	const struct gate_power *p = &v->power[0];
	int e = 0;

	e |= pgo_buf_addf(b, "\n**Power:** with %.0f samples a run and %zu + %zu runs (%s), a function at "
			      "%.1f%% of the time is caught 80%% of the time once it adds %.2f%% of the "
			      "total (%+.0f%% of itself)", v->total_b, v->kb, v->kh,
			  gate_mode_name(v->mode), 100 * p->share, 100 * p->mde, 100 * p->mde / p->share);
	if (v->nr_power > 1) {
		e |= pgo_buf_adds(b, "; ");
		e |= add_code(b, v->power_top);
		e |= pgo_buf_addf(b, " (%.1f%%) once it adds %.2f%%", 100 * v->power[1].share,
				  100 * v->power[1].mde);
	}
	e |= pgo_buf_addf(b, "%s. Smaller changes need more data: twice the runs gives %.2f%%, four "
			      "times the samples a run (a higher `-F` or a longer benchmark) %.2f%%.\n",
			  p->at_floor ? " (set by the floors)" : "", 100 * p->mde_runs2,
			  100 * p->mde_samples4);
	return e;
}

int gate_report_markdown(const struct gate_verdict *v, const char *path)
{
	struct pgo_buf b = PGO_BUF_INIT;
	int e = 0, err;

	if (v->regression)
		e |= pgo_buf_addf(&b, "### :x: pgo gate: regression (%zu root cause%s)\n", v->nr_root,
				  v->nr_root == 1 ? "" : "s");
	else
		e |= pgo_buf_adds(&b, "### :white_check_mark: pgo gate: no regression beyond noise\n");
	e |= pgo_buf_addf(&b, "\n%zu baseline runs vs %zu head runs, %zu functions, %zu tests "
			      "(self and inclusive, Benjamini-Hochberg q ≤ %g; a flag also needs "
			      "≥ %.2g%% of baseline total and ≥ %.3g%% of the function's own time).\n",
			  v->kb, v->kh, v->nr_funcs, v->nr_tests, v->opts.q, 100 * v->opts.abs_floor,
			  100 * v->opts.rel_floor);
	e |= add_power(&b, v);
	e |= add_table(&b, v, 0, "Root causes");
	e |= add_table(&b, v, 1, "Also flagged (inclusive time of a root cause, or its callers)");
	e |= add_table(&b, v, 2, "Code motion (inlining or outlining; not failing)");
	e |= add_table(&b, v, 4, "Not the benchmark's own code (no own caller in its stacks; not failing)");
	e |= add_table(&b, v, 5, "Environment drift (only kernel or library frames below own code grew; not failing)");
	e |= add_table(&b, v, 3, "Improvements");
	e |= add_drift_frames(&b, v);
	if (v->program_valid)
		e |= pgo_buf_addf(&b, "\nProgram %s time per run: %+.2f%% (Welch p = %.3g)%s\n",
				  gate_view_name(v->opts.view), 100 * v->program_rel, v->program.p,
				  v->program_flag ? (v->opts.program_fail ? " — **regression**"
									  : " — slower overall (warning)")
						  : "");
	e |= pgo_buf_adds(&b, "\n<sub>Δ is in percentage points of the baseline's total time; q is the "
			      "false-discovery-adjusted p-value; intervals of flagged rows are false-coverage-rate "
			      "adjusted. Generated by pgo gate.</sub>\n");
	if (e) {
		pgo_buf_release(&b);
		return -1;
	}
	err = pgo_write_file_atomic(path, b.data, b.len);
	pgo_buf_release(&b);
	return err;
}
