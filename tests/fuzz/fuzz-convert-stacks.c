// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: perf.data through the whole stack path of pgo convert (records ->
 * per-process maps, fork/exec, runs -> symbolized stacks -> the stack set), which
 * trusts the reader's records but not their meaning (pids, maps, callchains).
 */
#include <stdint.h>
#include <unistd.h>

#include "convert/profile.h"
#include "convert/stackset.h"
#include "tests/fuzz/memfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct convert_stackset set = CONVERT_STACKSET_INIT;
	struct convert_options o = { 0 };
	struct convert_profile *p = NULL;
	const char *inputs[1];
	char path[64];
	int fd = fuzz_memfile(data, size, path, sizeof(path));

	inputs[0] = path;
	o.inputs = inputs;
	o.nr_inputs = 1;
	o.want_stacks = 1;
	if (convert_profile_load(&o, &p) == 0) {
		if (convert_stackset_from_profile(p, &set) == 0)
			convert_stackset_release(&set);
		convert_profile_free(p);
	}
	close(fd);
	return 0;
}
