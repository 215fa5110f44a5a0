// SPDX-License-Identifier: MIT
/* perf.data -> profile JSON text (via convert's stacks API). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	return gate_perfs_to_json(&path, 1, text);
}

int gate_perfs_to_json(const char *const *paths, size_t n, char **text)
{
	struct convert_options o = { .inputs = paths, .nr_inputs = n, .want_stacks = 1 };
	const char *path = paths[0];
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
