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

#include "collect/pdformat.h"
#include "convert/profile.h"
#include "convert/stacks.h"
#include "lib/buf.h"
#include "lib/report.h"
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

static void put(struct pgo_buf *b, const void *p, size_t n)
{
	pgo_buf_add(b, p, n);
}

static void put64(struct pgo_buf *b, uint64_t v)
{
	put(b, &v, 8);
}

static void put32(struct pgo_buf *b, uint32_t v)
{
	put(b, &v, 4);
}

static void hdr(struct pgo_buf *b, uint32_t type, uint16_t misc, uint16_t size)
{
	put32(b, type);
	put(b, &misc, 2);
	put(b, &size, 2);
}

static void trailer(struct pgo_buf *b, uint32_t pid, uint32_t tid, uint64_t time)
{
	put32(b, pid);
	put32(b, tid);
	put64(b, time);
	put64(b, 7);
}

static void comm(struct pgo_buf *b, uint32_t pid, uint64_t time)
{
	static const char name[16] = "bench";

	hdr(b, PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC, 8 + 8 + 16 + 24);
	put32(b, pid);
	put32(b, pid);
	put(b, name, 16);
	trailer(b, pid, pid, time);
}

static void fork_rec(struct pgo_buf *b, uint32_t pid, uint32_t ppid, uint32_t tid, uint64_t time)
{
	hdr(b, PERF_RECORD_FORK, 0, 8 + 24 + 24);
	put32(b, pid);
	put32(b, ppid);
	put32(b, tid);
	put32(b, ppid);
	put64(b, time);
	trailer(b, pid, tid, time);
}

static void sample(struct pgo_buf *b, uint32_t pid, uint32_t tid, uint64_t time, uint64_t ip,
		   uint64_t caller)
{
	hdr(b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 8 + 8 * 6 + 8 * 3);
	put64(b, 7);
	put64(b, ip);
	put32(b, pid);
	put32(b, tid);
	put64(b, time);
	put64(b, 1000);
	put64(b, 3);
	put64(b, (uint64_t)PERF_CONTEXT_USER);
	put64(b, ip);
	put64(b, caller);
}

/* The mapping of this program's code, from /proc/self/maps. */
static int self_map(uint64_t *start, uint64_t *end, uint64_t *pgoff, char *path, size_t n)
{
	uintptr_t fn = (uintptr_t)&t_leaf;
	char line[4096];
	FILE *fp = fopen("/proc/self/maps", "r");
	int found = 0;

	if (!fp)
		return -1;
	while (!found && fgets(line, sizeof(line), fp)) {
		unsigned long long s, e, o;
		char perms[8], file[4096] = "";

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095s", &s, &e, perms, &o, file) < 4)
			continue;
		if (fn >= s && fn < e) {
			*start = s;
			*end = e;
			*pgoff = o;
			snprintf(path, n, "%s", file);
			found = 1;
		}
	}
	fclose(fp);
	return found ? 0 : -1;
}

static void build(struct pgo_buf *b, const struct pgo_buf *records)
{
	struct pd_file_header h;
	struct perf_event_attr attr;
	uint64_t ids_off;

	memset(&h, 0, sizeof(h));
	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_TASK_CLOCK;
	attr.size = sizeof(attr);
	attr.sample_type = ST;
	attr.sample_id_all = 1;
	attr.sample_period = 1000;
	ids_off = sizeof(h) + sizeof(attr) + 16;
	memcpy(h.magic, PD_MAGIC, 8);
	h.size = sizeof(h);
	h.attr_size = sizeof(attr) + 16;
	h.attrs.offset = sizeof(h);
	h.attrs.size = sizeof(attr) + 16;
	h.data.offset = ids_off + 8;
	h.data.size = records->len;
	put(b, &h, sizeof(h));
	put(b, &attr, sizeof(attr));
	put64(b, ids_off);
	put64(b, 8);
	put64(b, 7);
	put(b, records->data, records->len);
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
	size_t flen;
	FILE *fp;

	t_caller();
	T_ASSERT(self_map(&start, &end, &pgoff, exe, sizeof(exe)) == 0);
	leaf_ip = (uintptr_t)&t_leaf + 1;
	flen = strlen(exe) + 1;
	flen = (flen + 7) & ~(size_t)7;
	comm(&rec, 100, 10);
	hdr(&rec, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, 8 + 64 + flen + 24);
	put32(&rec, 100);
	put32(&rec, 100);
	put64(&rec, start);
	put64(&rec, end - start);
	put64(&rec, pgoff);
	put64(&rec, 0);
	put64(&rec, 0);
	put64(&rec, 0);
	put32(&rec, 5);
	put32(&rec, 2);
	{
		char pad[4096 + 8] = { 0 };

		memcpy(pad, exe, strlen(exe));
		put(&rec, pad, flen);
	}
	trailer(&rec, 100, 100, 11);
	sample(&rec, 100, 100, 20, leaf_ip, ret_addr);
	fork_rec(&rec, 100, 100, 101, 21);      /* a thread: shares the maps */
	sample(&rec, 100, 101, 22, leaf_ip, ret_addr);
	fork_rec(&rec, 200, 100, 200, 30);      /* a process: copies the maps */
	sample(&rec, 200, 200, 31, leaf_ip, ret_addr);
	comm(&rec, 200, 40);                    /* exec: maps gone */
	sample(&rec, 200, 200, 41, leaf_ip, ret_addr);
	build(&b, &rec);
	snprintf(file, sizeof(file), "/tmp/pgo-stacks-%d.data", (int)getpid());
	fp = fopen(file, "wb");
	T_ASSERT(fp);
	fwrite(b.data, 1, b.len, fp);
	T_ASSERT(fclose(fp) == 0);

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
