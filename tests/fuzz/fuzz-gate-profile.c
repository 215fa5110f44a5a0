// SPDX-License-Identifier: MIT
/*
 * Fuzz the gate's profile reader (a PR author controls the head profile and can tamper
 * with notes) and, for inputs it accepts, the whole comparison of the profile with itself.
 */
#include <stddef.h>
#include <stdint.h>

#include "gate/compare.h"
#include "gate/profile.h"
#include "lib/report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pgo_strtab names = PGO_STRTAB_INIT;
	struct gate_profile *p = NULL;
	struct gate_verdict *v = NULL;
	struct gate_opts o = GATE_OPTS_INIT;

	pgo_report_set_verbosity(-1);
	if (!gate_profile_parse((const char *)data, size, "fuzz", &names, &p) && p->nr_runs >= 2) {
		o.allow_other_binary = 1;
		if (!gate_compare(p, p, &o, &v) && v->regression)
			PGO_BUG("a profile regressed against itself");
	}
	gate_verdict_free(v);
	gate_profile_free(p);
	pgo_strtab_release(&names);
	return 0;
}
