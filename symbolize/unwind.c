// SPDX-License-Identifier: MIT
/*
 * DWARF unwinding of sampled user stacks with libdwfl (symbolize/unwind.h). perf builds
 * and throws away a Dwfl for every sample, re-reading every ELF and its CFI; here each
 * address space keeps its Dwfl, shared with the children it forks while their mappings
 * are the same, so the CFI of a file is parsed once and libdw's FDE cache stays warm
 * across samples and processes.
 */
#include <elfutils/libdwfl.h>
#include <dwarf.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "symbolize/unwind.h"
#include "symbolize/unwind_internal.h"
#include "lib/alloc.h"
#include "lib/cow.h"
#include "lib/hashmap.h"
#include "lib/report.h"

/* The DWARF x86-64 numbering libdwfl wants: rax rdx rcx rbx rsi rdi rbp rsp r8..r15 rip */
static const int dwarf_from_perf[17] = {
	PR_AX, PR_DX, PR_CX, PR_BX, PR_SI, PR_DI, PR_BP, PR_SP,
	PR_R8, PR_R8 + 1, PR_R8 + 2, PR_R8 + 3, PR_R8 + 4, PR_R8 + 5, PR_R8 + 6, PR_R8 + 7,
	PR_IP,
};

/* Whether the code at pc (a return address unless activation) has CFI to unwind it. */
static int pc_has_cfi(Dwfl *dwfl, uint64_t pc, int activation)
{
	Dwfl_Module *mod;
	Dwarf_Frame *frame = NULL;
	Dwarf_CFI *cfi;
	Dwarf_Addr bias;

	pc -= activation ? 0 : 1;
	mod = dwfl_addrmodule(dwfl, pc);
	if (!mod)
		return 0;
	cfi = dwfl_module_eh_cfi(mod, &bias);
	if (cfi && !dwarf_cfi_addrframe(cfi, pc - bias, &frame)) {
		free(frame);
		return 1;
	}
	cfi = dwfl_module_dwarf_cfi(mod, &bias);
	if (cfi && !dwarf_cfi_addrframe(cfi, pc - bias, &frame)) {
		free(frame);
		return 1;
	}
	return 0;
}

static int cb_frame(Dwfl_Frame *state, void *arg)
{
	struct symbolize_unwind *u = arg;
	Dwarf_Addr pc;
	bool activation;

	if (!dwfl_frame_pc(state, &pc, &activation))
		return DWARF_CB_ABORT;
	/*
	 * Where the inner frame has no CFI (a stripped .eh_frame, JIT code, an anonymous
	 * mapping), libdwfl falls back to following %rbp, which in code without frame
	 * pointers holds anything: in strict mode that frame is not taken, the stack ends.
	 */
	if (u->strict && u->nout &&
	    !pc_has_cfi(dwfl_thread_dwfl(dwfl_frame_thread(state)), u->out[u->nout - 1].pc,
			u->out[u->nout - 1].activation)) {
		u->no_cfi_stop = 1;
		return DWARF_CB_ABORT;
	}
	if (u->nout == u->max) {
		u->st.too_deep++;
		return DWARF_CB_ABORT;
	}
	u->out[u->nout].pc = pc;
	u->out[u->nout].activation = u->nout == 0 || activation;
	if (u->want_regs && u->nout < PGO_ARRAY_SIZE(u->fr_sp)) {
		Dwarf_Word v;

		u->fr_sp[u->nout] = dwfl_frame_reg(state, 7, &v) == 0 ? v : UINT64_MAX;
		u->fr_bp[u->nout] = dwfl_frame_reg(state, 6, &v) == 0 ? v : UINT64_MAX;
	}
	u->nout++;
	return DWARF_CB_OK;
}

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int unwind_sample(struct symbolize_unwind *u, const struct collect_pd_sample *s,
			 struct symbolize_unwind_frame *frames, size_t max)
{
	uint64_t perf[64] = { 0 }, mask = s->user_regs_mask, have = 0, deep;
	struct uw_space *sp;
	size_t i, k = 0;
	int ret;

	u->end = SYMBOLIZE_UNWIND_NO_REGS;
	if (!s->user_regs || s->user_regs_abi != PERF_SAMPLE_REGS_ABI_64) {
		u->st.no_regs++;
		return 0;
	}
	for (i = 0; i < 64 && k < s->nr_user_regs; i++) {
		if (!(mask & (1ULL << i)))
			continue;
		perf[i] = s->user_regs[k++];
		have |= 1ULL << i;
	}
	if (!(have & (1ULL << PR_SP)) || !(have & (1ULL << PR_IP))) {
		u->st.no_regs++;
		return 0;
	}
	u->st.samples++;
	for (i = 0; i < 17; i++)
		u->regs[i] = perf[dwarf_from_perf[i]];
	u->sp = perf[PR_SP];
	u->stack = s->user_stack;
	u->stack_len = s->user_stack ? s->user_stack_size : 0;
	if (s->user_stack_dyn_size && s->user_stack_dyn_size < u->stack_len)
		u->stack_len = s->user_stack_dyn_size;
	if (s->user_stack_size > u->st.stack_copy)
		u->st.stack_copy = s->user_stack_size;
	u->max_read = 0;
	u->past_stack = 0;
	u->read_failed = 0;
	u->no_cfi_stop = 0;
	u->out = frames;
	u->nout = 0;
	u->max = max;

	sp = uw_space_find(u, s->pid);
	if (sp && !sp->sampled) {
		sp->sampled = 1;
		u->st.processes++;
	}
	if (sp && uw_space_ready(u, sp) < 0)
		return -1;
	if (!sp || !sp->sess || !sp->sess->attached) {
		/* no file mapped: nothing to unwind with, the IP alone */
		frames[0].pc = perf[PR_IP];
		frames[0].activation = 1;
		if (u->want_regs) {
			u->fr_sp[0] = perf[PR_SP];
			u->fr_bp[0] = perf[PR_BP];
		}
		u->end = SYMBOLIZE_UNWIND_CFI;
		u->st.truncated_cfi++;
		u->st.frames++;
		return 1;
	}
	deep = u->st.too_deep;
	ret = dwfl_getthread_frames(sp->sess->dwfl, (pid_t)(s->tid ? s->tid : s->pid), cb_frame, u);
	if (!u->nout) {
		frames[0].pc = perf[PR_IP];
		frames[0].activation = 1;
		u->fr_sp[0] = perf[PR_SP];
		u->fr_bp[0] = perf[PR_BP];
		u->nout = 1;
	}
	/*
	 * libdwfl ends the walk without an error when it cannot read a return address (it
	 * takes that for the end of the stack), so a clean return is complete only if no
	 * read failed on the way.
	 */
	if (ret == 0 && !u->read_failed && !u->no_cfi_stop) {
		u->end = SYMBOLIZE_UNWIND_COMPLETE;
		u->st.complete++;
		if (PGO_ALLOC_GROW(u->needed, u->nr_needed + 1, u->alloc_needed) < 0)
			return -1;
		u->needed[u->nr_needed++] = (uint32_t)(u->max_read < UINT32_MAX ? u->max_read : UINT32_MAX);
		u->needed_sorted = 0;
	} else if (u->st.too_deep != deep) {
		u->end = SYMBOLIZE_UNWIND_TOO_DEEP;
	} else {
		u->end = u->past_stack && !u->no_cfi_stop ? SYMBOLIZE_UNWIND_PAST_STACK :
			 SYMBOLIZE_UNWIND_CFI;
		pgo_debug(2, "unwind: pid %u tid %u: stopped after %zu frames at %#llx: %s", s->pid,
			  s->tid, u->nout, (unsigned long long)u->out[u->nout - 1].pc,
			  ret ? dwfl_errmsg(-1) : "a read failed");
		if (u->past_stack && !u->no_cfi_stop)
			u->st.truncated_stack++;
		else
			u->st.truncated_cfi++;
	}
	u->st.frames += u->nout;
	return (int)u->nout;
}

int symbolize_unwind_sample(struct symbolize_unwind *u, const struct collect_pd_sample *s,
			  struct symbolize_unwind_frame *frames, size_t max)
{
	uint64_t t0 = cpu_ns();
	int nr = unwind_sample(u, s, frames, max);

	u->st.ns += cpu_ns() - t0;
	return nr;
}

void symbolize_unwind_set_strict(struct symbolize_unwind *u, int strict)
{
	u->strict = strict;
}

enum symbolize_unwind_end symbolize_unwind_last_end(const struct symbolize_unwind *u)
{
	return u->end;
}

/* The CFA of frame k (the last one unwound) from its CFI rule: %rbp or %rsp plus an offset. */
static int last_cfa(struct symbolize_unwind *u, uint32_t pid, size_t k, uint64_t *cfa)
{
	struct uw_space *sp = uw_space_find(u, pid);
	uint64_t pc = u->out[k].pc - (u->out[k].activation ? 0 : 1), base;
	Dwarf_Frame *frame = NULL;
	Dwarf_CFI *cfi;
	Dwfl_Module *mod;
	Dwarf_Addr bias;
	Dwarf_Op *ops;
	size_t nops;
	int ret = -1;

	if (!sp || !sp->sess || !sp->sess->dwfl)
		return -1;
	mod = dwfl_addrmodule(sp->sess->dwfl, pc);
	cfi = mod ? dwfl_module_eh_cfi(mod, &bias) : NULL;
	if (!cfi || dwarf_cfi_addrframe(cfi, pc - bias, &frame))
		return -1;
	if (!dwarf_frame_cfa(frame, &ops, &nops) && nops == 1) {
		unsigned int reg = ops[0].atom == DW_OP_bregx ? (unsigned int)ops[0].number :
				   ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31 ?
				   (unsigned int)(ops[0].atom - DW_OP_breg0) : 99;
		int64_t off = ops[0].atom == DW_OP_bregx ? (int64_t)ops[0].number2 :
			      (int64_t)ops[0].number;

		base = reg == 6 ? u->fr_bp[k] : reg == 7 ? u->fr_sp[k] : UINT64_MAX;
		if (base != UINT64_MAX) {
			*cfa = base + (uint64_t)off;
			ret = 0;
		}
	}
	free(frame);
	return ret;
}

/* The stack word at addr from the sample's copy; 0 if outside it. */
static int copy_word(const struct symbolize_unwind *u, uint64_t addr, uint64_t *v)
{
	if (addr < u->sp || addr - u->sp + 8 > u->stack_len || addr % 8)
		return 0;
	memcpy(v, u->stack + (addr - u->sp), 8);
	return 1;
}

/* Frame-pointer walk depth redone inside the copy (it ends at the copy's end anyway). */
#define FP_WALK_MAX 64

int symbolize_unwind_fp_sample(struct symbolize_unwind *u, const struct collect_pd_sample *s,
			       const uint64_t *chain, size_t nr, uint64_t *pcs, size_t max,
			       enum symbolize_unwind_fp_how *how)
{
	struct symbolize_unwind_frame frames[SYMBOLIZE_UNWIND_MAX_FRAMES];
	uint64_t fp[FP_WALK_MAX + 1], t0 = cpu_ns();
	size_t nfp = 0, k, j, n, out = 0;
	long jk = -1, jj = -1;
	int nf, i;

	u->want_regs = 1;
	nf = unwind_sample(u, s, frames, max < PGO_ARRAY_SIZE(frames) ? max : PGO_ARRAY_SIZE(frames));
	u->want_regs = 0;
	if (nf < 0)
		return -1;
	if (nf == 0 || (nf == 1 && u->end != SYMBOLIZE_UNWIND_COMPLETE)) {
		/* no registers, or no CFI for the IP itself: the kernel's walk is all there is */
		*how = nf ? SYMBOLIZE_UNWIND_FP_NO_CFI : SYMBOLIZE_UNWIND_FP_KEPT;
		goto kernel;
	}
	if (u->end == SYMBOLIZE_UNWIND_COMPLETE)
		goto cfi;
	/*
	 * The kernel's walk: fp[0] is the sampled %rbp, chain[j + 1] the word at fp[j] + 8,
	 * fp[j + 1] the word at fp[j]. Redone in the copy to know where each of the
	 * kernel's return addresses was read (only fp[0] is known past the copy).
	 */
	fp[nfp++] = u->fr_bp[0];
	while (nfp < FP_WALK_MAX && nfp < nr) {
		uint64_t next, ra;

		if (!copy_word(u, fp[nfp - 1], &next) || !copy_word(u, fp[nfp - 1] + 8, &ra) ||
		    ra != chain[nfp] || next <= fp[nfp - 1])
			break;
		fp[nfp++] = next;
	}
	/* the outermost CFI frame whose return address sits where the kernel read one */
	for (k = (size_t)nf; k-- > 0 && jk < 0;) {
		uint64_t cfa;

		if (k + 1 < (size_t)nf)
			cfa = u->fr_sp[k + 1];
		else if (last_cfa(u, s->pid, k, &cfa))
			continue;
		if (cfa == UINT64_MAX)
			continue;
		for (j = 0; j < nfp && j + 1 < nr; j++)
			if (cfa - 16 == fp[j] && (k + 1 >= (size_t)nf || frames[k + 1].pc == chain[j + 1])) {
				jk = (long)k;
				jj = (long)j;
				break;
			}
	}
	if (jk < 0) {
		*how = SYMBOLIZE_UNWIND_FP_CUT;
		goto cfi;
	}
	for (i = 0; i <= jk && out < max; i++)
		pcs[out++] = frames[i].pc;
	for (j = (size_t)jj + 1; j < nr && out < max; j++)
		pcs[out++] = chain[j];
	goto same;
cfi:
	for (i = 0; i < nf && out < max; i++)
		pcs[out++] = frames[i].pc;
	if (u->end != SYMBOLIZE_UNWIND_COMPLETE) {
		u->st.ns += cpu_ns() - t0;
		return (int)out;
	}
same:
	*how = SYMBOLIZE_UNWIND_FP_REPAIRED;
	if (out == nr) {
		for (n = 0; n < nr && pcs[n] == chain[n]; n++)
			;
		if (n == nr)
			*how = SYMBOLIZE_UNWIND_FP_KEPT;
	}
	u->st.ns += cpu_ns() - t0;
	return (int)out;
kernel:
	for (n = 0; n < nr && out < max; n++)
		pcs[out++] = chain[n];
	u->st.ns += cpu_ns() - t0;
	return (int)out;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

uint64_t symbolize_unwind_stack_needed(struct symbolize_unwind *u, double pct)
{
	/* ranked: the complete unwinds by bytes, then those cut by the copy (they needed more) */
	uint64_t n = u->nr_needed + u->st.truncated_stack, i;

	if (!n)
		return 0;
	if (!u->needed_sorted && u->nr_needed) {
		qsort(u->needed, u->nr_needed, sizeof(*u->needed), cmp_u32);
		u->needed_sorted = 1;
	}
	/* the rank, 1..n (pct <= 0 is the smallest: no negative double to convert) */
	i = pct <= 0 ? 1 : (uint64_t)(pct / 100.0 * (double)n + 0.999999);
	i = i < 1 ? 1 : i > n ? n : i;
	return i > u->nr_needed ? SYMBOLIZE_UNWIND_PAST_COPY : u->needed[i - 1];
}

/* A percentile of the bytes needed as text: a number, or ">COPY" past the stack copy. */
static const char *needed_str(struct symbolize_unwind *u, double pct, char buf[32])
{
	uint64_t v = symbolize_unwind_stack_needed(u, pct);

	if (v == SYMBOLIZE_UNWIND_PAST_COPY)
		snprintf(buf, 32, ">%llu", (unsigned long long)u->st.stack_copy);
	else
		snprintf(buf, 32, "%llu", (unsigned long long)v);
	return buf;
}

/* Percentage of the complete unwinds that needed at most `bytes` of stack. */
static double fits(struct symbolize_unwind *u, uint64_t bytes)
{
	size_t lo = 0, hi;

	if (!u->nr_needed)
		return 0;
	symbolize_unwind_stack_needed(u, 0); /* sorts */
	hi = u->nr_needed;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (u->needed[mid] <= bytes)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 100.0 * (double)lo / (double)u->nr_needed;
}

void symbolize_unwind_report(struct symbolize_unwind *u, const char *path,
			   struct symbolize_unwind_stats *sum)
{
	const struct symbolize_unwind_stats *st = &u->st;
	uint64_t trunc = st->truncated_stack + st->truncated_cfi + st->too_deep;
	char p50[32], p95[32], pmax[32];

	sum->samples += st->samples;
	sum->complete += st->complete;
	sum->truncated_stack += st->truncated_stack;
	sum->truncated_cfi += st->truncated_cfi;
	sum->too_deep += st->too_deep;
	sum->no_regs += st->no_regs;
	sum->frames += st->frames;
	sum->processes += st->processes;
	sum->dwfl_builds += st->dwfl_builds;
	sum->modules += st->modules;
	sum->debug_files += st->debug_files;
	if (st->max_live_modules > sum->max_live_modules)
		sum->max_live_modules = st->max_live_modules;
	sum->maps_dropped += st->maps_dropped;
	sum->ns += st->ns;
	if (st->stack_copy > sum->stack_copy)
		sum->stack_copy = st->stack_copy;
	if (!st->samples)
		return;
	if (st->maps_dropped)
		pgo_warn("%s: %llu mappings beyond %d in one process (or %zu in all) were not used "
			 "for unwinding (a damaged or hostile file?); stacks through them are "
			 "truncated", path, (unsigned long long)st->maps_dropped,
			 SYMBOLIZE_UNWIND_MAX_MAPS, SYMBOLIZE_UNWIND_MAX_LIVE_MAPS);
	(trunc * 20 > st->samples ? pgo_warn : pgo_info)(
		"%s: unwound %llu user stacks: %llu complete, %llu truncated (%llu past the "
		"%llu-byte stack copy: record with --call-graph dwarf,SIZE; %llu without usable "
		"CFI; %llu deeper than %d frames); stack bytes needed p50 %s, p95 %s, max %s",
		path, (unsigned long long)st->samples, (unsigned long long)st->complete,
		(unsigned long long)trunc, (unsigned long long)st->truncated_stack,
		(unsigned long long)st->stack_copy, (unsigned long long)st->truncated_cfi,
		(unsigned long long)st->too_deep, SYMBOLIZE_UNWIND_MAX_FRAMES, needed_str(u, 50, p50),
		needed_str(u, 95, p95), needed_str(u, 100, pmax));
	pgo_debug(1, "%s: unwinding took %.3f s CPU (%.0f samples/s) for %llu processes with %llu "
		  "Dwfl sessions, %llu modules read (at most %llu at once), %llu separate debug files "
		  "read for .debug_frame, %llu frames; complete unwinds that a copy of "
		  "1/2/4/6/8/16/32 KiB holds: %.1f/%.1f/%.1f/%.1f/%.1f/%.1f/%.1f%%",
		  path, st->ns / 1e9, st->ns ? st->samples * 1e9 / st->ns : 0.0,
		  (unsigned long long)st->processes,
		  (unsigned long long)st->dwfl_builds, (unsigned long long)st->modules,
		  (unsigned long long)st->max_live_modules, (unsigned long long)st->debug_files,
		  (unsigned long long)st->frames, fits(u, 1024), fits(u, 2048), fits(u, 4096), fits(u, 6144),
		  fits(u, 8192), fits(u, 16384), fits(u, 32768));
}
