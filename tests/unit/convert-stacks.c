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

/* A sample in the kernel, called from t_leaf: the chain crosses into user space. */
static void kernel_sample(struct pgo_buf *b, uint32_t pid, uint64_t time, uint64_t kip,
			  uint64_t leaf_ip, uint64_t caller)
{
	pdb_hdr(b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL, 8 + 8 * 6 + 8 * 5);
	pdb_put64(b, 7);
	pdb_put64(b, kip);
	pdb_put32(b, pid);
	pdb_put32(b, pid);
	pdb_put64(b, time);
	pdb_put64(b, 1000);
	pdb_put64(b, 5);
	pdb_put64(b, (uint64_t)PERF_CONTEXT_KERNEL);
	pdb_put64(b, kip);
	pdb_put64(b, (uint64_t)PERF_CONTEXT_USER);
	pdb_put64(b, leaf_ip);
	pdb_put64(b, caller);
}

/* Address of a kernel text symbol, 0 if kallsyms hides addresses. */
static uint64_t kernel_addr(const char *want)
{
	char line[512];
	FILE *fp = fopen("/proc/kallsyms", "r");
	uint64_t found = 0;

	if (!fp)
		return 0;
	while (!found && fgets(line, sizeof(line), fp)) {
		unsigned long long a;
		char type, name[256];

		if (sscanf(line, "%llx %c %255s", &a, &type, name) == 3 && !strcmp(name, want) &&
		    (type == 't' || type == 'T'))
			found = a;
	}
	fclose(fp);
	return found;
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
	uint64_t start, end, pgoff, leaf_ip, w, kaddr;
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
	kaddr = kernel_addr("schedule");
	kernel_sample(&rec, 100, 50, kaddr ? kaddr + 1 : 0xffffffff81000001ULL, leaf_ip, ret_addr);
	pdb_file(&b, &rec, ST, 0);
	T_ASSERT(pdb_write(&b, "stacks", file, sizeof(file)) == 0);

	o.inputs = inputs;
	o.nr_inputs = 1;
	o.want_stacks = 1;
	T_ASSERT(convert_profile_load(&o, &p) == 0);
	unlink(file);
	in = convert_profile_info(p);
	T_ASSERT_EQ_U64(in->samples, 5);
	T_ASSERT_EQ_U64(in->samples_kernel, 1);
	T_ASSERT_EQ_U64(in->samples_unmapped, 1);
	T_ASSERT_EQ_U64(in->samples_binary, 3);
	/* a perf record-like file (no pgo argv0): one run */
	T_ASSERT_EQ_U64(convert_profile_nr_runs(p), 1);
	T_ASSERT_EQ_U64(convert_profile_run_info(p, 0)->samples, 5);
	T_ASSERT(convert_stacks_foreach(p, collect_stack, &seen) == 0);
	/* pid/tid differ: three stacks through t_caller, one unmapped, one into the kernel */
	T_ASSERT_EQ_U64(seen.n, 5);
	T_ASSERT(find(&seen, "t_caller;t_leaf", &w));
	T_ASSERT_EQ_U64(w, 1000);
	T_ASSERT(find(&seen, "[unknown];[unknown]", &w));
	T_ASSERT(find(&seen, kaddr ? "t_caller;t_leaf;schedule_[k]" : "t_caller;t_leaf;[kernel.kallsyms]_[k]",
		      &w));
	convert_profile_free(p);
	pgo_buf_release(&rec);
	pgo_buf_release(&b);
	return T_OK;
}

static int count_stack(const struct convert_stack *st, void *data)
{
	(*(size_t *)data) += st->nr_frames;
	return 0;
}

/*
 * Random corruption of the same file: loading and symbolizing may fail, never crash
 * (maps with absurd offsets, pids, callchains that point anywhere).
 */
static int test_corruption(void)
{
	struct pgo_buf rec = PGO_BUF_INIT, b = PGO_BUF_INIT;
	uint64_t start, end, pgoff;
	char exe[4096], file[64];
	const char *inputs[1] = { file };
	struct convert_options o = { 0 };
	unsigned seed = 4242;
	int i, k, loaded = 0;

	T_ASSERT(pdb_self_map((uintptr_t)&t_leaf, &start, &end, &pgoff, exe, sizeof(exe)) == 0);
	pdb_comm(&rec, 100, 10);
	pdb_mmap2(&rec, 100, start, end - start, pgoff, exe, 11);
	for (i = 0; i < 8; i++)
		sample(&rec, 100, 100, 20 + i, (uintptr_t)&t_leaf + i, ret_addr);
	pdb_fork(&rec, 200, 100, 200, 30);
	sample(&rec, 200, 200, 31, (uintptr_t)&t_caller, ret_addr);
	pdb_file(&b, &rec, ST, 0);
	o.inputs = inputs;
	o.nr_inputs = 1;
	o.want_stacks = 1;
	pgo_report_set_verbosity(-1);
	for (i = 0; i < 200; i++) {
		struct pgo_buf t = PGO_BUF_INIT;
		struct convert_profile *p;
		size_t frames = 0;

		pgo_buf_add(&t, b.data, b.len);
		/* hit the data section (after the 104 + 144 + 8 byte header, attr and ids) */
		for (k = 0; k < 1 + i % 3; k++) {
			seed = seed * 1103515245 + 12345;
			t.data[256 + (seed >> 8) % (t.len - 256)] = (char)(seed >> 20);
		}
		T_ASSERT(pdb_write(&t, "stacks-fuzz", file, sizeof(file)) == 0);
		if (convert_profile_load(&o, &p) == 0) {
			loaded++;
			convert_stacks_foreach(p, count_stack, &frames);
			convert_profile_free(p);
		}
		unlink(file);
		pgo_buf_release(&t);
	}
	pgo_report_set_verbosity(0);
	T_ASSERT(loaded > 0);
	pgo_buf_release(&rec);
	pgo_buf_release(&b);
	return T_OK;
}

static const struct t_case cases[] = {
	{ "maps (fork, thread, exec), runs and symbolized stacks", test_maps_and_stacks },
	{ "random corruption: errors, no crash", test_corruption },
};

T_MAIN(cases)
