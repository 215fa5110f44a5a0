// SPDX-License-Identifier: MIT
/* pgo gate's collections: N runs under the collector, symbolized for the gate. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cmd/gate_collect.h"
#include "collect/callgraph.h"
#include "collect/collect.h"
#include "collect/offcpu.h"
#include "gate/input.h"
#include "lib/report.h"
#include "symbolize/fpcensus.h"
#include "symbolize/unwindhook.h"

int cmd_gate_collect_data(const struct cmd_gate_collect_opts *opts, const char *data,
			  struct cmd_gate_collect_stats *stats)
{
	struct collect_opts o = { 0 };
	struct collect_result r = { 0 };
	int offcpu, ran;
	struct collect_offcpu_stats st;
	struct symbolize_unwind_hook *hook;
	struct collect_unwinder unwinder;
	char why[160];
	int err = -1;

	o.argv = opts->argv;
	o.file = opts->file;
	o.output = data;
	o.freq = opts->freq;
	/*
	 * The stacks pgo collect records by default (fp with repair, or dwarf-unwound): the
	 * gate folds library and kernel frames into the own function that called them, so
	 * a frame-pointer walk that stops in libc would leave that time without its caller.
	 */
	o.callgraph = symbolize_callgraph_auto(collect_exec_file(&o), why, sizeof(why));
	o.callgraph_why = why;
	if (symbolize_unwind_hook_new(&hook, &unwinder))
		goto out;
	o.unwinder = &unwinder;
	o.runs = opts->runs;
	o.argc_self = opts->argc_self;
	o.argv_self = opts->argv_self;
	ran = collect_offcpu_run(&o, &opts->offcpu, &r, &st, &offcpu);
	symbolize_unwind_hook_free(hook);
	if (ran)
		goto out;
	if (r.interrupted) {
		pgo_error("the collection was interrupted after %u of %u runs", r.runs, opts->runs);
		goto out;
	}
	if (r.exit_code) {
		pgo_error("the benchmark '%s' failed (exit status %d); the gate judges only clean runs",
			  collect_exec_file(&o), r.exit_code);
		goto out;
	}
	if (r.lost || r.lost_samples)
		pgo_warn("lost %llu records and %llu samples (the profile under-counts; try a lower -F)",
			 (unsigned long long)r.lost, (unsigned long long)r.lost_samples);
	if (!opts->quiet)
		pgo_info("collected %u runs, %llu samples (%s @ %u Hz, %s stacks, %.2f s CPU)", r.runs,
			 (unsigned long long)r.samples, r.event, r.freq,
			 collect_callgraph_name(r.callgraph), r.cpu_ns / 1e9);
	if (stats)
		*stats = (struct cmd_gate_collect_stats){ r.runs, r.samples, r.cpu_ns, r.duration_ns };
	if (offcpu) {
		if (!opts->quiet)
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
	err = 0;
out:
	if (err)
		unlink(data);
	return err;
}

int cmd_gate_collect(const struct cmd_gate_collect_opts *opts, struct convert_stackset *set)
{
	char dir[] = "/tmp/pgo-gate.XXXXXX", data[sizeof(dir) + 16];
	int err;

	if (!mkdtemp(dir))
		return pgo_error_errno("cannot create a temporary directory");
	snprintf(data, sizeof(data), "%s/pgo.data", dir);
	err = cmd_gate_collect_data(opts, data, NULL);
	if (!err)
		err = gate_input_from_perf(data, set);
	unlink(data);
	rmdir(dir);
	return err;
}
