// SPDX-License-Identifier: MIT
/* Reference-counted arrays shared copy-on-write (lib/cow.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/alloc.h"
#include "lib/cow.h"
#include "lib/report.h"

struct pgo_cow *pgo_cow_share(struct pgo_cow *a)
{
	if (a)
		a->refs++;
	return a;
}

void pgo_cow_release(struct pgo_cow **a)
{
	if (*a && !--(*a)->refs) {
		if ((*a)->budget)
			(*a)->budget->used -= (*a)->alloc;
		free(*a);
	}
	*a = NULL;
}

int pgo_cow_own(struct pgo_cow **a, size_t need, size_t size, struct pgo_cow_budget *budget)
{
	struct pgo_cow *old = *a, *nb;
	size_t nr = pgo_cow_nr(old), alloc;

	if (old && old->refs == 1 && old->alloc >= need)
		return 0;
	/* doubling keeps a run of appends linear; a copy for a sharer gets a little room */
	if (old && old->refs > 1)
		alloc = need + need / 8;
	else
		alloc = need < 2 * nr ? 2 * nr : need;
	if (alloc < 8)
		alloc = 8;
	if (budget && alloc > budget->max - budget->used)
		return -2;
	if (size && alloc > (SIZE_MAX - sizeof(*nb)) / size)
		return pgo_error("out of memory (%zu elements of %zu bytes)", alloc, size);
	nb = pgo_calloc(1, sizeof(*nb) + alloc * size);
	if (!nb)
		return -1;
	nb->refs = 1;
	nb->nr = nr;
	nb->alloc = alloc;
	nb->budget = budget;
	if (budget)
		budget->used += alloc;
	if (nr)
		memcpy(nb->data, old->data, nr * size);
	pgo_cow_release(a);
	*a = nb;
	return 0;
}
