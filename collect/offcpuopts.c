// SPDX-License-Identifier: MIT
/* The off-CPU options shared by pgo collect and pgo gate, and the recorder set up from them. */
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>

#include "collect/collect.h"
#include "collect/offcpu.h"
#include "lib/parse.h"
#include "lib/report.h"

const struct collect_offcpu_optname collect_offcpu_optnames[] = {
	{ "off-cpu", 0 },
	{ "no-off-cpu", 0 },
	{ "off-cpu-stacks", 1 },
	{ "no-off-cpu-callers", 0 },
	{ "off-cpu-min", 1 },
	{ "off-cpu-sample", 1 },
	{ "off-cpu-unwind", 1 },
	{ NULL, 0 },
};

int collect_offcpu_option(struct collect_offcpu_request *req, const char *name, const char *val)
{
	struct collect_offcpu_opts *oo = &req->opts;
	uint64_t v;

	if (!strcmp(name, "off-cpu")) {
		req->mode = 1;
	} else if (!strcmp(name, "no-off-cpu")) {
		req->mode = 0;
	} else if (!strcmp(name, "off-cpu-stacks")) {
		oo->user_stacks = !strcmp(val, "all") || !strcmp(val, "user");
		oo->kernel_stacks = !strcmp(val, "all") || !strcmp(val, "kernel");
		if (!oo->user_stacks && !oo->kernel_stacks && strcmp(val, "none"))
			return pgo_error("invalid off-CPU stacks '%s' (use all, user, kernel or none)", val);
	} else if (!strcmp(name, "no-off-cpu-callers")) {
		oo->find_callers = 0;
	} else if (!strcmp(name, "off-cpu-min")) {
		if (pgo_parse_duration_ns(val, 1000, &oo->min_block_ns))
			return pgo_error("invalid duration '%s' for --off-cpu-min (e.g. 50us, 1ms)", val);
	} else if (!strcmp(name, "off-cpu-unwind")) {
		if (strcmp(val, "dwarf") && strcmp(val, "fp"))
			return pgo_error("invalid off-CPU unwinding '%s' (use dwarf or fp)", val);
		oo->dwarf = !strcmp(val, "dwarf");
	} else if (!strcmp(name, "off-cpu-sample")) {
		if (pgo_parse_u64_range(val, 1, 1000000, &v))
			return pgo_error("invalid sampling factor '%s' for --off-cpu-sample (1..1000000)",
					 val);
		oo->sample_every = (uint32_t)v;
	} else {
		return 0;
	}
	return 1;
}

/* The file execvp would run for cmd (PATH lookup when it has no slash): 0, or -1. */
static int find_in_path(const char *cmd, char *out, size_t len)
{
	const char *path = getenv("PATH"), *p, *colon;
	int w;

	if (strchr(cmd, '/')) {
		w = snprintf(out, len, "%s", cmd);
		return w > 0 && (size_t)w < len && !access(out, X_OK) ? 0 : -1;
	}
	for (p = path ? path : "/usr/bin:/bin"; *p; p = *colon ? colon + 1 : colon) {
		colon = strchrnul(p, ':');
		w = snprintf(out, len, "%.*s/%s", (int)(colon - p), colon == p ? "." : p, cmd);
		if (w > 0 && (size_t)w < len && !access(out, X_OK))
			return 0;
	}
	return -1;
}

/*
 * The loaded recorder and its collect_run() source, both NULL when off-CPU recording is
 * off, or unavailable and not required (then a note was printed).
 */
static int offcpu_setup(const struct collect_offcpu_request *req, const char *bench,
			struct collect_offcpu **offcpu, struct collect_source **src)
{
	struct collect_offcpu_opts opts = req->opts;
	const char *preload[2] = { bench, NULL };
	char why[160];

	*offcpu = NULL;
	*src = NULL;
	if (!req->mode)
		return 0;
	/* explicitly asked for: failing is an error; by default: a one-line note */
	if (collect_offcpu_probe(why, sizeof(why))) {
		if (req->mode > 0)
			return pgo_error("cannot record off-CPU time: %s", why);
		pgo_info("note: on-CPU only, no off-CPU recording: %s", why);
		return 0;
	}
	/* the benchmark's unwind tables (and its libraries') are loaded before it runs */
	opts.preload = bench ? preload : NULL;
	if (collect_offcpu_open(offcpu, &opts)) {
		if (req->mode > 0)
			return -1;
		pgo_info("note: on-CPU only (the off-CPU BPF program did not load; -v shows why)");
		return 0;
	}
	*src = collect_offcpu_source_new(*offcpu);
	if (!*src) {
		collect_offcpu_free(*offcpu);
		*offcpu = NULL;
		return -1;
	}
	return 0;
}

int collect_offcpu_run(struct collect_opts *o, const struct collect_offcpu_request *req,
		       struct collect_result *r, struct collect_offcpu_stats *st, int *recorded)
{
	struct collect_offcpu *offcpu;
	struct collect_source *src;
	int ret;

	*recorded = 0;
	*st = (struct collect_offcpu_stats){ 0 };
	char bench[4096];

	if (offcpu_setup(req, o->attach ? o->attach->exe :
			 o->argv && o->argv[0] && !find_in_path(collect_exec_file(o), bench, sizeof(bench)) ?
			 bench : NULL, &offcpu, &src))
		return -1;
	if (src) {
		o->sources = &src;
		o->nr_sources = 1;
	}
	ret = collect_run(o, r);
	o->sources = NULL;
	o->nr_sources = 0;
	if (offcpu) {
		collect_offcpu_get_stats(offcpu, st);
		*recorded = 1;
	}
	collect_offcpu_source_free(src);
	collect_offcpu_free(offcpu);
	return ret;
}
