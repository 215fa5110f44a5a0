// SPDX-License-Identifier: MIT
/* The wall-clock view: on-CPU stacks + [running], off-CPU stacks with their state leaf. */
#include <string.h>

#include "collect/offcpu.h"
#include "convert/wall.h"
#include "lib/alloc.h"
#include "lib/buf.h"
#include "lib/report.h"

/* Does the folded stack already end in an off-CPU state frame? */
static int has_state_leaf(const char *stack)
{
	const char *leaf = strrchr(stack, ';');
	unsigned int s;

	leaf = leaf ? leaf + 1 : stack;
	for (s = 0; s <= OFFCPU_NR_STATES; s++)
		if (!strcmp(leaf, collect_offcpu_state_frame(s)))
			return 1;
	return 0;
}

static int add_view(const struct convert_stackset *src, const struct convert_run *run, size_t dst_run,
		    enum convert_view view, struct convert_stackset *dst, struct pgo_buf *b)
{
	const struct pgo_u64map *m = &run->weights[view];
	size_t i;

	for (i = 0; i < m->cap; i++) {
		const char *stack;

		if (!m->slots[i].used || !m->slots[i].value)
			continue;
		stack = convert_stackset_stack(src, m->slots[i].key);
		pgo_buf_reset(b);
		if (pgo_buf_adds(b, stack))
			return -1;
		if (view == CONVERT_VIEW_CPU &&
		    (pgo_buf_addch(b, ';') || pgo_buf_adds(b, COLLECT_ONCPU_STATE_FRAME)))
			return -1;
		if (view == CONVERT_VIEW_OFFCPU && !has_state_leaf(stack) &&
		    (pgo_buf_addch(b, ';') || pgo_buf_adds(b, collect_offcpu_state_frame(OFFCPU_NR_STATES))))
			return -1;
		if (convert_stackset_add_folded(dst, dst_run, CONVERT_VIEW_CPU, pgo_buf_str(b),
						m->slots[i].value))
			return -1;
	}
	return 0;
}

static int dup_field(char **dst, const char *src)
{
	return src && !(*dst = pgo_strdup(src)) ? -1 : 0;
}

int convert_stackset_wall(const struct convert_stackset *src, struct convert_stackset *dst)
{
	struct pgo_buf b = PGO_BUF_INIT;
	size_t i;

	convert_stackset_init(dst);
	if (dup_field(&dst->tool, src->tool) || dup_field(&dst->command, src->command) ||
	    dup_field(&dst->binary_path, src->binary_path) || dup_field(&dst->build_id, src->build_id) ||
	    dup_field(&dst->event, src->event))
		goto fail;
	dst->rate_hz = src->rate_hz;
	dst->views = 1u << CONVERT_VIEW_CPU;
	for (i = 0; i < src->nr_runs; i++) {
		const struct convert_run *r = &src->runs[i];
		long k = convert_stackset_add_run(dst, r->run, r->pid);

		if (k < 0)
			goto fail;
		dst->runs[k].duration_ns = r->duration_ns;
		dst->runs[k].samples = r->samples;
		dst->runs[k].lost = r->lost;
		if (add_view(src, r, (size_t)k, CONVERT_VIEW_CPU, dst, &b) ||
		    add_view(src, r, (size_t)k, CONVERT_VIEW_OFFCPU, dst, &b))
			goto fail;
	}
	pgo_buf_release(&b);
	return 0;
fail:
	pgo_buf_release(&b);
	convert_stackset_release(dst);
	return -1;
}
