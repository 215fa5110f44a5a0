// SPDX-License-Identifier: MIT
/*
 * Loading and symbolizing without perf: a hand-built perf.data whose MMAP2 maps this
 * test program itself (as /proc/self/maps shows it) and whose samples hit two of its
 * functions. Checks the per-process map tables (a FORKed process inherits its parent's
 * maps, a thread shares them, COMM exec drops them), the runs, the summary counts and
 * the symbolized stacks (root -> leaf) of convert/stacks.h.
 */
#include <stdint.h>
#include <unistd.h>

#include "convert/profile.h"
#include "convert/stacks.h"
#include "lib/buf.h"
#include "lib/report.h"
#include "pdbuild.h"
#include "test.h"

#define ST (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
	    PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN)

static volatile uintptr_t ret_addr;

__attribute__((noinline)) static void t_leaf(void)
{
	ret_addr = (uintptr_t)__builtin_return_address(0);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void t_caller(void)
{
	t_leaf();
	__asm__ volatile("" ::: "memory");
}

static void sample(struct pgo_buf *b, uint32_t pid, uint32_t tid, uint64_t time, uint64_t ip,
		   uint64_t caller)
{
	pdb_hdr(b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 8 + 8 * 6 + 8 * 3);
	pdb_put64(b, 7);
	pdb_put64(b, ip);
	pdb_put32(b, pid);
	pdb_put32(b, tid);
	pdb_put64(b, time);
	pdb_put64(b, 1000);
	pdb_put64(b, 3);
	pdb_put64(b, (uint64_t)PERF_CONTEXT_USER);
	pdb_put64(b, ip);
	pdb_put64(b, caller);
}

struct seen {
	char folded[8][256];
	uint64_t weight[8];
	unsigned run[8];
	int n;
};

static int collect_stack(const struct convert_stack *st, void *data)
{
	struct seen *s = data;
	size_t i, len = 0;

	if (s->n >= 8)
		return -1;
	s->folded[s->n][0] = '\0';
	for (i = 0; i < st->nr_frames; i++)
		len += snprintf(s->folded[s->n] + len, sizeof(s->folded[0]) - len, "%s%s",
				i ? ";" : "", st->frames[i].name);
	s->weight[s->n] = st->weight_ns;
	s->run[s->n] = st->run;
	s->n++;
	return 0;
}

static int find(const struct seen *s, const char *folded, uint64_t *weight)
{
	int i;

	for (i = 0; i < s->n; i++)
		if (!strcmp(s->folded[i], folded)) {
			*weight = s->weight[i];
			return 1;
		}
	return 0;
}

static int test_maps_and_stacks(void)
{
	struct pgo_buf rec = PGO_BUF_INIT, b = PGO_BUF_INIT;
	uint64_t start, end, pgoff, leaf_ip, w;
	char exe[4096], file[64];
	struct convert_options o = { 0 };
	struct convert_profile *p;
	const struct convert_info *in;
	struct seen seen = { .n = 0 };
	const char *inputs[1] = { file };

	t_caller();
	T_ASSERT(pdb_self_map((uintptr_t)&t_leaf, &start, &end, &pgoff, exe, sizeof(exe)) == 0);
	leaf_ip = (uintptr_t)&t_leaf + 1;
	pdb_comm(&rec, 100, 10);
	pdb_mmap2(&rec, 100, start, end - start, pgoff, exe, 11);
	sample(&rec, 100, 100, 20, leaf_ip, ret_addr);
	pdb_fork(&rec, 100, 100, 101, 21);      /* a thread: shares the maps */
	sample(&rec, 100, 101, 22, leaf_ip, ret_addr);
	pdb_fork(&rec, 200, 100, 200, 30);      /* a process: copies the maps */
	sample(&rec, 200, 200, 31, leaf_ip, ret_addr);
	pdb_comm(&rec, 200, 40);                /* exec: maps gone */
	sample(&rec, 200, 200, 41, leaf_ip, ret_addr);
	pdb_file(&b, &rec, ST, 0);
	T_ASSERT(pdb_write(&b, "stacks", file, sizeof(file)) == 0);

	o.inputs = inputs;
	o.nr_inputs = 1;
	o.want_stacks = 1;
	T_ASSERT(convert_profile_load(&o, &p) == 0);
	unlink(file);
	in = convert_profile_info(p);
	T_ASSERT_EQ_U64(in->samples, 4);
	T_ASSERT_EQ_U64(in->samples_unmapped, 1);
	T_ASSERT_EQ_U64(in->samples_binary, 3);
	/* a perf record-like file (no pgo argv0): one run */
	T_ASSERT_EQ_U64(convert_profile_nr_runs(p), 1);
	T_ASSERT_EQ_U64(convert_profile_run_info(p, 0)->samples, 4);
	T_ASSERT(convert_stacks_foreach(p, collect_stack, &seen) == 0);
	/* pid/tid differ: three stacks through t_caller, one unmapped */
	T_ASSERT_EQ_U64(seen.n, 4);
	T_ASSERT(find(&seen, "t_caller;t_leaf", &w));
	T_ASSERT_EQ_U64(w, 1000);
	T_ASSERT(find(&seen, "[unknown];[unknown]", &w));
	convert_profile_free(p);
	pgo_buf_release(&rec);
	pgo_buf_release(&b);
	return T_OK;
}

static const struct t_case cases[] = {
	{ "maps (fork, thread, exec), runs and symbolized stacks", test_maps_and_stacks },
};

T_MAIN(cases)
