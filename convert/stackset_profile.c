// SPDX-License-Identifier: MIT
/* Fill the stack set model from a loaded perf.data profile (convert/stacks.h). */
#include <stdlib.h>

#include "convert/stacks.h"
#include "convert/stackset.h"
#include "lib/alloc.h"
#include "lib/report.h"

struct fill_ctx {
	struct convert_stackset *set;
	const char **names;
	size_t alloc;
	const char *last_name, *last_dso;
};

static int add_stack(const struct convert_stack *st, void *data)
{
	struct fill_ctx *c = data;
	enum convert_view view = st->view == CONVERT_STACK_OFFCPU ? CONVERT_VIEW_OFFCPU
								 : CONVERT_VIEW_CPU;
	size_t i;

	if (!st->nr_frames || !st->weight_ns)
		return 0;
	if (st->run >= c->set->nr_runs)
		PGO_BUG("stack of run %u, profile has %zu runs", st->run, c->set->nr_runs);
	if (PGO_ALLOC_GROW(c->names, st->nr_frames, c->alloc))
		return -1;
	for (i = 0; i < st->nr_frames; i++) {
		const struct convert_frame *f = &st->frames[i];

		c->names[i] = f->name;
		/* the same frames recur in many stacks; skip the one just noted */
		if (f->dso && (f->name != c->last_name || f->dso != c->last_dso)) {
			if (convert_stackset_add_frame_dso(c->set, f->name, f->dso, f->own))
				return -1;
			c->last_name = f->name;
			c->last_dso = f->dso;
		}
	}
	return convert_stackset_add(c->set, st->run, view, c->names, st->nr_frames, st->weight_ns);
}

int convert_stackset_from_profile(struct convert_profile *p, struct convert_stackset *set)
{
	const struct convert_info *in = convert_profile_info(p);
	struct fill_ctx c = { set, NULL, 0, NULL, NULL };
	size_t i, nr = convert_profile_nr_runs(p);
	int err;

	set->tool = pgo_strdup("pgo " PGO_VERSION);
	if (!set->tool || (in->command && !(set->command = pgo_strdup(in->command))) ||
	    (in->event && !(set->event = pgo_strdup(in->event))))
		goto fail;
	set->rate_hz = in->rate_hz;
	if (convert_profile_nr_binaries(p)) {
		const char *bid = convert_profile_binary_build_id(p, 0);

		set->binary_path = pgo_strdup(convert_profile_binary_path(p, 0));
		if (!set->binary_path || (*bid && !(set->build_id = pgo_strdup(bid))))
			goto fail;
	}
	if (in->has_offcpu)
		set->views |= 1u << CONVERT_VIEW_OFFCPU;
	for (i = 0; i < nr; i++) {
		const struct convert_run_info *ri = convert_profile_run_info(p, i);
		long r = convert_stackset_add_run(set, ri->index, ri->pid);

		if (r < 0)
			goto fail;
		set->runs[r].duration_ns = ri->end_ns > ri->start_ns ? ri->end_ns - ri->start_ns : 0;
		set->runs[r].cpu_ns = ri->cpu_ns;
		set->runs[r].offcpu_ns = ri->offcpu_ns;
		set->runs[r].samples = ri->samples;
		set->runs[r].lost = ri->lost;
	}
	err = convert_stacks_foreach(p, add_stack, &c);
	free(c.names);
	if (err)
		goto fail;
	return 0;
fail:
	convert_stackset_release(set);
	return -1;
}
