// SPDX-License-Identifier: MIT
/* pgo convert --to folded|svg|json: options and output of the stack-set writers. */
#include <getopt.h>
#include <stdint.h>
#include <string.h>

#include "cmd/convert_render.h"
#include "convert/flamegraph.h"
#include "convert/folded.h"
#include "convert/profile_json.h"
#include "lib/atomicfile.h"
#include "lib/parse.h"
#include "lib/report.h"

int cmd_render_handles(const char *fmt)
{
	return !strcmp(fmt, "folded") || !strcmp(fmt, "svg") || !strcmp(fmt, "json");
}

int cmd_render_parse_opt(struct cmd_render_opts *o, int opt, const char *arg)
{
	uint64_t u;
	double d;

	switch (opt) {
	case CMD_RENDER_OPT_VIEW:
		if (convert_view_parse(arg, &o->view))
			return pgo_error("--view: expected cpu or offcpu, not '%s'", arg);
		return 1;
	case CMD_RENDER_OPT_RUN:
		if (pgo_parse_u64_range(arg, 0, INT32_MAX, &u))
			return pgo_error("--run: expected a run number, not '%s'", arg);
		o->run = (long)u;
		return 1;
	case CMD_RENDER_OPT_TITLE:
		o->title = arg;
		return 1;
	case CMD_RENDER_OPT_SUBTITLE:
		o->subtitle = arg;
		return 1;
	case CMD_RENDER_OPT_MINWIDTH:
		if (pgo_parse_double(arg, 0, &d) || d < 0 || d > 1000)
			return pgo_error("--minwidth: expected pixels between 0 and 1000, not '%s'", arg);
		o->minwidth = d;
		return 1;
	case CMD_RENDER_OPT_HEADER:
		o->header = 1;
		return 1;
	}
	return 0;
}

int cmd_render_write(const struct convert_stackset *set, const struct cmd_render_opts *o)
{
	struct pgo_atomic_file af = PGO_ATOMIC_FILE_INIT;
	long run = -1;
	size_t i;
	int err;

	/* --run names the run number of the collection; the writers take an index */
	if (o->run >= 0) {
		for (i = 0; i < set->nr_runs && set->runs[i].run != (uint64_t)o->run; i++)
			;
		if (i == set->nr_runs)
			return pgo_error("no run %ld in the profile (it has %zu runs)", o->run,
					 set->nr_runs);
		run = (long)i;
	}
	if (pgo_atomic_open(&af, o->output ? o->output : "-"))
		return -1;
	if (!strcmp(o->to, "folded")) {
		struct convert_folded_opts fo = CONVERT_FOLDED_OPTS_INIT;

		fo.view = o->view;
		fo.run = run;
		fo.header = o->header;
		err = convert_folded_write(af.fp, set, &fo);
	} else if (!strcmp(o->to, "svg")) {
		struct convert_flame_opts fl = CONVERT_FLAME_OPTS_INIT;

		fl.view = o->view;
		fl.run = run;
		fl.title = o->title;
		fl.subtitle = o->subtitle;
		fl.minwidth = o->minwidth;
		err = convert_flamegraph_write(af.fp, set, &fl);
	} else if (!strcmp(o->to, "json")) {
		err = convert_profile_json_write(af.fp, set);
	} else {
		PGO_BUG("format '%s' is not rendered here", o->to);
	}
	if (err) {
		pgo_atomic_abort(&af);
		return -1;
	}
	return pgo_atomic_commit(&af);
}
