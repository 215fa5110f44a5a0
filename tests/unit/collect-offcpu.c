// SPDX-License-Identifier: MIT
/* Off-CPU sample encoding, and (as root with BTF) the BPF recorder on a real sleeping program. */
#include <errno.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "collect/offcpu.h"
#include "lib/buf.h"
#include "test.h"

static int test_encode(void)
{
	uint64_t chain[] = { PERF_CONTEXT_KERNEL, 0xffffffff81000010ULL, PERF_CONTEXT_USER, 0x401000, 0x401100 };
	struct collect_offcpu_sample s = {
		.tgid = 10, .tid = 11, .state = OFFCPU_IO, .total_ns = 123456789, .count = 7,
		.ip = 0x401000, .callchain = chain, .nr_callchain = 5,
	};
	struct pgo_buf b = PGO_BUF_INIT;
	struct perf_event_attr attr;
	struct perf_event_header h;
	uint64_t u, count;
	uint32_t u32[2], rawsz;
	unsigned int state;
	const char *p;

	collect_offcpu_attr(&attr);
	T_ASSERT(attr.type == PERF_TYPE_SOFTWARE && attr.config == PERF_COUNT_SW_BPF_OUTPUT);
	T_ASSERT(attr.sample_type & PERF_SAMPLE_IDENTIFIER);
	T_ASSERT(collect_offcpu_encode(&s, 99, 5000, &b) == 0);
	memcpy(&h, b.data, sizeof(h));
	T_ASSERT_EQ_U64(h.size, b.len);
	T_ASSERT_EQ_U64(h.size % 8, 0);
	T_ASSERT_EQ_U64(h.type, PERF_RECORD_SAMPLE);
	p = b.data + sizeof(h);
	memcpy(&u, p, 8); T_ASSERT_EQ_U64(u, 99); p += 8;            /* identifier */
	memcpy(&u, p, 8); T_ASSERT_EQ_U64(u, 0x401000); p += 8;      /* ip */
	memcpy(u32, p, 8); T_ASSERT(u32[0] == 10 && u32[1] == 11); p += 8;
	memcpy(&u, p, 8); T_ASSERT_EQ_U64(u, 5000); p += 8;          /* time */
	memcpy(&u, p, 8); T_ASSERT_EQ_U64(u, 123456789); p += 8;     /* period */
	memcpy(&u, p, 8); T_ASSERT_EQ_U64(u, 5); p += 8;
	T_ASSERT(!memcmp(p, chain, sizeof(chain))); p += sizeof(chain);
	memcpy(&rawsz, p, 4); p += 4;
	T_ASSERT(collect_offcpu_raw_decode(p, rawsz, &state, &count) == 0);
	T_ASSERT(state == OFFCPU_IO && count == 7);
	T_ASSERT_EQ_U64(p + rawsz - b.data, b.len);
	T_ASSERT_STR(collect_offcpu_state_frame(state), "[io]");
	T_ASSERT_STR(collect_offcpu_state_frame(OFFCPU_NR_STATES), "[offcpu]");
	T_ASSERT(collect_offcpu_raw_decode(p, rawsz - 1, &state, &count) == -1);
	T_ASSERT(collect_offcpu_raw_decode("XXXXXXXXXXXXXXXXXXXXXXXX", 20, &state, &count) == -1);
	T_ASSERT_STR(collect_offcpu_state_name(OFFCPU_RUNNABLE), "runnable");
	T_ASSERT_STR(collect_offcpu_state_name(OFFCPU_SLEEP), "sleep");
	T_ASSERT_STR(collect_offcpu_state_name(99), "unknown");
	pgo_buf_release(&b);
	return T_OK;
}

#ifndef PGO_NO_BPF
struct seen {
	uint64_t lo, hi;          /* wait_for_io's address range (approximately) */
	uint64_t sleep_ns, all_ns;
	int caller_seen;
};

static int note(const struct collect_offcpu_sample *s, void *data)
{
	struct seen *seen = data;
	uint32_t i;

	seen->all_ns += s->total_ns;
	if (s->state != OFFCPU_SLEEP)
		return 0;
	seen->sleep_ns += s->total_ns;
	/* the libc leaf (and __nanosleep, unwound from .eh_frame), then the caller */
	for (i = 0; i + 2 < s->nr_callchain; i++) {
		uint32_t j;

		if (s->callchain[i] != PERF_CONTEXT_USER)
			continue;
		for (j = i + 2; j < s->nr_callchain && j <= i + 3; j++)
			if (s->callchain[j] > seen->lo && s->callchain[j] < seen->hi)
				seen->caller_seen = 1;
	}
	return 0;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/*
 * Run offcpu-sleep 4 rounds of 50 ms under the recorder; check the sleep and its caller.
 * hide: the program ignores the switch-ins that end the sleeps, as the kernel now and then
 * fails to report one; each sleep must then be closed from the thread's run time, at its
 * next switch-out or at its exit, and come out neither lost nor counting the run time.
 */
static int run_sleep(int raw_tp, int hide)
{
	struct collect_offcpu_opts opts = COLLECT_OFFCPU_OPTS_INIT;
	struct collect_offcpu_stats st;
	struct collect_offcpu *o;
	struct seen seen = { 0 };
	char helper[4096], why[160], out[] = "/tmp/pgo-offcpu-XXXXXX", text[256] = "";
	int cork[2], fd, status;
	unsigned long long addr = 0, next = 0;
	uint64_t t0, wall, cpu;
	struct rusage ru;
	FILE *f;
	pid_t pid;

	if (collect_offcpu_probe(why, sizeof(why)))
		return t_skip("%s", why);
	snprintf(helper, sizeof(helper), "%s/%s/tests/helpers/offcpu-sleep",
		 getenv("PGO_ROOT") ? getenv("PGO_ROOT") : ".", getenv("PGO_BUILD") ? getenv("PGO_BUILD") : "build");
	opts.force_raw_tp = raw_tp;
	opts.hide_sleep_ends = hide;
	T_ASSERT(collect_offcpu_open(&o, &opts) == 0);
	fd = mkstemp(out);
	T_ASSERT(fd >= 0 && pipe(cork) == 0);
	pid = fork();
	T_ASSERT(pid >= 0);
	if (pid == 0) {
		char c;

		dup2(fd, 1);
		close(cork[1]);
		if (read(cork[0], &c, 1) != 0)
			_exit(126);
		execl(helper, helper, "4", "50", (char *)NULL);
		_exit(127);
	}
	close(cork[0]);
	T_ASSERT(collect_offcpu_follow(o, pid) == 0);
	t0 = now_ns();
	close(cork[1]);
	T_ASSERT(wait4(pid, &status, 0, &ru) == pid);
	wall = now_ns() - t0;
	cpu = (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000ULL +
	      (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000ULL;
	T_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	f = fdopen(fd, "r");
	T_ASSERT(f);
	rewind(f);
	while (fgets(text, sizeof(text), f))
		if (sscanf(text, "wait_for_io %llx", &addr) != 1)
			sscanf(text, "compute %llx", &next);
	fclose(f);
	unlink(out);
	T_ASSERT(addr != 0);
	/* a return address inside wait_for_io, which is much shorter than 256 bytes */
	seen.lo = addr;
	seen.hi = next > addr && next < addr + 256 ? next : addr + 256;
	T_ASSERT(collect_offcpu_drain(o, note, &seen) == 0);
	collect_offcpu_get_stats(o, &st);
	collect_offcpu_free(o);
	printf("# raw_tp=%d switches=%llu recorded=%llu callers=%llu closed without switch-in=%llu "
	       "sleep=%.1f ms off-CPU=%.1f ms CPU=%.1f ms wall=%.1f ms\n", st.raw_tp,
	       (unsigned long long)st.k.switches, (unsigned long long)st.k.recorded,
	       (unsigned long long)st.k.callers_found, (unsigned long long)st.k.switchins_unseen,
	       seen.sleep_ns / 1e6, seen.all_ns / 1e6, cpu / 1e6, wall / 1e6);
	T_ASSERT(st.raw_tp == raw_tp);
	T_ASSERT(st.k.switches >= 4 && st.k.recorded >= 4);
	/* 4 x 50 ms asked; nanosleep never returns early */
	T_ASSERT(seen.sleep_ns >= 4 * 50 * 1000000ULL);
	/*
	 * Off the CPU and on it adds up to at most the child's life: an interval closed late
	 * must not count the time the thread ran (10 ms: a tick of run time the scheduler had
	 * not added yet at exit, and rusage's rounding).
	 */
	T_ASSERT(seen.all_ns + cpu <= wall + 10 * 1000000ULL);
	T_ASSERT(seen.caller_seen);
	if (hide)
		T_ASSERT(st.k.switchins_unseen >= 4);
	return T_OK;
}

static int test_tp_btf(void) { return run_sleep(0, 0); }
static int test_raw_tp(void) { return run_sleep(1, 0); }
static int test_tp_btf_unseen(void) { return run_sleep(0, 1); }
static int test_raw_tp_unseen(void) { return run_sleep(1, 1); }
#else
static int test_tp_btf(void) { return t_skip("built without BPF (NO_BPF=1)"); }
static int test_raw_tp(void) { return t_skip("built without BPF (NO_BPF=1)"); }
static int test_tp_btf_unseen(void) { return t_skip("built without BPF (NO_BPF=1)"); }
static int test_raw_tp_unseen(void) { return t_skip("built without BPF (NO_BPF=1)"); }
#endif

static const struct t_case cases[] = {
	{ "encode and decode an offcpu-time sample", test_encode },
	{ "tp_btf: sleep time and the caller of nanosleep", test_tp_btf },
	{ "raw_tp fallback: sleep time and the caller of nanosleep", test_raw_tp },
	{ "tp_btf: sleeps whose switch-in is not reported are closed from run time", test_tp_btf_unseen },
	{ "raw_tp: sleeps whose switch-in is not reported are closed from run time", test_raw_tp_unseen },
};

T_MAIN(cases)
