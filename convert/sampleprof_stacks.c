// SPDX-License-Identifier: MIT
/*
 * What a recording's branch records (LBR) and call stacks add to the sample profile: the
 * counts of whole ranges, call targets, and inline instances of hot calls.
 */
#include <stdlib.h>

#include "convert/sampleprof_internal.h"
#include "lib/alloc.h"
#include "lib/report.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

struct points {
	uint64_t *v;
	size_t nr, alloc;
};

static int add_point(uint64_t addr, void *data)
{
	struct points *pt = data;

	if (PGO_ALLOC_GROW_UNINIT(pt->v, pt->nr + 1, pt->alloc) < 0)
		return -1;
	pt->v[pt->nr++] = addr;
	return 0;
}

/*
 * LBR: every straight-line range [begin, end] ran `count` times. The execution count
 * of an instruction is the sum over the ranges that cover it; it is constant between
 * consecutive "points" (range begins and line-table rows), so summing per point and
 * taking the per-line MAX (add_count) gives autofdo's per-line counts.
 */
int sp_expand_ranges(struct builder *B)
{
	struct convert_binary *b = B->bin;
	struct pgo_u64map funcs = PGO_U64MAP_INIT, acc = PGO_U64MAP_INIT;
	struct points pt = { NULL, 0, 0 };
	size_t i, k, n;
	int err = -1;

	for (i = 0; i < b->ranges.nr; i++) {
		struct symbolize_sym sym = symbolize_symtab_lookup(b->st, b->ranges.e[i].a);

		if (add_point(b->ranges.e[i].a, &pt) < 0)
			goto out;
		if (sym.sym_size && !pgo_u64map_find(&funcs, sym.sym_start)) {
			if (pgo_u64map_put(&funcs, sym.sym_start, sym.sym_size) < 0 ||
			    symbolize_symtab_foreach_line_addr(b->st, sym.sym_start, sym.sym_size,
							     add_point, &pt))
				goto out;
		}
	}
	if (pt.nr > 1)
		qsort(pt.v, pt.nr, sizeof(*pt.v), cmp_u64);
	for (i = n = 0; i < pt.nr; i++)
		if (!n || pt.v[n - 1] != pt.v[i])
			pt.v[n++] = pt.v[i];
	pt.nr = n;
	for (i = 0; i < b->ranges.nr; i++) {
		const struct pair_ent *r = &b->ranges.e[i];
		size_t lo = 0, hi = pt.nr;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (pt.v[mid] < r->a)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (k = lo; k < pt.nr && pt.v[k] <= r->b; k++) {
			uint64_t *v;

			if (pgo_u64map_get(&acc, pt.v[k], &v) < 0)
				goto out;
			*v += r->count;
		}
	}
	for (i = 0; i < acc.cap; i++) {
		const struct pgo_u64map_slot *s = &acc.slots[i];
		struct symbolize_sym sym;
		struct sp_fn *top;

		if (!s->used)
			continue;
		if (sp_add_count(B, s->key, s->value, &top) < 0)
			goto out;
		sym = symbolize_symtab_lookup(b->st, s->key);
		if (top && sym.sym_size && pgo_u64map_put(&B->sampled, sym.sym_start, sym.sym_size) < 0)
			goto out;
	}
	err = 0;
out:
	free(pt.v);
	pgo_u64map_release(&funcs);
	pgo_u64map_release(&acc);
	return err;
}

/*
 * LBR call edges: a taken branch to a function's first instruction is a call; its count
 * is an exact entry count (head) and, at the call site, a call target.
 */
int sp_lbr_calls(struct builder *B, struct pgo_u64map *heads)
{
	struct convert_binary *b = B->bin;
	size_t i;

	for (i = 0; i < b->branches.nr; i++) {
		const struct pair_ent *e = &b->branches.e[i];
		struct symbolize_sym callee = symbolize_symtab_lookup(b->st, e->b);
		uint32_t name;
		uint64_t *v;

		if (callee.sym_name == SYMBOLIZE_NO_NAME || callee.sym_start != e->b)
			continue;
		name = sp_base_name_id(B, callee.sym_name);
		if (pgo_u64map_get(heads, e->b, &v) < 0)
			return -1;
		*v += e->count;
		if (sp_add_target(B, e->a, name, e->count) < 0)
			return -1;
	}
	return 0;
}

/*
 * Entry i of two pair maps read as one sequence: frame-pointer edges first, then the
 * DWARF-unwound ones (*unwound set).
 */
static const struct pair_ent *pair_at(const struct pairmap *fp, const struct pairmap *dw, size_t i,
				      int *unwound)
{
	*unwound = i >= fp->nr;
	return *unwound ? &dw->e[i - fp->nr] : &fp->e[i];
}

/*
 * Call stacks without LBR: the return addresses say which function each call site
 * reached. Counts are samples (time spent below the call), not calls, so they only
 * rank the targets of indirect calls, which is what gcc uses them for.
 */
int sp_stack_targets(struct builder *B)
{
	struct convert_binary *b = B->bin;
	size_t i;

	for (i = 0; i < b->calls.nr + b->ucalls.nr; i++) {
		int unwound;
		const struct pair_ent *e = pair_at(&b->calls, &b->ucalls, i, &unwound);
		struct symbolize_sym callee;

		/* a function without a frame hides its caller from frame-pointer stacks (not CFI) */
		if (!symbolize_symtab_is_indirect_call(b->st, e->a) ||
		    (!unwound && !symbolize_symtab_frame_ready(b->st, e->b)))
			continue;
		callee = symbolize_symtab_lookup(b->st, e->b);
		if (callee.sym_name == SYMBOLIZE_NO_NAME)
			continue;
		if (sp_add_target(B, e->a - 1, sp_base_name_id(B, callee.sym_name), e->count) < 0)
			return -1;
	}
	return 0;
}

struct site {
	uint64_t callee, ret;          /* callee symbol start, return address in the caller */
	uint64_t samples;              /* stack samples through this call site into callee */
};

/* by call site, then callee: the targets of one call site are adjacent */
static int cmp_site(const void *a, const void *b)
{
	const struct site *x = a, *y = b;

	if (x->ret != y->ret)
		return x->ret < y->ret ? -1 : 1;
	return x->callee < y->callee ? -1 : x->callee > y->callee;
}

/*
 * Entry counts from call stacks without LBR. A function runs its entry once per call,
 * and each call executes the caller's call line once, so the sum over the call sites
 * the stacks show of the caller's count for the call line estimates the entry count in
 * the units of the body counts. The stack samples themselves are not used as counts:
 * they measure time below the call, not calls. An indirect call's line count is shared
 * among the targets the stacks show in proportion to their samples through it (the
 * only split the stacks give): giving each the whole line would give every one of
 * newlisp's primitives, called from one line of its evaluator, that line's count as head.
 * heads: callee start -> estimate.
 */
int sp_stack_heads(struct builder *B, struct pgo_u64map *heads)
{
	struct convert_binary *b = B->bin;
	struct site *v;
	size_t i, j, n = 0, m;
	int err = -1;

	v = pgo_calloc(b->calls.nr + b->ucalls.nr + 1, sizeof(*v));
	if (!v)
		return -1;
	for (i = 0; i < b->calls.nr + b->ucalls.nr; i++) {
		int unwound;
		const struct pair_ent *e = pair_at(&b->calls, &b->ucalls, i, &unwound);
		struct symbolize_sym callee;

		/* frame-pointer stacks skip the caller of a function that has no frame yet */
		if (!unwound && !symbolize_symtab_frame_ready(b->st, e->b))
			continue;
		callee = symbolize_symtab_lookup(b->st, e->b);
		if (callee.sym_name == SYMBOLIZE_NO_NAME || !e->a)
			continue;
		v[n].callee = callee.sym_start;
		v[n].samples = e->count;
		v[n++].ret = e->a;
	}
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_site);
	/* one entry per (call site, callee), samples summed */
	for (i = m = 0; i < n; i++) {
		if (m && v[i].callee == v[m - 1].callee && v[i].ret == v[m - 1].ret)
			v[m - 1].samples += v[i].samples;
		else
			v[m++] = v[i];
	}
	for (i = 0; i < m; i = j) {
		struct symbolize_sym caller;
		const uint64_t *top_idx;
		uint64_t c, total = 0, *h;
		size_t k;

		for (j = i; j < m && v[j].ret == v[i].ret; j++)
			total += v[j].samples;
		caller = symbolize_symtab_lookup(b->st, v[i].ret - 1);
		if (caller.sym_name == SYMBOLIZE_NO_NAME)
			continue;
		top_idx = pgo_u64map_find(&B->by_name, caller.sym_name);
		if (!top_idx)
			continue;
		c = sp_count_at(B, B->sp->fns[*top_idx - 1], v[i].ret - 1);
		for (k = i; c && k < j; k++) {
			uint64_t share = j - i > 1 && total ? (c * v[k].samples + total / 2) / total : c;

			if (!share)
				continue;
			if (pgo_u64map_get(heads, v[k].callee, &h) < 0)
				goto out;
			*h += share;
		}
	}
	err = 0;
out:
	free(v);
	return err;
}

/*
 * Inline instances from call stacks (gcc only; docs/convert.md "Inline instances from
 * call stacks"). gcc 12 early-inlines a call regardless of size when the caller's
 * profile has an inline instance for (call line, callee) with a hot total
 * (autofdo-gcc12-format.md §5), so only what the profiled binary already inlined gets
 * that chance. A leaf edge (return address, sampled IP) says through which call site
 * a sample of the callee came: for a hot direct call to a small function (or an indirect
 * call whose dominant target it is), the callee's samples through that call site become
 * an instance of it at the call line, nested in the call address's inline chain, with the
 * conventions of a top-level function (MAX per line, explicit zeros, total = sum). The
 * callee's top-level profile is unchanged: if gcc does not inline, the out-of-line body
 * keeps its counts.
 */
/*
 * Hot: 0.2% of the binary's samples through one call site (jq: 18 of 9478 samples; its
 * stack_push/stack_pop call sites in jq_next have 21 to 108). Small: the size limit comes
 * from the options (docs/convert.md: what instrumented PGO inlines in jq).
 */
#define SP_INLINE_HOT_PER_MILLION 2000

struct leaf {
	uint64_t callee, ret, ip, count;   /* callee symbol start, return address, sampled IP */
};

static int cmp_leaf(const void *a, const void *b)
{
	const struct leaf *x = a, *y = b;

	if (x->callee != y->callee)
		return x->callee < y->callee ? -1 : 1;
	if (x->ret != y->ret)
		return x->ret < y->ret ? -1 : 1;
	return x->ip < y->ip ? -1 : x->ip > y->ip;
}

/* Is the instruction that ends at ret a direct call (E8 rel32) to target? */
static int calls_directly(const struct symbolize_symtab *st, uint64_t ret, uint64_t target)
{
	uint8_t c[5];
	uint32_t rel;

	if (ret < sizeof(c) || symbolize_symtab_read(st, ret - sizeof(c), c, sizeof(c)) < 0 || c[0] != 0xe8)
		return 0;
	rel = (uint32_t)c[1] | (uint32_t)c[2] << 8 | (uint32_t)c[3] << 16 | (uint32_t)c[4] << 24;
	return ret + (uint64_t)(int64_t)(int32_t)rel == target;
}

/* A callee address with a line, i.e. one add_path can place. */
static int has_line(const struct symbolize_sym *sym)
{
	return sym->sym_name != SYMBOLIZE_NO_NAME && sym->nr_frames && sym->frames[sym->nr_frames - 1].line;
}

/*
 * The instance of `callee` at the call line of ret - 1 in an already sampled caller,
 * created with its path; `total` is added to every level above it. NULL if the caller
 * is not in the profile (or on allocation failure, *err set).
 */
static struct sp_fn *caller_instance(struct builder *B, uint64_t ret, uint32_t callee, uint64_t total,
				     int *err)
{
	struct symbolize_sym sym = symbolize_symtab_lookup(B->bin->st, ret - 1);
	const uint64_t *idx;
	struct sp_fn *f;
	uint32_t i;

	if (!has_line(&sym) || !(idx = pgo_u64map_find(&B->by_name, sym.sym_name)))
		return NULL;
	f = B->sp->fns[*idx - 1];
	for (i = 0; i + 1 < sym.nr_frames && f; i++) {
		f->total += total;
		f = sp_callee_get(B->sp, f, frame_offset(B->sp, &sym.frames[i]), sym.frames[i + 1].name);
	}
	if (f) {
		size_t had = f->nr_cs;
		struct sp_fn *caller = f;

		f->total += total;
		f = sp_callee_get(B->sp, f, frame_offset(B->sp, &sym.frames[sym.nr_frames - 1]), callee);
		/* an instance the binary already had stays a real one */
		if (f && caller->nr_cs > had)
			f->from_stacks = 1;
	}
	if (!f)
		*err = -1;
	return f;
}

struct inst_zero {
	struct builder *B;
	struct sp_fn *inst;
	uint64_t callee;
};

static int add_inst_zero(const struct symbolize_sym *sym, void *data)
{
	struct inst_zero *z = data;

	if (!has_line(sym) || sym->sym_start != z->callee)
		return 0;
	return sp_add_path(z->B, z->inst, sym, 0, 0);
}

/*
 * Indirect calls (x86-64 FF /2). gcc 12 promotes an indirect call to a guarded direct
 * call and inlines it before annotation (afdo_vpt_for_early_inline) when the call line
 * has inline instances: the one with the largest total names the target, which must be
 * defined in the translation unit. It refuses when the line's count is below half the
 * sum of the line's call targets ("not hot anymore": in a profile of a binary that had
 * promoted the call, the targets left are the ones it did not inline).
 */

/*
 * The call-target record of the indirect call that returns to ret, if callee has at least
 * half of its targets' stack samples (ipa-profile speculates on no less either), else
 * NULL. The record was filled by stack_targets from all stack levels.
 */
static struct sp_pos *icall_dominant(struct builder *B, uint64_t ret, uint32_t callee)
{
	struct symbolize_sym sym = symbolize_symtab_lookup(B->bin->st, ret - 1);
	struct sp_pos *pos;
	uint64_t sum = 0, mine = 0;
	size_t k;

	if (!has_line(&sym) || !pgo_u64map_find(&B->by_name, sym.sym_name))
		return NULL;
	pos = sp_pos_of(B, ret - 1);
	if (!pos)
		return NULL;
	for (k = 0; k < pos->nr_targets; k++) {
		sum += pos->targets[k].count;
		if (pos->targets[k].name == callee)
			mine = pos->targets[k].count;
	}
	return mine && mine >= sum - mine ? pos : NULL;
}

/*
 * The targets count stack samples below the call (time), the line counts samples at
 * the line: scale the targets, ratios kept, so that they sum to at most 2 * count + 1 and
 * gcc's "not hot anymore" test (count < sum / 2) lets the instance through.
 */
static void icall_scale(struct sp_pos *pos)
{
	uint64_t sum = 0, cap = 2 * pos->count + 1;
	size_t k, top = 0;

	for (k = 0; k < pos->nr_targets; k++) {
		sum += pos->targets[k].count;
		if (pos->targets[k].count > pos->targets[top].count)
			top = k;
	}
	if (sum <= cap)
		return;
	for (k = 0; k < pos->nr_targets; k++)
		pos->targets[k].count = (uint64_t)((unsigned __int128)pos->targets[k].count * cap / sum);
	/*
	 * A call line with no sample of its own (cap 1) rounds every target down to 0, and gcc
	 * promotes no target of count 0: the largest target (still the largest after scaling)
	 * keeps 1; all others are 0 then, so the sum stays within cap.
	 */
	if (!pos->targets[top].count)
		pos->targets[top].count = 1;
}

/*
 * One (callee, call site) group of leaf edges: an instance if hot and, at an indirect
 * call, the callee is the dominant target. Returns 1 if made.
 */
static int inline_edge(struct builder *B, const struct leaf *v, size_t n, uint64_t min, int indirect)
{
	struct symbolize_symtab *st = B->bin->st;
	struct symbolize_sym sym;
	struct sp_pos *site = NULL;
	struct inst_zero z;
	uint64_t total = 0;
	size_t i;
	int err = 0;

	for (i = 0; i < n; i++) {
		sym = symbolize_symtab_lookup(st, v[i].ip);
		if (has_line(&sym))
			total += v[i].count;
	}
	if (total < min)
		return 0;
	sym = symbolize_symtab_lookup(st, v[0].callee);
	if (sym.sym_name == SYMBOLIZE_NO_NAME)
		return 0;
	if (indirect && !(site = icall_dominant(B, v[0].ret, sp_base_name_id(B, sym.sym_name)))) {
		pgo_debug(2, "no inline instance: %s at %#llx is not the dominant target of the indirect call",
			  convert_str(B->p, sym.sym_name), (unsigned long long)v[0].ret);
		return 0;
	}
	pgo_debug(2, "inline instance: %s (%llu bytes) at %#llx%s, %llu samples",
		  convert_str(B->p, sym.sym_name), (unsigned long long)sym.sym_size,
		  (unsigned long long)v[0].ret, indirect ? " (indirect call)" : "",
		  (unsigned long long)total);
	z.B = B;
	z.callee = v[0].callee;
	z.inst = caller_instance(B, v[0].ret, sp_base_name_id(B, sym.sym_name), total, &err);
	if (!z.inst)
		return err;
	for (i = 0; i < n; i++) {
		sym = symbolize_symtab_lookup(st, v[i].ip);
		/* frames[0] is the callee itself: the instance stands for it */
		if (has_line(&sym) && sp_add_path(B, z.inst, &sym, 0, v[i].count) < 0)
			return -1;
	}
	sym = symbolize_symtab_lookup(st, z.callee);
	if (symbolize_symtab_foreach_line(st, z.callee, sym.sym_size, add_inst_zero, &z))
		return -1;
	if (site)
		icall_scale(site);
	return 1;
}

int sp_stack_inline(struct builder *B)
{
	struct convert_binary *b = B->bin;
	uint64_t max_size = B->p->inline_max_size;
	uint64_t min = b->samples * SP_INLINE_HOT_PER_MILLION / 1000000;
	size_t i, j, n = 0, made = 0, made_indirect = 0;
	struct leaf *v;
	int err = -1, ret;

	if (!max_size || B->sp->discr == SP_DISCR_LLVM)
		return 0;
	v = pgo_calloc(b->leaf_calls.nr + b->leaf_ucalls.nr + 1, sizeof(*v));
	if (!v)
		return -1;
	for (i = 0; i < b->leaf_calls.nr + b->leaf_ucalls.nr; i++) {
		int unwound;
		const struct pair_ent *e = pair_at(&b->leaf_calls, &b->leaf_ucalls, i, &unwound);
		struct symbolize_sym callee, caller;
		uint64_t start;

		/* a frame-pointer chain names the caller's caller while the callee has no frame */
		if (!e->a || (!unwound && !symbolize_symtab_frame_ready(b->st, e->b)))
			continue;
		callee = symbolize_symtab_lookup(b->st, e->b);
		if (callee.sym_name == SYMBOLIZE_NO_NAME || !callee.sym_size || callee.sym_size > max_size)
			continue;
		start = callee.sym_start;
		caller = symbolize_symtab_lookup(b->st, e->a - 1);
		/*
		 * recursion, and tail calls (the call names another function); an indirect
		 * call's target is the leaf unless it was reached by a tail call (NEEDSWORK:
		 * indistinguishable here)
		 */
		if (caller.sym_name == SYMBOLIZE_NO_NAME || caller.sym_start == start ||
		    (!calls_directly(b->st, e->a, start) && !symbolize_symtab_is_indirect_call(b->st, e->a)))
			continue;
		v[n].callee = start;
		v[n].ret = e->a;
		v[n].ip = e->b;
		v[n++].count = e->count;
	}
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_leaf);
	for (i = 0; i < n; i = j) {
		int indirect = !calls_directly(b->st, v[i].ret, v[i].callee);

		for (j = i + 1; j < n && v[j].callee == v[i].callee && v[j].ret == v[i].ret; j++)
			;
		ret = inline_edge(B, v + i, j - i, min > 2 ? min : 2, indirect);
		if (ret < 0)
			goto out;
		made += ret;
		if (indirect)
			made_indirect += ret;
	}
	pgo_debug(1, "%zu inline instances from call stacks, %zu at indirect calls (callees <= %llu bytes, >= %llu samples)",
		  made, made_indirect, (unsigned long long)max_size, (unsigned long long)(min > 2 ? min : 2));
	err = 0;
out:
	free(v);
	return err;
}
