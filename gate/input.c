// SPDX-License-Identifier: MIT
/* The gate's inputs: perf.data symbolized through convert, or profile JSON, as a stack set. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convert/pprof_read.h"
#include "convert/profile.h"
#include "convert/profile_json.h"
#include "gate/input.h"
#include "lib/alloc.h"
#include "lib/atomicfile.h"
#include "lib/report.h"

#define INPUT_MAX_BYTES (1UL << 30)

int gate_input_is_perf_data(const char *path)
{
	char magic[8];
	FILE *f;
	int r;

	if (convert_pprof_is(path))
		return 1;
	f = fopen(path, "rb");
	if (!f)
		return 0;
	r = fread(magic, 1, sizeof(magic), f) == sizeof(magic) && !memcmp(magic, "PERFILE2", 8);
	fclose(f);
	return r;
}

static int copy_str(char **dst, const char *src)
{
	if (!src)
		return 0;
	*dst = pgo_strdup(src);
	return *dst ? 0 : -1;
}

static int copy_meta(const struct convert_stackset *in, struct convert_stackset *out)
{
	size_t i;

	if (copy_str(&out->tool, in->tool) || copy_str(&out->command, in->command) ||
	    copy_str(&out->binary_path, in->binary_path) || copy_str(&out->build_id, in->build_id) ||
	    copy_str(&out->event, in->event))
		return -1;
	out->rate_hz = in->rate_hz;
	out->views = in->views;
	for (i = 0; i < in->frame_dsos.cap; i++) {
		const struct pgo_u64map_slot *sl = &in->frame_dsos.slots[i];
		size_t d = (size_t)(sl->key >> 32);

		if (sl->used &&
		    convert_stackset_add_frame_dso(out, pgo_strtab_str(&in->frame_names,
								       (size_t)(sl->key & 0xffffffffu)),
						   pgo_strtab_str(&in->dsos, d), in->dso_own[d]))
			return -1;
	}
	return 0;
}

/*
 * out = in with stack ids in the order of in's profile JSON read back: run by run, the
 * cpu then the offcpu stacks of the run sorted by folded string (convert's writer),
 * zero weights left out.
 */
static int canonical_copy(const struct convert_stackset *in, struct convert_stackset *out)
{
	size_t r, i;
	int v;

	if (copy_meta(in, out))
		return -1;
	for (r = 0; r < in->nr_runs; r++) {
		const struct convert_run *ir = &in->runs[r];
		long o = convert_stackset_add_run(out, ir->run, ir->pid);

		if (o < 0)
			return -1;
		out->runs[o].duration_ns = ir->duration_ns;
		/* the JSON always carries the totals; 0 means "sum of the stacks" */
		out->runs[o].cpu_ns = ir->cpu_ns ? ir->cpu_ns : convert_run_total(ir, CONVERT_VIEW_CPU);
		out->runs[o].offcpu_ns = ir->offcpu_ns ? ir->offcpu_ns :
				convert_run_total(ir, CONVERT_VIEW_OFFCPU);
		out->runs[o].samples = ir->samples;
		out->runs[o].lost = ir->lost;
		for (v = 0; v < CONVERT_VIEW_NR; v++) {
			struct convert_stack_weight *sw;
			size_t nr;
			int err = 0;

			if (!(in->views & (1u << v)))
				continue;
			if (convert_stackset_collect(in, (enum convert_view)v, (long)r, &sw, &nr))
				return -1;
			for (i = 0; i < nr && !err; i++)
				err = convert_stackset_add_folded(out, (size_t)o, (enum convert_view)v,
								  convert_stackset_stack(in, sw[i].stack),
								  sw[i].weight);
			free(sw);
			if (err)
				return -1;
		}
	}
	return 0;
}

int gate_input_from_perf(const char *path, struct convert_stackset *set)
{
	return gate_input_from_perfs(&path, 1, set);
}

int gate_input_from_perfs(const char *const *paths, size_t n, struct convert_stackset *set)
{
	struct convert_options o = { .inputs = paths, .nr_inputs = n, .want_stacks = 1 };
	const char *path = paths[0];
	struct convert_stackset raw = CONVERT_STACKSET_INIT;
	struct convert_profile *p = NULL;
	int err = -1;

	if (convert_profile_load(&o, &p) < 0)
		return -1;
	if (convert_stackset_from_profile(p, &raw))
		goto out;
	if (!raw.nr_runs) {
		pgo_error("'%s' has no runs (no samples recorded)", path);
		goto out;
	}
	err = canonical_copy(&raw, set);
out:
	if (err)
		convert_stackset_release(set);
	convert_stackset_release(&raw);
	convert_profile_free(p);
	return err;
}

int gate_input_load(const char *path, struct convert_stackset *set)
{
	char *data;
	size_t len;
	int err;

	if (gate_input_is_perf_data(path)) {
		if (gate_input_from_perf(path, set))
			return pgo_error("cannot read perf.data '%s' as a gate input", path);
		return 0;
	}
	if (pgo_read_file(path, INPUT_MAX_BYTES, &data, &len))
		return -1;
	err = convert_profile_json_parse(data, len, path, set);
	free(data);
	return err;
}

int gate_input_to_json(const struct convert_stackset *set, const char *what, char **text)
{
	size_t len = 0;
	FILE *fp;
	int err;

	*text = NULL;
	fp = open_memstream(text, &len);
	if (!fp)
		return pgo_error_errno("cannot buffer the profile of %s", what);
	err = convert_profile_json_write(fp, set);
	if (err && ferror(fp))
		pgo_error("cannot buffer the profile of %s", what);
	if (fclose(fp) && !err)
		err = pgo_error("cannot buffer the profile of %s", what);
	if (err) {
		free(*text);
		*text = NULL;
	}
	return err;
}
