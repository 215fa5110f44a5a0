// SPDX-License-Identifier: MIT
/* Load the off-CPU BPF program, follow the benchmark's processes, read back the aggregates. */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "collect/collect.h"
#include "collect/offcpu.h"
#include "collect/pdformat.h"
#include "collect/pdwrite.h"
#include "lib/alloc.h"
#include "lib/buf.h"
#include "lib/report.h"
#include "offcpu.skel.h"

/*
 * Frames at the top of a kernel stack taken in the sched_switch tracepoint that belong to
 * the BPF machinery, not to the task (bpf_prog, bpf_trace_run, and the tracepoint iterator
 * while another probe shares the tracepoint). Three of them are skipped: the leaf is then
 * schedule (__schedule skipped too) with this probe alone, and __schedule with another
 * one; pgo convert drops that __schedule (convert/stacks.c).
 */
#define KSTACK_SKIP_BTF 3
#define KSTACK_SKIP_RAW 3

struct collect_offcpu {
	struct offcpu_bpf *skel;
	int raw_tp;
	int stats_fd;                  /* keeps the kernel's BPF run-time statistics on, or -1 */
	int cur;                       /* the aggregation map the program writes: 0 totals_a, 1 b */
	uint64_t samples;
	uint64_t emit_errors;
	uint64_t total_ns;
	uint64_t ips[OFFCPU_MAX_FRAMES];
	uint64_t chain[2 * OFFCPU_MAX_FRAMES + 3];
};

PGO_PRINTF(2, 0) static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char line[1024];
	size_t n;

	if (pgo_report_verbosity() < (level == LIBBPF_DEBUG ? 2 : 1))
		return 0;
	vsnprintf(line, sizeof(line), fmt, ap);
	n = strlen(line);
	if (n && line[n - 1] == '\n')
		line[n - 1] = '\0';
	pgo_debug(1, "libbpf: %s", line);
	return 0;
}

int collect_offcpu_probe(char *why, size_t len)
{
	if (geteuid() != 0) {
		snprintf(why, len, "needs root (CAP_BPF and CAP_PERFMON)");
		return -1;
	}
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		snprintf(why, len, "the kernel has no BTF (/sys/kernel/btf/vmlinux: %s)", strerror(errno));
		return -1;
	}
	return 0;
}

static struct offcpu_bpf *load(const struct collect_offcpu_opts *opts, int raw_tp, int *err)
{
	struct offcpu_bpf *skel;

	skel = offcpu_bpf__open();
	if (!skel) {
		*err = -errno;
		return NULL;
	}
	skel->rodata->user_stacks = !!opts->user_stacks;
	skel->rodata->kernel_stacks = !!opts->kernel_stacks;
	skel->rodata->find_callers = !!opts->find_callers;
	skel->rodata->min_block_ns = opts->min_block_ns;
	skel->rodata->hide_sleep_ends = !!opts->hide_sleep_ends;
	skel->rodata->sample_every = opts->sample_every > 1 ? opts->sample_every : 1;
	skel->rodata->kstack_skip = raw_tp ? KSTACK_SKIP_RAW : KSTACK_SKIP_BTF;
	bpf_map__set_max_entries(skel->maps.stacks, opts->max_stacks ? opts->max_stacks : 16384);
	bpf_map__set_max_entries(skel->maps.totals_a, opts->max_entries ? opts->max_entries : 65536);
	bpf_map__set_max_entries(skel->maps.totals_b, opts->max_entries ? opts->max_entries : 65536);
	bpf_program__set_autoload(skel->progs.sched_switch_btf, !raw_tp);
	bpf_program__set_autoload(skel->progs.sched_fork_btf, !raw_tp);
	bpf_program__set_autoload(skel->progs.sched_switch_raw, raw_tp);
	bpf_program__set_autoload(skel->progs.sched_fork_raw, raw_tp);
	bpf_program__set_autoload(skel->progs.sched_exit_btf, !raw_tp);
	bpf_program__set_autoload(skel->progs.sched_exit_raw, raw_tp);
	bpf_map__set_max_entries(skel->maps.stacks2,
				 (opts->max_stacks ? opts->max_stacks : 16384) / 4 + 1);
	if (!opts->user_stacks && !opts->kernel_stacks) {
		bpf_map__set_max_entries(skel->maps.stacks, 1);
		bpf_map__set_max_entries(skel->maps.stacks2, 1);
	}
	*err = offcpu_bpf__load(skel);
	if (*err) {
		offcpu_bpf__destroy(skel);
		return NULL;
	}
	return skel;
}

int collect_offcpu_open(struct collect_offcpu **out, const struct collect_offcpu_opts *opts)
{
	struct collect_offcpu *o;
	char why[160];
	int err = 0;

	*out = NULL;
	if (collect_offcpu_probe(why, sizeof(why)))
		return pgo_error("cannot record off-CPU time: %s", why);
	libbpf_set_print(libbpf_print);
	o = pgo_calloc(1, sizeof(*o));
	if (!o)
		return -1;
	o->stats_fd = -1;
	if (!opts->force_raw_tp)
		o->skel = load(opts, 0, &err);
	if (!o->skel) {
		if (!opts->force_raw_tp)
			pgo_debug(1, "tp_btf/sched_switch did not load (%s), trying raw_tp", strerror(-err));
		o->raw_tp = 1;
		o->skel = load(opts, 1, &err);
	}
	if (!o->skel) {
		free(o);
		return pgo_error("cannot load the off-CPU BPF program: %s (run with -vv for the verifier log)",
				 strerror(-err));
	}
	err = offcpu_bpf__attach(o->skel);
	if (err) {
		offcpu_bpf__destroy(o->skel);
		free(o);
		return pgo_error("cannot attach the off-CPU BPF program to sched_switch: %s", strerror(-err));
	}
	pgo_debug(1, "off-CPU: %s/sched_switch attached", o->raw_tp ? "raw_tp" : "tp_btf");
	/* measure what the program costs (two clock reads per run while the fd is open) */
	o->stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (o->stats_fd < 0)
		pgo_debug(1, "off-CPU: no BPF run-time statistics: %s", strerror(errno));
	*out = o;
	return 0;
}

int collect_offcpu_follow(struct collect_offcpu *o, pid_t tgid)
{
	__u32 key = (__u32)tgid;
	__u8 one = 1;

	if (bpf_map__update_elem(o->skel->maps.tgids, &key, sizeof(key), &one, sizeof(one), BPF_ANY))
		return pgo_error_errno("cannot follow process %d off-CPU", (int)tgid);
	return 0;
}

/* Copy a stack's ips (leaf first, ending at the first 0) after marker; returns the count added. */
static uint32_t add_stack(struct collect_offcpu *o, __s32 id, uint64_t marker, uint32_t n,
			  uint64_t caller)
{
	struct bpf_map *map = o->skel->maps.stacks;
	uint32_t i, start = n;

	if (id < 0)
		return 0;
	if (id & OFFCPU_STACK2) {
		map = o->skel->maps.stacks2;
		id &= ~OFFCPU_STACK2;
	}
	if (bpf_map_lookup_elem(bpf_map__fd(map), &id, o->ips))
		return 0;
	o->chain[n++] = marker;
	for (i = 0; i < OFFCPU_MAX_FRAMES && o->ips[i]; i++) {
		o->chain[n++] = o->ips[i];
		/*
		 * The frame-pointer walk skipped the caller of the libc call: it belongs right
		 * after the leaf, unless the walk found it after all.
		 */
		if (i == 0 && caller && (i + 1 >= OFFCPU_MAX_FRAMES || o->ips[1] != caller))
			o->chain[n++] = caller;
	}
	return n == start + 1 ? 0 : n - start;
}

int collect_offcpu_drain(struct collect_offcpu *o, collect_offcpu_emit_fn emit, void *data)
{
	int fds[2] = { bpf_map__fd(o->skel->maps.totals_a), bpf_map__fd(o->skel->maps.totals_b) };
	int outer = bpf_map__fd(o->skel->maps.totals);
	struct offcpu_key *keys = NULL, next;
	size_t nr = 0, alloc = 0, i;
	struct collect_offcpu_sample s;
	struct offcpu_val val;
	uint32_t n, kn, zero = 0;
	int err = 0, totals;

	/*
	 * Point the program at the other map. The update returns once no program can still be
	 * adding to the old one (offcpu.bpf.c), which is then ours alone to read and empty:
	 * no add can land in an entry after it was copied.
	 */
	if (bpf_map_update_elem(outer, &zero, &fds[!o->cur], BPF_ANY))
		return pgo_error_errno("cannot switch the off-CPU aggregation maps");
	totals = fds[o->cur];
	o->cur = !o->cur;
	/* List the keys first: deleting during get_next_key iteration restarts it. */
	while (!bpf_map_get_next_key(totals, nr ? &keys[nr - 1] : NULL, &next)) {
		if (PGO_ALLOC_GROW(keys, nr + 1, alloc)) {
			err = -1;
			goto out;
		}
		keys[nr++] = next;
	}
	for (i = 0; i < nr; i++) {
		if (bpf_map_lookup_and_delete_elem(totals, &keys[i], &val)) {
			if (errno == ENOENT)
				continue;
			o->emit_errors++;
			err = pgo_error_errno("cannot read the off-CPU totals");
			goto out;
		}
		memset(&s, 0, sizeof(s));
		s.tgid = keys[i].tgid;
		s.tid = keys[i].tid;
		s.state = keys[i].state;
		s.total_ns = val.total_ns;
		s.count = val.count;
		s.last_ns = val.last_ns;
		n = kn = add_stack(o, keys[i].kstack_id, PERF_CONTEXT_KERNEL, 0, 0);
		n += add_stack(o, keys[i].ustack_id, PERF_CONTEXT_USER, n, keys[i].caller_ip);
		s.callchain = o->chain;
		s.nr_callchain = n;
		if (n > kn)
			s.ip = o->chain[kn + 1];
		else if (kn)
			s.ip = o->chain[1];
		err = emit(&s, data);
		if (err < 0)
			goto out;
		o->samples++;
		o->total_ns += s.total_ns;
	}
out:
	free(keys);
	return err < 0 ? err : 0;
}

void collect_offcpu_get_stats(const struct collect_offcpu *o, struct collect_offcpu_stats *st)
{
	const struct offcpu_counters *c = o->skel->bss->counters;
	const struct bpf_program *prog;
	struct bpf_prog_info info;
	__u32 info_len;
	int i;

	memset(st, 0, sizeof(*st));
	for (i = 0; i < OFFCPU_MAX_CPUS; i++) {
		st->k.switches += c[i].switches;
		st->k.sampled_out += c[i].sampled_out;
		st->k.short_blocks += c[i].short_blocks;
		st->k.recorded += c[i].recorded;
		st->k.ustack_dropped += c[i].ustack_dropped;
		st->k.kstack_dropped += c[i].kstack_dropped;
		st->k.map_full += c[i].map_full;
		st->k.storage_failed += c[i].storage_failed;
		st->k.tgid_full += c[i].tgid_full;
		st->k.callers_found += c[i].callers_found;
		st->k.switchins_unseen += c[i].switchins_unseen;
	}
	info_len = sizeof(info);
	memset(&info, 0, sizeof(info));
	prog = o->raw_tp ? o->skel->progs.sched_switch_raw : o->skel->progs.sched_switch_btf;
	if (!bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &info_len)) {
		st->prog_run_ns = info.run_time_ns;
		st->prog_run_cnt = info.run_cnt;
	}
	st->samples = o->samples;
	st->emit_errors = o->emit_errors;
	st->total_ns = o->total_ns;
	st->raw_tp = o->raw_tp;
}

void collect_offcpu_free(struct collect_offcpu *o)
{
	if (!o)
		return;
	offcpu_bpf__destroy(o->skel);
	if (o->stats_fd >= 0)
		close(o->stats_fd);
	free(o);
}

/* ---- the collect_run() source ---- */

struct offcpu_source {
	struct collect_source src;
	struct collect_offcpu *o;
	struct collect_writer *w;
	struct pgo_buf rec;
	uint64_t id;
	uint64_t floor;           /* CLOCK_MONOTONIC of this run's previous hook */
	uint64_t drained;         /* ... and of the previous drain */
};

/*
 * Periodic drains only keep the aggregation map from filling up; each one waits for an
 * RCU grace period (the map switch), so do not drain at every ring wakeup.
 */
#define DRAIN_EVERY_NS (250 * 1000000ULL)

static uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int src_init(void *priv, struct collect_writer *w)
{
	struct offcpu_source *os = priv;
	struct perf_event_attr attr;
	int idx;

	collect_offcpu_attr(&attr);
	idx = collect_writer_add_attr(w, &attr, PD_OFFCPU_EVENT_NAME);
	if (idx < 0)
		return -1;
	os->id = collect_writer_new_id(w);
	return collect_writer_add_ids(w, idx, &os->id, 1);
}

static int src_start(void *priv, struct collect_writer *w, pid_t pid)
{
	struct offcpu_source *os = priv;

	os->floor = os->drained = monotonic_ns();
	return collect_offcpu_follow(os->o, pid);
}

static int src_emit(const struct collect_offcpu_sample *s, void *data)
{
	struct offcpu_source *os = data;
	uint64_t time = s->last_ns > os->floor ? s->last_ns : os->floor;

	pgo_buf_reset(&os->rec);
	if (collect_offcpu_encode(s, os->id, time, &os->rec))
		return -1;
	return collect_writer_record(os->w, (const struct perf_event_header *)os->rec.data);
}

static int drain_now(struct offcpu_source *os, struct collect_writer *w)
{
	uint64_t now = monotonic_ns();
	int err;

	os->w = w;
	err = collect_offcpu_drain(os->o, src_emit, os);
	os->floor = os->drained = now;
	return err;
}

static int src_drain(void *priv, struct collect_writer *w)
{
	struct offcpu_source *os = priv;
	uint64_t now = monotonic_ns();

	/*
	 * Skipped or not, this hook follows the session's latest round of ring records: later
	 * samples are raised to its time, as if drained here.
	 */
	if (now - os->drained < DRAIN_EVERY_NS) {
		os->floor = now;
		return 0;
	}
	return drain_now(os, w);
}

/* Empty a stack map: list the ids first (deleting restarts get_next_key), then delete. */
static int clear_stacks(struct bpf_map *map)
{
	int fd = bpf_map__fd(map), err = 0;
	__u32 *ids = NULL, next;
	size_t nr = 0, alloc = 0, i;

	while (!bpf_map_get_next_key(fd, nr ? &ids[nr - 1] : NULL, &next)) {
		if (PGO_ALLOC_GROW(ids, nr + 1, alloc)) {
			err = -1;
			goto out;
		}
		ids[nr++] = next;
	}
	for (i = 0; i < nr; i++)
		if (bpf_map_delete_elem(fd, &ids[i]) && errno != ENOENT) {
			err = pgo_error_errno("cannot clear the off-CPU stack map");
			goto out;
		}
out:
	free(ids);
	return err;
}

/*
 * The run's benchmark has been reaped: every wait of its threads ended with a switch-in
 * already. Drain twice, so the map written during the first drain is read too. Then
 * forget the run's stacks: address randomization gives every run new user stacks, which
 * would pile up in the stack maps, fill them and collide with each other.
 */
static int src_stop(void *priv, struct collect_writer *w, pid_t pid)
{
	struct offcpu_source *os = priv;

	if (drain_now(os, w) || drain_now(os, w))
		return -1;
	return clear_stacks(os->o->skel->maps.stacks) || clear_stacks(os->o->skel->maps.stacks2) ? -1 : 0;
}

static const struct collect_source_ops offcpu_source_ops = {
	.name = "off-cpu",
	.init = src_init,
	.start = src_start,
	.drain = src_drain,
	.stop = src_stop,
};

struct collect_source *collect_offcpu_source_new(struct collect_offcpu *o)
{
	struct offcpu_source *os = pgo_calloc(1, sizeof(*os));

	if (!os)
		return NULL;
	os->o = o;
	os->rec = (struct pgo_buf)PGO_BUF_INIT;
	os->src.ops = &offcpu_source_ops;
	os->src.priv = os;
	return &os->src;
}

void collect_offcpu_source_free(struct collect_source *src)
{
	struct offcpu_source *os;

	if (!src)
		return;
	os = src->priv;
	pgo_buf_release(&os->rec);
	free(os);
}
