// SPDX-License-Identifier: MIT
/* The gate's verdict policy: what fails, and the confirmation stage. */
#include <string.h>

#include "gate/verdict.h"
#include "lib/report.h"

const char *gate_verdict_status(const struct gate_verdict *v)
{
	return v->regression ? "regression" : "pass";
}

int gate_verdict_wants_confirmation(const struct gate_verdict *v)
{
	return v->regression;
}

int gate_verdict_confirms(const struct gate_verdict *first, const struct gate_verdict *second)
{
	size_t i, j;

	for (i = 0; i < first->nr_results; i++) {
		const struct gate_result *a = &first->results[i];

		if (!a->root_cause)
			continue;
		for (j = 0; j < second->nr_results; j++) {
			const struct gate_result *b = &second->results[j];

			if (b->root_cause && b->kind == a->kind && !strcmp(a->name, b->name))
				return 1;
		}
	}
	return 0;
}

int gate_confirm(const struct gate_profile *base, const struct gate_profile *head,
		 const struct gate_profile *head2, const struct gate_opts *o,
		 const struct gate_verdict *first, struct gate_verdict **out)
{
	return gate_confirm_both(base, NULL, head, head2, o, first, out);
}

int gate_confirm_both(const struct gate_profile *base, const struct gate_profile *base2,
		      const struct gate_profile *head, const struct gate_profile *head2,
		      const struct gate_opts *o, const struct gate_verdict *first,
		      struct gate_verdict **out)
{
	struct gate_profile *ball = NULL, *hall = NULL;
	struct gate_verdict *v;
	int err;

	*out = NULL;
	if (gate_profile_merge(head, head2, &hall))
		return -1;
	if (base2 && gate_profile_merge(base, base2, &ball)) {
		gate_profile_free(hall);
		return -1;
	}
	err = gate_compare(ball ? ball : base, hall, o, &v);
	gate_profile_free(ball);
	gate_profile_free(hall);
	if (err)
		return -1;
	if (v->regression && !gate_verdict_confirms(first, v)) {
		/* Another function flagged this time: report it, but an unconfirmed flag does not fail. */
		v->regression = 0;
		pgo_warn("inconclusive, not reproduced: the confirmation flagged other functions");
	} else if (!v->regression) {
		pgo_warn("inconclusive, not reproduced: the confirmation runs did not show the "
			 "stage-1 regression");
	}
	*out = v;
	return 0;
}
