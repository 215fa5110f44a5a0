// SPDX-License-Identifier: MIT
/*
 * Off-CPU data through convert (as root with BTF: records a real program with pgo collect):
 * the state leaf of off-CPU stacks, and the per-thread on + off vs lifetime check.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collect/offcpu.h"
#include "convert/profile.h"
#include "convert/stacks.h"
#include "convert/threads.h"
#include "test.h"

static char data_on[] = "/tmp/pgo-convert-offcpu-XXXXXX", data_off[] = "/tmp/pgo-convert-offcpu-XXXXXX";
static int recorded;
static char why[160];                  /* why nothing was recorded */

/* Record offcpu-sleep 6 x 40 ms with and without off-CPU; 0, or a skip without BPF. */
static int record(void)
{
	const char *root = getenv("PGO_ROOT") ? getenv("PGO_ROOT") : ".";
	const char *build = getenv("PGO_BUILD") ? getenv("PGO_BUILD") : "build";
	char cmd[8192];
	int fd;

	if (recorded)
		return recorded > 0 ? 0 : t_skip("%s", why);
	recorded = -1;
	if (collect_offcpu_probe(why, sizeof(why)))
		return t_skip("%s", why);
	snprintf(why, sizeof(why), "the recording failed (the first case that asked for it)");
	fd = mkstemp(data_on);
	if (fd < 0)
		return T_FAIL;
	close(fd);
	fd = mkstemp(data_off);
	if (fd < 0)
		return T_FAIL;
	close(fd);
	snprintf(cmd, sizeof(cmd),
		 "%s/%s/bin/pgo collect -q --off-cpu -o %s -- %s/%s/tests/helpers/offcpu-sleep 6 40 >/dev/null && "
		 "%s/%s/bin/pgo collect -q --no-off-cpu -o %s -- %s/%s/tests/helpers/offcpu-sleep 6 40 >/dev/null",
		 root, build, data_on, root, build, root, build, data_off, root, build);
	if (system(cmd) != 0)
		return T_FAIL;
	recorded = 1;
	return 0;
}

struct seen {
	uint64_t sleep_wait_ns;   /* [sleep] stacks through wait_for_io */
	uint64_t offcpu_ns, cpu_ns;
	int bad_leaf, cpu_state;
};

static int is_state(const char *name)
{
	return !strcmp(name, "[runnable]") || !strcmp(name, "[sleep]") || !strcmp(name, "[io]");
}

static int visit(const struct convert_stack *st, void *data)
{
	struct seen *s = data;
	const char *leaf = st->nr_frames ? st->frames[st->nr_frames - 1].name : "";
	size_t i;

	if (st->view == CONVERT_STACK_CPU) {
		s->cpu_ns += st->weight_ns;
		for (i = 0; i < st->nr_frames; i++)
			if (is_state(st->frames[i].name))
				s->cpu_state = 1;
		return 0;
	}
	s->offcpu_ns += st->weight_ns;
	if (!is_state(leaf)) {
		printf("# off-CPU stack leaf '%s'\n", leaf);
		s->bad_leaf = 1;
	}
	if (!strcmp(leaf, "[sleep]"))
		for (i = 0; i < st->nr_frames; i++)
			if (!strcmp(st->frames[i].name, "wait_for_io"))
				s->sleep_wait_ns += st->weight_ns;
	return 0;
}

static int test_state_leaf(void)
{
	struct convert_options o = { 0 };
	struct convert_profile *p;
	const char *in[1];
	struct seen s = { 0 };
	int r = record();

	if (r)
		return r;
	in[0] = data_on;
	o.inputs = in;
	o.nr_inputs = 1;
	o.want_stacks = 1;
	T_ASSERT(convert_profile_load(&o, &p) == 0);
	T_ASSERT(convert_profile_info(p)->has_offcpu);
	T_ASSERT(convert_stacks_foreach(p, visit, &s) == 0);
	convert_profile_free(p);
	printf("# cpu %.1f ms, off-CPU %.1f ms, [sleep] under wait_for_io %.1f ms\n", s.cpu_ns / 1e6,
	       s.offcpu_ns / 1e6, s.sleep_wait_ns / 1e6);
	T_ASSERT(!s.bad_leaf);
	T_ASSERT(!s.cpu_state);
	T_ASSERT(s.sleep_wait_ns >= 6 * 40 * 1000000ULL);
	return T_OK;
}

static int test_threads(void)
{
	struct convert_thread_summary sum;
	struct convert_thread_time *t;
	size_t nr;
	int r = record();

	if (r)
		return r;
	T_ASSERT(convert_thread_times(data_on, &t, &nr, &sum) == 0);
	free(t);
	printf("# with off-CPU: %zu threads, %.1f%% covered\n", sum.threads,
	       100.0 * (double)(sum.cpu_ns + sum.offcpu_ns) / (double)sum.lifetime_ns);
	T_ASSERT(sum.has_offcpu && sum.cpu_is_ns);
	T_ASSERT(sum.threads == 1);
	/* on-CPU sampling quantizes to 1 ms; everything else is measured */
	T_ASSERT(sum.worst > 0.8 && sum.worst < 1.2);
	T_ASSERT(sum.offcpu_ns >= 6 * 40 * 1000000ULL);

	T_ASSERT(convert_thread_times(data_off, &t, &nr, &sum) == 0);
	free(t);
	printf("# without: %.1f%% covered\n", 100.0 * (double)(sum.cpu_ns + sum.offcpu_ns) / (double)sum.lifetime_ns);
	T_ASSERT(!sum.has_offcpu && sum.threads == 1);
	/* half the time is asleep: the on-CPU samples alone cannot cover it */
	T_ASSERT(sum.worst < 0.8);
	return T_OK;
}

static int test_cleanup(void)
{
	if (recorded > 0) {
		unlink(data_on);
		unlink(data_off);
	}
	return recorded > 0 ? T_OK : t_skip("nothing was recorded");
}

static const struct t_case cases[] = {
	{ "off-CPU stacks end in a state frame; [sleep] under wait_for_io", test_state_leaf },
	{ "per-thread on + off covers the lifetime (and does not without off-CPU)", test_threads },
	{ "cleanup", test_cleanup },
};

T_MAIN(cases)
