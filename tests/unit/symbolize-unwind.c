// SPDX-License-Identifier: MIT
/*
 * Unit tests of DWARF unwinding (symbolize/unwind.h) and of the call-graph options
 * (collect/callgraph.h). The unwinding cases capture this very process's registers and
 * stack inside a known chain unwind_f1 -> unwind_f2 -> unwind_f3, as perf's
 * dwarf-unwind test does, and check the unwinder finds the recorded return addresses.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "collect/callgraph.h"
#include "symbolize/fpcensus.h"
#include "symbolize/unwind.h"
#include "lib/report.h"
#include "test.h"

static uint64_t ret_addr[3];      /* return address of f1, f2, f3 (into their callers) */
static uint64_t cap_sp, cap_bp, cap_ip;
static uint64_t stack_copy[2048];
static size_t stack_len;

static uint64_t stack_top(void)
{
	FILE *fp = fopen("/proc/self/maps", "re");
	char line[512];
	uint64_t a, b, top = 0;

	if (!fp)
		return 0;
	while (fgets(line, sizeof(line), fp))
		if (strstr(line, "[stack]") && sscanf(line, "%" SCNx64 "-%" SCNx64, &a, &b) == 2)
			top = b;
	fclose(fp);
	return top;
}

/* Word copy of the live stack above sp: redzones of other frames are read on purpose. */
__attribute__((noinline, no_sanitize_address)) static void copy_stack(uint64_t sp)
{
	const volatile uint64_t *src = (const volatile uint64_t *)(uintptr_t)sp;
	uint64_t top = stack_top();
	size_t i, n = sizeof(stack_copy);

	if (top > sp && top - sp < n)
		n = (size_t)(top - sp);
	for (i = 0; i < n / 8; i++)
		stack_copy[i] = src[i];
	stack_len = n & ~(size_t)7;
}

__attribute__((noinline)) static int unwind_f3(int x)
{
	ret_addr[2] = (uint64_t)(uintptr_t)__builtin_return_address(0);
	/* the registers at label 1, whose CFI describes this frame */
	__asm__ volatile("movq %%rsp, %0\n\t"
			 "movq %%rbp, %1\n\t"
			 "leaq 1f(%%rip), %2\n"
			 "1:\n"
			 : "=r"(cap_sp), "=r"(cap_bp), "=r"(cap_ip));
	copy_stack(cap_sp);
	__asm__ volatile("" : "+r"(x) : : "memory");
	return x + 1;
}

__attribute__((noinline)) static int unwind_f2(int x)
{
	int r;

	ret_addr[1] = (uint64_t)(uintptr_t)__builtin_return_address(0);
	r = unwind_f3(x * 2);
	__asm__ volatile("" : "+r"(r));
	return r + 1;
}

__attribute__((noinline)) static int unwind_f1(int x)
{
	int r;

	ret_addr[0] = (uint64_t)(uintptr_t)__builtin_return_address(0);
	r = unwind_f2(x + 3);
	__asm__ volatile("" : "+r"(r));
	return r + 1;
}

/* Executable file mappings of this process, as MMAP2 records would give them. */
static int add_own_maps(struct symbolize_unwind *u, uint32_t pid)
{
	FILE *fp = fopen("/proc/self/maps", "re");
	char line[1024], perm[8], path[512];
	uint64_t a, b, off;
	int n = 0;

	if (!fp)
		return -1;
	while (fgets(line, sizeof(line), fp)) {
		path[0] = '\0';
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*s %*s %511s", &a, &b, perm,
			   &off, path) < 4 || perm[2] != 'x' || path[0] != '/')
			continue;
		if (symbolize_unwind_mmap(u, pid, a, b - a, off, path) < 0) {
			fclose(fp);
			return -1;
		}
		n++;
	}
	fclose(fp);
	return n;
}

static struct collect_pd_sample make_sample(uint64_t *regs, size_t stack_bytes, uint32_t pid)
{
	struct collect_pd_sample s;

	memset(&s, 0, sizeof(s));
	memset(regs, 0, 20 * sizeof(*regs));
	/* perf's order for mask 0xff0fff: AX BX CX DX SI DI BP SP IP FLAGS CS SS R8..R15 */
	regs[6] = cap_bp;
	regs[7] = cap_sp;
	regs[8] = cap_ip;
	s.sample_type = PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	s.pid = pid;
	s.tid = (uint32_t)getpid();
	s.ip = cap_ip;
	s.user_regs_abi = PERF_SAMPLE_REGS_ABI_64;
	s.user_regs_mask = COLLECT_DWARF_REGS_X86_64;
	s.nr_user_regs = 20;
	s.user_regs = regs;
	s.user_stack = stack_copy;
	s.user_stack_size = stack_bytes;
	s.user_stack_dyn_size = stack_bytes;
	return s;
}

/* An address where nothing of this process is mapped (below the 47-bit user limit). */
#define FAR_AWAY 0x700000000000ULL

static int check_chain(const struct symbolize_unwind_frame *f, int nr)
{
	T_ASSERT(nr >= 4);
	T_ASSERT_EQ_U64(f[0].pc, cap_ip);
	T_ASSERT(f[0].activation);
	T_ASSERT_EQ_U64(f[1].pc, ret_addr[2]);
	T_ASSERT_EQ_U64(f[2].pc, ret_addr[1]);
	T_ASSERT_EQ_U64(f[3].pc, ret_addr[0]);
	T_ASSERT(!f[1].activation && !f[2].activation && !f[3].activation);
	return T_OK;
}

static int test_unwind_self(void)
{
	struct symbolize_unwind_frame frames[SYMBOLIZE_UNWIND_MAX_FRAMES];
	const struct symbolize_unwind_stats *st;
	struct symbolize_unwind *u;
	struct collect_pd_sample s;
	uint64_t regs[20];
	uint32_t pid = (uint32_t)getpid(), child = pid + 100000;
	char exe[512];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	uint64_t mods;
	int nr = 0, ret = T_FAIL;

	T_ASSERT(len > 0);
	exe[len] = '\0';

	T_ASSERT(unwind_f1(1) == 2 * (1 + 3) + 3);
	T_ASSERT(stack_len >= 256);
	T_ASSERT(symbolize_unwind_new(&u) == 0);
	if (add_own_maps(u, pid) < 1)
		goto out;
	st = symbolize_unwind_stats(u);

	/* the whole copy: the chain, and the same Dwfl for a second sample */
	s = make_sample(regs, stack_len, pid);
	nr = symbolize_unwind_sample(u, &s, frames, SYMBOLIZE_UNWIND_MAX_FRAMES);
	if (check_chain(frames, nr) != T_OK)
		goto out;
	nr = symbolize_unwind_sample(u, &s, frames, SYMBOLIZE_UNWIND_MAX_FRAMES);
	if (check_chain(frames, nr) != T_OK || st->dwfl_builds != 1 || st->samples != 2)
		goto out;

	/* a forked process starts with its parent's mappings, and unwinds with its Dwfl */
	if (symbolize_unwind_fork(u, child, pid) < 0)
		goto out;
	s = make_sample(regs, stack_len, child);
	nr = symbolize_unwind_sample(u, &s, frames, SYMBOLIZE_UNWIND_MAX_FRAMES);
	if (check_chain(frames, nr) != T_OK || st->dwfl_builds != 1 || st->processes != 2)
		goto out;
	mods = st->modules;

	/* a file that the child alone maps: a Dwfl of its own; the parent keeps its one */
	if (symbolize_unwind_mmap(u, child, FAR_AWAY, 4096, 0, exe) < 0)
		goto out;
	nr = symbolize_unwind_sample(u, &s, frames, SYMBOLIZE_UNWIND_MAX_FRAMES);
	if (check_chain(frames, nr) != T_OK || st->dwfl_builds != 2 || st->modules <= mods)
		goto out;
	s = make_sample(regs, stack_len, pid);
	nr = symbolize_unwind_sample(u, &s, frames, SYMBOLIZE_UNWIND_MAX_FRAMES);
	if (check_chain(frames, nr) != T_OK || st->dwfl_builds != 2)
		goto out;

	/* a second child shares too, and keeps the Dwfl when the parent maps a file, exits */
	if (symbolize_unwind_fork(u, child + 1, pid) < 0)
		goto out;
	if (symbolize_unwind_mmap(u, pid, FAR_AWAY, 4096, 0, exe) < 0)
		goto out;
	symbolize_unwind_exit(u, pid);
	s = make_sample(regs, stack_len, child + 1);
	nr = symbolize_unwind_sample(u, &s, frames, SYMBOLIZE_UNWIND_MAX_FRAMES);
	if (check_chain(frames, nr) != T_OK || st->dwfl_builds != 2 || st->processes != 3)
		goto out;
	/* the parent's late sample: its mappings now differ from the child's, its own Dwfl */
	s = make_sample(regs, stack_len, pid);
	nr = symbolize_unwind_sample(u, &s, frames, SYMBOLIZE_UNWIND_MAX_FRAMES);
	if (check_chain(frames, nr) != T_OK || st->dwfl_builds != 3)
		goto out;

	/* a copy that stops inside unwind_f3's frame: truncated, counted as such */
	s = make_sample(regs, 8, pid);
	nr = symbolize_unwind_sample(u, &s, frames, SYMBOLIZE_UNWIND_MAX_FRAMES);
	if (nr < 1 || nr >= 4 || frames[0].pc != cap_ip || st->truncated_stack != 1)
		goto out;

	/* no registers: nothing to unwind */
	s = make_sample(regs, stack_len, pid);
	s.user_regs_abi = PERF_SAMPLE_REGS_ABI_NONE;
	if (symbolize_unwind_sample(u, &s, frames, SYMBOLIZE_UNWIND_MAX_FRAMES) != 0 || st->no_regs != 1)
		goto out;

	/* after exec the old mappings are gone: the IP alone, no usable CFI */
	symbolize_unwind_exec(u, pid);
	s = make_sample(regs, stack_len, pid);
	nr = symbolize_unwind_sample(u, &s, frames, SYMBOLIZE_UNWIND_MAX_FRAMES);
	if (nr != 1 || frames[0].pc != cap_ip || st->truncated_cfi != 1)
		goto out;
	ret = T_OK;
out:
	if (ret != T_OK)
		fprintf(stderr, "# nr %d, builds %llu, samples %llu, trunc stack %llu cfi %llu\n", nr,
			(unsigned long long)symbolize_unwind_stats(u)->dwfl_builds,
			(unsigned long long)symbolize_unwind_stats(u)->samples,
			(unsigned long long)symbolize_unwind_stats(u)->truncated_stack,
			(unsigned long long)symbolize_unwind_stats(u)->truncated_cfi);
	symbolize_unwind_free(u);
	return ret;
}

static int test_stack_needed(void)
{
	struct symbolize_unwind_frame frames[SYMBOLIZE_UNWIND_MAX_FRAMES];
	struct symbolize_unwind *u;
	struct collect_pd_sample s;
	uint64_t regs[20], need;
	int nr;

	unwind_f1(5);
	T_ASSERT(symbolize_unwind_new(&u) == 0);
	T_ASSERT(add_own_maps(u, 1) > 0);
	s = make_sample(regs, stack_len, 1);
	nr = symbolize_unwind_sample(u, &s, frames, SYMBOLIZE_UNWIND_MAX_FRAMES);
	need = symbolize_unwind_stack_needed(u, 95);
	/* a complete unwind read at least up to the return address into this function */
	if (symbolize_unwind_stats(u)->complete) {
		T_ASSERT(need > 0 && need <= stack_len);
		T_ASSERT(symbolize_unwind_stack_needed(u, 100) == need);
	} else {
		T_ASSERT(need == 0);
	}
	T_ASSERT(nr >= 4);
	/*
	 * A copy of 16 bytes holds no frame's return address: that unwind runs past it and
	 * needed more than it, so it ranks above the complete one and the top percentile
	 * says "past the copy" (the complete one alone said p100 = its own bytes).
	 */
	if (symbolize_unwind_stats(u)->complete) {
		s = make_sample(regs, 16, 1);
		symbolize_unwind_sample(u, &s, frames, SYMBOLIZE_UNWIND_MAX_FRAMES);
		T_ASSERT(symbolize_unwind_stats(u)->truncated_stack == 1);
		T_ASSERT(symbolize_unwind_stack_needed(u, 50) == need);
		T_ASSERT(symbolize_unwind_stack_needed(u, 95) == SYMBOLIZE_UNWIND_PAST_COPY);
		T_ASSERT(symbolize_unwind_stack_needed(u, 100) == SYMBOLIZE_UNWIND_PAST_COPY);
	}
	symbolize_unwind_free(u);
	return T_OK;
}

static int test_callgraph_parse(void)
{
	enum collect_callgraph m;
	uint32_t sz;

	T_ASSERT(collect_callgraph_parse("fp", &m, &sz) == 0 && m == COLLECT_CALLGRAPH_FP);
	T_ASSERT_EQ_U64(sz, COLLECT_FP_STACK_DEFAULT);
	T_ASSERT(collect_callgraph_parse("dwarf-unwound", &m, &sz) == 0 &&
		 m == COLLECT_CALLGRAPH_DWARF_UNWOUND && sz == COLLECT_UNWOUND_STACK_DEFAULT);
	T_ASSERT(collect_callgraph_parse("dwarf-unwound,4k", &m, &sz) == 0 &&
		 m == COLLECT_CALLGRAPH_DWARF_UNWOUND && sz == 4096);
	T_ASSERT(collect_callgraph_parse("none", &m, &sz) == 0 && m == COLLECT_CALLGRAPH_NONE);
	T_ASSERT(collect_callgraph_parse("auto", &m, &sz) == 0 && m == COLLECT_CALLGRAPH_AUTO && !sz);
	T_ASSERT(collect_callgraph_parse("dwarf", &m, &sz) == 0 && m == COLLECT_CALLGRAPH_DWARF);
	T_ASSERT_EQ_U64(sz, COLLECT_DWARF_STACK_DEFAULT);
	T_ASSERT(collect_callgraph_parse("dwarf,16384", &m, &sz) == 0 && sz == 16384);
	T_ASSERT(collect_callgraph_parse("dwarf,16k", &m, &sz) == 0 && sz == 16384);
	T_ASSERT(collect_callgraph_parse("dwarf,65528", &m, &sz) == 0 && sz == 65528);
	pgo_report_set_verbosity(-1);
	T_ASSERT(collect_callgraph_parse("dwarf,", &m, &sz) < 0);
	T_ASSERT(collect_callgraph_parse("dwarf,12", &m, &sz) < 0);
	T_ASSERT(collect_callgraph_parse("dwarf,0", &m, &sz) < 0);
	T_ASSERT(collect_callgraph_parse("dwarf,65536", &m, &sz) < 0);
	T_ASSERT(collect_callgraph_parse("dwarf,64k", &m, &sz) < 0);
	T_ASSERT(collect_callgraph_parse("dwarfx", &m, &sz) < 0);
	T_ASSERT(collect_callgraph_parse("dwarf-unwound,", &m, &sz) < 0);
	T_ASSERT(collect_callgraph_parse("dwarf-unwoundx", &m, &sz) < 0);
	T_ASSERT(collect_callgraph_parse("lbr", &m, &sz) < 0);
	T_ASSERT(collect_callgraph_parse("", &m, &sz) < 0);
	pgo_report_set_verbosity(0);
	return T_OK;
}

static int test_callgraph_attr_and_ring(void)
{
	struct perf_event_attr a;
	unsigned int pages;

	memset(&a, 0, sizeof(a));
	collect_callgraph_attr(&a, COLLECT_CALLGRAPH_DWARF, 4096);
	T_ASSERT(a.sample_type & PERF_SAMPLE_CALLCHAIN);
	T_ASSERT(a.sample_type & PERF_SAMPLE_REGS_USER);
	T_ASSERT(a.sample_type & PERF_SAMPLE_STACK_USER);
	T_ASSERT(a.exclude_callchain_user && a.mmap_data);
	T_ASSERT_EQ_U64(a.sample_regs_user, 0xff0fff);
	T_ASSERT_EQ_U64(a.sample_stack_user, 4096);
	/* what the file says of a dwarf recording: the copies, as the kernel took them */
	collect_callgraph_file_attr(&a);
	T_ASSERT((a.sample_type & PERF_SAMPLE_STACK_USER) && a.sample_stack_user == 4096);
	memset(&a, 0, sizeof(a));
	collect_callgraph_attr(&a, COLLECT_CALLGRAPH_FP, 0);
	T_ASSERT(a.sample_type == PERF_SAMPLE_CALLCHAIN && !a.sample_stack_user);
	/* fp repaired while recording: the kernel's chain and a small copy into the ring */
	collect_callgraph_attr(&a, COLLECT_CALLGRAPH_FP, 2048);
	T_ASSERT(a.sample_type == (PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER));
	T_ASSERT(!a.exclude_callchain_user && !a.mmap_data && a.sample_stack_user == 2048);
	collect_callgraph_file_attr(&a);
	T_ASSERT(a.sample_type == PERF_SAMPLE_CALLCHAIN && !a.sample_stack_user && !a.sample_regs_user);
	/* dwarf-unwound: the kernel's part of the chain, the user stack unwound from the copy */
	memset(&a, 0, sizeof(a));
	collect_callgraph_attr(&a, COLLECT_CALLGRAPH_DWARF_UNWOUND, 8192);
	T_ASSERT(a.exclude_callchain_user && !a.mmap_data && a.sample_stack_user == 8192);
	collect_callgraph_file_attr(&a);
	T_ASSERT(a.sample_type == PERF_SAMPLE_CALLCHAIN && !a.exclude_callchain_user);

	T_ASSERT_EQ_U64(collect_callgraph_ring_pages(COLLECT_CALLGRAPH_FP, 0, 999, 100, 128), 128);
	T_ASSERT_EQ_U64(collect_callgraph_ring_pages(COLLECT_CALLGRAPH_NONE, 8192, 999, 100, 128), 128);
	/* 999 Hz x ~4.6 KB x 4 drain periods of 100 ms = ~1.8 MB: 512 pages */
	pages = collect_callgraph_ring_pages(COLLECT_CALLGRAPH_DWARF, 4096, 999, 100, 128);
	T_ASSERT_EQ_U64(pages, 512);
	/* the default 8 KiB: ~3.5 MB, 1024 pages */
	T_ASSERT_EQ_U64(collect_callgraph_ring_pages(COLLECT_CALLGRAPH_DWARF, 8192, 999, 100, 128), 1024);
	T_ASSERT((pages & (pages - 1)) == 0);
	T_ASSERT_EQ_U64(collect_callgraph_ring_pages(COLLECT_CALLGRAPH_DWARF, 65528, 100000, 100, 128), 4096);
	T_ASSERT_EQ_U64(collect_callgraph_ring_pages(COLLECT_CALLGRAPH_DWARF, 8, 1, 100, 128), 128);
	return T_OK;
}

static int test_callgraph_detect(void)
{
	size_t fp, n;
	char why[160];

	/* not an ELF: dwarf, which is right whatever the code is */
	T_ASSERT(symbolize_fp_census("/proc/self/maps", &fp, &n) < 0 && errno == ENOEXEC);
	T_ASSERT(symbolize_callgraph_auto("/proc/self/maps", why, sizeof(why)) ==
		 COLLECT_CALLGRAPH_DWARF_UNWOUND);
	T_ASSERT(strstr(why, "not an x86-64 ELF"));
	T_ASSERT(symbolize_callgraph_auto("pgo-no-such-command-here", why, sizeof(why)) ==
		 COLLECT_CALLGRAPH_DWARF_UNWOUND);
	T_ASSERT(strstr(why, "not found"));
	/* this test binary has symbols: the census counts its functions */
	T_ASSERT(symbolize_fp_census("/proc/self/exe", &fp, &n) == 0);
	T_ASSERT(n > 5 && fp <= n);
	return T_OK;
}

static const struct t_case cases[] = {
	{ "unwind this process: chain, Dwfl reuse, shared with forks, truncation, exec",
	  test_unwind_self },
	{ "stack bytes needed: complete unwinds, then those past the copy", test_stack_needed },
	{ "--call-graph values", test_callgraph_parse },
	{ "dwarf attr bits and ring size", test_callgraph_attr_and_ring },
	{ "auto: frame-pointer census", test_callgraph_detect },
};

T_MAIN(cases)
