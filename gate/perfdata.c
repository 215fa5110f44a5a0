// SPDX-License-Identifier: MIT
/* perf.data -> profile JSON text (via convert's stacks API), and in-process collection. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "collect/collect.h"
#include "convert/profile.h"
#include "convert/stacks.h"
#include "gate/perfdata.h"
#include "lib/alloc.h"
#include "lib/buf.h"
#include "lib/report.h"

int gate_is_perf_data(const char *path)
{
	char magic[8];
	FILE *f = fopen(path, "rb");
	int r;

	if (!f)
		return 0;
	r = fread(magic, 1, sizeof(magic), f) == sizeof(magic) && !memcmp(magic, "PERFILE2", 8);
	fclose(f);
	return r;
}

struct stacks_ctx {
	json_t **cpu, **off;   /* per run: stack -> ns objects (borrowed from the runs array) */
	size_t nr_runs;
	struct pgo_buf key;
};

static int add_stack(const struct convert_stack *st, void *data)
{
	struct stacks_ctx *c = data;
	json_t *obj, *old;
	size_t i;

	if (st->run >= c->nr_runs || !st->weight_ns)
		return 0;
	pgo_buf_reset(&c->key);
	for (i = 0; i < st->nr_frames; i++) {
		const char *n = st->frames[i].name ? st->frames[i].name : "[unknown]";

		if (i && pgo_buf_addch(&c->key, ';'))
			return -1;
		/* ';' separates frames in the folded key; never let a name split itself. */
		for (; *n; n++)
			if (pgo_buf_addch(&c->key, *n == ';' ? ':' : *n))
				return -1;
	}
	if (!st->nr_frames && pgo_buf_adds(&c->key, "[unknown]"))
		return -1;
	obj = st->view == CONVERT_STACK_OFFCPU ? c->off[st->run] : c->cpu[st->run];
	/* Stacks are aggregated per pid/tid too: sum them per run. */
	old = json_object_get(obj, c->key.data);
	if (json_object_set_new(obj, c->key.data,
				json_integer((json_int_t)(st->weight_ns +
							  (old ? (uint64_t)json_integer_value(old) : 0)))))
		return pgo_error("out of memory");
	return 0;
}

static int set(json_t *o, const char *k, json_t *v)
{
	return v ? json_object_set_new(o, k, v) : -1;
}

int gate_perf_to_json(const char *path, char **text)
{
	struct convert_options o = { .inputs = &path, .nr_inputs = 1, .want_stacks = 1 };
	struct stacks_ctx c = { .key = PGO_BUF_INIT };
	struct convert_profile *p = NULL;
	const struct convert_info *info;
	json_t *root = NULL, *runs, *bin, *views;
	size_t i;
	int e = 0, err = -1;
	double rate;

	*text = NULL;
	if (convert_profile_load(&o, &p) < 0)
		return -1;
	info = convert_profile_info(p);
	c.nr_runs = convert_profile_nr_runs(p);
	if (!c.nr_runs) {
		pgo_error("'%s' has no runs (no samples recorded)", path);
		goto out;
	}
	c.cpu = pgo_calloc(c.nr_runs, sizeof(*c.cpu));
	c.off = pgo_calloc(c.nr_runs, sizeof(*c.off));
	root = json_object();
	runs = json_array();
	bin = json_object();
	views = json_array();
	if (!c.cpu || !c.off || !root || !runs || !bin || !views) {
		json_decref(runs);
		json_decref(bin);
		json_decref(views);
		pgo_error("out of memory");
		goto out;
	}
	rate = info->rate_hz ? (double)info->rate_hz : info->period ? 1e9 / (double)info->period : 0;
	e |= set(root, "format", json_string("pgo-profile"));
	e |= set(root, "version", json_integer(1));
	e |= set(root, "tool", json_string("pgo " PGO_VERSION));
	if (info->command)
		e |= set(root, "command", json_string(info->command));
	e |= set(bin, "path", json_string(convert_profile_nr_binaries(p) ?
						 convert_profile_binary_path(p, 0) : "[unknown]"));
	if (convert_profile_nr_binaries(p))
		e |= set(bin, "build_id", json_string(convert_profile_binary_build_id(p, 0)));
	e |= json_object_set_new(root, "binary", bin);
	e |= set(root, "event", json_string(info->event ? info->event : "unknown"));
	e |= set(root, "rate_hz", json_real(rate));
	e |= set(root, "unit", json_string("ns"));
	e |= json_array_append_new(views, json_string("cpu"));
	if (info->has_offcpu)
		e |= json_array_append_new(views, json_string("offcpu"));
	e |= json_object_set_new(root, "views", views);
	for (i = 0; i < c.nr_runs && !e; i++) {
		const struct convert_run_info *ri = convert_profile_run_info(p, i);
		json_t *run = json_object();

		c.cpu[i] = json_object();
		c.off[i] = json_object();
		if (!run || !c.cpu[i] || !c.off[i]) {
			json_decref(run);
			json_decref(c.cpu[i]);
			json_decref(c.off[i]);
			e = -1;
			break;
		}
		e |= set(run, "run", json_integer((json_int_t)ri->index));
		e |= set(run, "pid", json_integer((json_int_t)ri->pid));
		e |= set(run, "duration_ns", json_integer((json_int_t)(ri->end_ns - ri->start_ns)));
		e |= set(run, "cpu_ns", json_integer((json_int_t)ri->cpu_ns));
		e |= set(run, "offcpu_ns", json_integer((json_int_t)ri->offcpu_ns));
		e |= set(run, "samples", json_integer((json_int_t)ri->samples));
		e |= set(run, "lost", json_integer((json_int_t)ri->lost));
		/* The run keeps a reference; c.cpu/c.off stay borrowed for filling. */
		e |= json_object_set(run, "cpu", c.cpu[i]);
		e |= json_object_set(run, "offcpu", c.off[i]);
		json_decref(c.cpu[i]);
		json_decref(c.off[i]);
		e |= json_array_append_new(runs, run);
	}
	e |= json_object_set_new(root, "runs", runs);
	if (e) {
		pgo_error("out of memory");
		goto out;
	}
	if (convert_stacks_foreach(p, add_stack, &c) < 0)
		goto out;
	*text = json_dumps(root, JSON_COMPACT);
	if (!*text) {
		pgo_error("out of memory");
		goto out;
	}
	err = 0;
out:
	json_decref(root);
	free(c.cpu);
	free(c.off);
	pgo_buf_release(&c.key);
	convert_profile_free(p);
	return err;
}

int gate_collect_json(const struct gate_collect_opts *opts, char **text)
{
	struct collect_opts o = { 0 };
	struct collect_result r = { 0 };
	char dir[] = "/tmp/pgo-gate.XXXXXX", data[sizeof(dir) + 16];
	int err = -1;

	*text = NULL;
	if (!mkdtemp(dir))
		return pgo_error_errno("cannot create a temporary directory");
	snprintf(data, sizeof(data), "%s/pgo.data", dir);
	o.argv = opts->argv;
	o.output = data;
	o.freq = opts->freq;
	o.callgraph = COLLECT_CALLGRAPH_FP;
	o.runs = opts->runs;
	o.argc_self = opts->argc_self;
	o.argv_self = opts->argv_self;
	if (collect_run(&o, &r))
		goto out;
	if (r.interrupted) {
		pgo_error("the collection was interrupted after %u of %u runs", r.runs, opts->runs);
		goto out;
	}
	if (r.exit_code) {
		pgo_error("the benchmark '%s' failed (exit status %d); the gate judges only clean runs",
			  opts->argv[0], r.exit_code);
		goto out;
	}
	if (r.lost || r.lost_samples)
		pgo_warn("lost %llu records and %llu samples (the profile under-counts; try a lower -F)",
			 (unsigned long long)r.lost, (unsigned long long)r.lost_samples);
	pgo_info("collected %u runs, %llu samples (%s @ %u Hz, %.2f s CPU)", r.runs,
		 (unsigned long long)r.samples, r.event, r.freq, r.cpu_ns / 1e9);
	err = gate_perf_to_json(data, text);
out:
	unlink(data);
	rmdir(dir);
	return err;
}
