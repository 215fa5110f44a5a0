// SPDX-License-Identifier: MIT
/* pgo convert --to folded|svg|json: options and output of the stack-set writers. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cmd/builtin.h"
#include "cmd/convert_render.h"
#include "convert/flamegraph.h"
#include "convert/folded.h"
#include "convert/input.h"
#include "convert/profile_json.h"
#include "convert/wall.h"
#include "lib/atomicfile.h"
#include "lib/buf.h"
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
		o->wall = !strcmp(arg, "wall");
		if (o->wall)
			o->view = CONVERT_VIEW_CPU;
		else if (convert_view_parse(arg, &o->view))
			return pgo_error("--view: expected cpu, offcpu or wall, not '%s'", arg);
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

/* The wall view is a derived set drawn as its CPU view; the profile JSON keeps both views. */
static int write_wall(const struct convert_stackset *set, const struct cmd_render_opts *o)
{
	struct convert_stackset wall = CONVERT_STACKSET_INIT;
	struct cmd_render_opts wo = *o;
	int err;

	if (!strcmp(o->to, "json"))
		return pgo_error("--view wall draws folded stacks or svg; the profile JSON always keeps "
				 "the cpu and offcpu views apart");
	if (!(set->views & (1u << CONVERT_VIEW_OFFCPU)))
		pgo_warn("the profile has no off-CPU data (pgo collect --off-cpu): the wall view is the "
			 "CPU view");
	if (convert_stackset_wall(set, &wall))
		return -1;
	wo.wall = 0;
	if (!wo.title)
		wo.title = "Wall-clock time (on-CPU and off-CPU)";
	err = cmd_render_write(&wall, &wo);
	convert_stackset_release(&wall);
	return err;
}

int cmd_render_write(const struct convert_stackset *set, const struct cmd_render_opts *o)
{
	struct pgo_atomic_file af = PGO_ATOMIC_FILE_INIT;
	long run = -1;
	size_t i;
	int err;

	if (o->wall)
		return write_wall(set, o);
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
		struct pgo_buf sub = PGO_BUF_INIT;

		fl.view = o->view;
		fl.run = run;
		fl.title = o->title;
		fl.subtitle = o->subtitle;
		fl.minwidth = o->minwidth;
		/* say what the picture is of, so a file found later explains itself */
		if (!fl.subtitle) {
			pgo_buf_addf(&sub, "%s time", o->view == CONVERT_VIEW_OFFCPU ? "off-CPU" : "on-CPU");
			if (set->command)
				pgo_buf_addf(&sub, " of '%.100s'", set->command);
			if (run >= 0)
				pgo_buf_addf(&sub, ", run %ld", o->run);
			else
				pgo_buf_addf(&sub, ", %zu run%s", set->nr_runs, set->nr_runs == 1 ? "" : "s");
			if (set->event)
				pgo_buf_addf(&sub, ", %s", set->event);
			fl.subtitle = pgo_buf_str(&sub);
		}
		err = convert_flamegraph_write(af.fp, set, &fl);
		pgo_buf_release(&sub);
	} else if (!strcmp(o->to, "json")) {
		err = convert_profile_json_write(af.fp, set);
	} else {
		PGO_BUG("format '%s' is not rendered here", o->to);
	}
	if (err && !ferror(af.fp)) {
		pgo_atomic_abort(&af);
		return -1;
	}
	/* on a write error, commit reports it with the file name and removes the temp file */
	return pgo_atomic_commit(&af) || err ? -1 : 0;
}

int cmd_render_run(struct convert_options *co, const struct cmd_render_opts *o)
{
	struct convert_stackset set = CONVERT_STACKSET_INIT;
	size_t i, nr_json = 0;
	int ret = PGO_EXIT_ERROR;

	for (i = 0; i < co->nr_inputs; i++)
		nr_json += convert_input_kind(co->inputs[i]) == CONVERT_INPUT_PROFILE_JSON;
	if (nr_json && nr_json != co->nr_inputs) {
		pgo_error("cannot mix profile JSON and perf.data inputs");
		return PGO_EXIT_USAGE;
	}
	if (!convert_input_load_stacks(co, nr_json ? CONVERT_INPUT_PROFILE_JSON : CONVERT_INPUT_PERF_DATA,
				       &set) &&
	    !cmd_render_write(&set, o))
		ret = PGO_EXIT_OK;
	convert_stackset_release(&set);
	return ret;
}
