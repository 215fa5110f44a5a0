// SPDX-License-Identifier: MIT
/* perf.data -> profile JSON text (via convert's stacks API), and in-process collection. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collect/collect.h"
#include "collect/offcpu.h"
#include "convert/profile.h"
#include "convert/profile_json.h"
#include "convert/stackset.h"
#include "gate/perfdata.h"
#include "lib/alloc.h"
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

int gate_perf_to_json(const char *path, char **text)
{
	struct convert_options o = { .inputs = &path, .nr_inputs = 1, .want_stacks = 1 };
	struct convert_stackset set = CONVERT_STACKSET_INIT;
	struct convert_profile *p = NULL;
	size_t len = 0;
	FILE *fp = NULL;
	int err = -1;

	*text = NULL;
	if (convert_profile_load(&o, &p) < 0)
		return -1;
	if (convert_stackset_from_profile(p, &set))
		goto out;
	if (!set.nr_runs) {
		pgo_error("'%s' has no runs (no samples recorded)", path);
		goto out;
	}
	fp = open_memstream(text, &len);
	if (!fp) {
		pgo_error_errno("cannot buffer the profile of '%s'", path);
		goto out;
	}
	err = convert_profile_json_write(fp, &set);
	if (err && ferror(fp))
		pgo_error("cannot buffer the profile of '%s'", path);
	if (fclose(fp) && !err)
		err = pgo_error("cannot buffer the profile of '%s'", path);
out:
	if (err) {
		free(*text);
		*text = NULL;
	}
	convert_stackset_release(&set);
	convert_profile_free(p);
	return err;
}

int gate_collect_json(const struct gate_collect_opts *opts, char **text)
{
	struct collect_opts o = { 0 };
	struct collect_result r = { 0 };
	int offcpu;
	struct collect_offcpu_stats st;
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
	if (collect_offcpu_run(&o, &opts->offcpu, &r, &st, &offcpu))
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
	if (offcpu) {
		pgo_info("off-CPU: %.2f s in %llu samples; %llu intervals under --off-cpu-min, "
			 "%llu switch-outs sampled out", st.total_ns / 1e9,
			 (unsigned long long)st.samples, (unsigned long long)st.k.short_blocks,
			 (unsigned long long)st.k.sampled_out);
		if (st.k.ustack_dropped || st.k.kstack_dropped || st.k.map_full || st.k.storage_failed ||
		    st.k.tgid_full)
			pgo_warn("off-CPU losses: %llu user stacks, %llu kernel stacks, %llu map-full, "
				 "%llu no storage, %llu unfollowed forks (the offcpu view under-counts)",
				 (unsigned long long)st.k.ustack_dropped,
				 (unsigned long long)st.k.kstack_dropped,
				 (unsigned long long)st.k.map_full,
				 (unsigned long long)st.k.storage_failed,
				 (unsigned long long)st.k.tgid_full);
	}
	err = gate_perf_to_json(data, text);
out:
	unlink(data);
	rmdir(dir);
	return err;
}
