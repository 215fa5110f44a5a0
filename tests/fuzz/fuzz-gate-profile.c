// SPDX-License-Identifier: MIT
/* libFuzzer target: the gate's profile reader (gate/profile.h), fed baselines from PRs. */
#include <stdint.h>

#include "gate/profile.h"
#include "lib/hashmap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pgo_strtab names = PGO_STRTAB_INIT;
	struct gate_profile *p = NULL;

	if (gate_profile_parse((const char *)data, size, "fuzz.json", &names, &p) == 0)
		gate_profile_free(p);
	pgo_strtab_release(&names);
	return 0;
}
