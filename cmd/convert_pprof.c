// SPDX-License-Identifier: MIT
/* pgo convert --to pprof: load the stacks, name the threads, write the gzipped profile. */
#include <stdlib.h>
#include <string.h>

#include "cmd/builtin.h"
#include "cmd/convert_pprof.h"
#include "convert/input.h"
#include "convert/pprof.h"
#include "convert/profile.h"
#include "convert/threads.h"
#include "lib/alloc.h"
#include "lib/report.h"

/* Thread names from the first input's COMM records (none for other inputs' threads). */
static int thread_names(const char *path, struct convert_thread_time **tt, size_t *nr,
			struct convert_pprof_thread **out)
{
	struct convert_thread_summary sum;
	size_t i;

	*out = NULL;
	if (convert_thread_times(path, tt, nr, &sum) < 0)
		return -1;
	*out = pgo_calloc(*nr + 1, sizeof(**out));
	if (!*out)
		return -1;
	for (i = 0; i < *nr; i++) {
		(*out)[i].pid = (*tt)[i].pid;
		(*out)[i].tid = (*tt)[i].tid;
		(*out)[i].name = (*tt)[i].comm;
	}
	return 0;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

int cmd_convert_pprof(struct convert_options *o, const char *out)
{
	struct convert_profile *p = NULL;
	struct convert_thread_time *tt = NULL;
	struct convert_pprof_opts po = { NULL, 0 };
	struct convert_pprof_thread *names = NULL;
	struct convert_pprof_summary s;
	char *def = NULL;
	size_t nr = 0;
	int ret = PGO_EXIT_ERROR;

	o->want_stacks = 1;
	if (convert_profile_load(o, &p) < 0)
		goto out;
	/* names come from perf.data's COMM records; a pprof input has its own labels only */
	if (convert_input_kind(o->inputs[0]) == CONVERT_INPUT_PERF_DATA &&
	    thread_names(o->inputs[0], &tt, &nr, &names) < 0)
		goto out;
	po.threads = names;
	po.nr_threads = nr;
	if (!out) {
		const char *bin = convert_profile_nr_binaries(p) ? convert_profile_binary_path(p, 0) : "pgo";

		def = malloc(strlen(base_name(bin)) + 8);
		if (!def) {
			pgo_error("out of memory");
			goto out;
		}
		sprintf(def, "%s.pb.gz", base_name(bin));
		out = def;
	}
	if (convert_pprof_write(p, &po, out, &s) < 0)
		goto out;
	pgo_info("%s: pprof, %llu samples, %llu locations, %llu functions, %llu mappings", out,
		 (unsigned long long)s.samples, (unsigned long long)s.locations,
		 (unsigned long long)s.functions, (unsigned long long)s.mappings);
	ret = PGO_EXIT_OK;
out:
	free(def);
	free(names);
	free(tt);
	convert_profile_free(p);
	return ret;
}
