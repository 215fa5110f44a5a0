// SPDX-License-Identifier: MIT
/* Unit tests for the profile JSON writer and its strict reader. */
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "convert/profile_json.h"
#include "lib/alloc.h"
#include "tests/unit/test.h"

static char *to_json(const struct convert_stackset *set)
{
	char *s = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&s, &len);

	if (!fp)
		return NULL;
	if (convert_profile_json_write(fp, set)) {
		fclose(fp);
		free(s);
		return NULL;
	}
	fclose(fp);
	return s;
}

static int parse(const char *json, struct convert_stackset *set)
{
	return convert_profile_json_parse(json, strlen(json), "t.json", set);
}

static int test_round_trip(void)
{
	struct convert_stackset a = CONVERT_STACKSET_INIT, b = CONVERT_STACKSET_INIT;
	char *s1, *s2;
	long r;

	a.tool = pgo_strdup("pgo 0.1.0");
	a.command = pgo_strdup("./bench --size \"10\"");
	a.binary_path = pgo_strdup("/tmp/bench");
	a.build_id = pgo_strdup("f009107f46f1");
	a.event = pgo_strdup("task-clock");
	a.rate_hz = 999;
	r = convert_stackset_add_run(&a, 0, 30356);
	T_ASSERT(r == 0);
	a.runs[0].duration_ns = 1021000000;
	a.runs[0].samples = 1000;
	a.runs[0].lost = 2;
	T_ASSERT(convert_stackset_add_folded(&a, 0, CONVERT_VIEW_CPU, "main;process;hash_block", 401401000) == 0);
	T_ASSERT(convert_stackset_add_folded(&a, 0, CONVERT_VIEW_CPU, "main;operator<<;x&y", 5) == 0);
	T_ASSERT(convert_stackset_add_folded(&a, 0, CONVERT_VIEW_OFFCPU, "main;wait;[sleep]", 20000000) == 0);
	T_ASSERT(convert_stackset_add_run(&a, 1, 30400) == 1);
	T_ASSERT(convert_stackset_add_folded(&a, 1, CONVERT_VIEW_CPU, "main;process;hash_block", 7) == 0);
	T_ASSERT(convert_stackset_add_frame_dso(&a, "main", "bench", 1) == 0);
	T_ASSERT(convert_stackset_add_frame_dso(&a, "wait", "bench", 1) == 0);
	T_ASSERT(convert_stackset_add_frame_dso(&a, "nanosleep", "libc.so.6", 0) == 0);
	T_ASSERT(convert_stackset_add_frame_dso(&a, "main", "bench", 1) == 0);
	s1 = to_json(&a);
	T_ASSERT(s1 != NULL);
	T_ASSERT(strstr(s1, "\"format\": \"pgo-profile\"") && strstr(s1, "\"version\": 1"));
	T_ASSERT(strstr(s1, "\"cpu_ns\": 401401005"));
	T_ASSERT(strstr(s1, "\"views\": [\n  \"cpu\",\n  \"offcpu\"\n ]"));
	T_ASSERT(parse(s1, &b) == 0);
	T_ASSERT_STR(b.command, a.command);
	T_ASSERT_STR(b.build_id, "f009107f46f1");
	T_ASSERT(b.rate_hz == 999 && b.nr_runs == 2 && b.views == 3);
	T_ASSERT(b.runs[0].pid == 30356 && b.runs[0].lost == 2 && b.runs[1].run == 1);
	T_ASSERT_EQ_U64(convert_run_total(&b.runs[0], CONVERT_VIEW_OFFCPU), 20000000);
	T_ASSERT(strstr(s1, "\"dsos\": {\n  \"bench\": {\n   \"own\": true,\n   \"frames\": [\n    \"main\",\n    \"wait\"\n   ]"));
	T_ASSERT(strstr(s1, "\"libc.so.6\": {\n   \"own\": false,\n   \"frames\": [\n    \"nanosleep\"\n   ]"));
	T_ASSERT(b.dsos.nr == 2 && b.frame_dsos.count == 3);
	s2 = to_json(&b);
	T_ASSERT_STR(s2, s1);
	free(s1);
	free(s2);
	convert_stackset_release(&a);
	convert_stackset_release(&b);
	return T_OK;
}

static int test_doc_example(void)
{
	/* the example of docs/profile-json.md, verbatim */
	static const char doc[] =
		"{\"format\": \"pgo-profile\", \"version\": 1, \"tool\": \"pgo 0.1.0\",\n"
		" \"command\": \"./bench --size 10\",\n"
		" \"binary\": { \"path\": \"/abs/path/bench\", \"build_id\": \"f009107f46f1...\" },\n"
		" \"event\": \"task-clock\", \"rate_hz\": 999, \"unit\": \"ns\", \"views\": [\"cpu\", \"offcpu\"],\n"
		" \"runs\": [ { \"run\": 0, \"pid\": 30356, \"duration_ns\": 1021000000, \"cpu_ns\": 1001001000,\n"
		"   \"offcpu_ns\": 20000000, \"samples\": 1000, \"lost\": 0,\n"
		"   \"cpu\": { \"main;process;hash_block\": 401401000, \"main;parse_line\": 200200200 },\n"
		"   \"offcpu\": { \"main;wait_for_io;[sleep]\": 20000000 } } ],\n"
		" \"host\": \"ignored\", \"threads\": 3 }\n";
	struct convert_stackset s = CONVERT_STACKSET_INIT;

	T_ASSERT(parse(doc, &s) == 0);
	T_ASSERT(s.nr_runs == 1 && s.runs[0].cpu_ns == 1001001000);
	T_ASSERT_EQ_U64(convert_run_total(&s.runs[0], CONVERT_VIEW_CPU), 601601200);
	convert_stackset_release(&s);
	return T_OK;
}

/* Each bad profile must fail, leave the set empty, and (checked by eye in the TAP log) say why. */
static int test_rejects(void)
{
	static const char *const bad[] = {
		"",
		"[]",
		"{\"format\": \"perf\", \"version\": 1, \"unit\": \"ns\", \"runs\": []}",
		"{\"version\": 1, \"unit\": \"ns\", \"runs\": []}",
		"{\"format\": \"pgo-profile\", \"version\": 2, \"unit\": \"ns\", \"runs\": []}",
		"{\"format\": \"pgo-profile\", \"version\": \"1\", \"unit\": \"ns\", \"runs\": []}",
		"{\"format\": \"pgo-profile\", \"version\": 1, \"unit\": \"samples\", \"runs\": []}",
		"{\"format\": \"pgo-profile\", \"version\": 1, \"runs\": []}",
		"{\"format\": \"pgo-profile\", \"version\": 1, \"unit\": \"ns\"}",
		"{\"format\": \"pgo-profile\", \"version\": 1, \"unit\": \"ns\", \"runs\": {}}",
		"{\"format\": \"pgo-profile\", \"version\": 1, \"unit\": \"ns\", \"runs\": [1]}",
		"{\"format\": \"pgo-profile\", \"version\": 1, \"unit\": \"ns\", \"runs\": [{\"cpu\": {}}, {\"run\": 0, \"cpu\": {}}]}",
		"{\"format\": \"pgo-profile\", \"version\": 1, \"unit\": \"ns\", \"runs\": [{\"run\": 0}]}",
		"{\"format\": \"pgo-profile\", \"version\": 1, \"unit\": \"ns\", \"runs\": [{\"run\": -1, \"cpu\": {}}]}",
		"{\"format\": \"pgo-profile\", \"version\": 1, \"unit\": \"ns\", \"runs\": [{\"run\": 0, \"cpu\": {\"a\": -5}}]}",
		"{\"format\": \"pgo-profile\", \"version\": 1, \"unit\": \"ns\", \"runs\": [{\"run\": 0, \"cpu\": {\"a\": 1.5}}]}",
		"{\"format\": \"pgo-profile\", \"version\": 1, \"unit\": \"ns\", \"runs\": [{\"run\": 0, \"cpu\": {\"a;;b\": 1}}]}",
		"{\"format\": \"pgo-profile\", \"version\": 1, \"unit\": \"ns\", \"runs\": [{\"run\": 0, \"cpu\": {\"\": 1}}]}",
		"{\"format\": \"pgo-profile\", \"version\": 1, \"unit\": \"ns\", \"runs\": [{\"run\": 0, \"cpu\": {\"a\": 1, \"a\": 2}}]}",
		"{\"format\": \"pgo-profile\", \"version\": 1, \"unit\": \"ns\", \"runs\": [{\"run\": 0, \"cpu\": {}}, {\"run\": 0, \"cpu\": {}}]}",
		"{\"format\": \"pgo-profile\", \"version\": 1, \"unit\": \"ns\", \"runs\": [{\"run\": 0, \"cpu\": []}]}",
		"{\"format\": \"pgo-profile\", \"version\": 1, \"unit\": \"ns\", \"runs\": [{\"run\": 0, \"cpu\": {}, \"offcpu\": 3}]}",
		"{\"format\": \"pgo-profile\", \"version\": 1, \"unit\": \"ns\", \"views\": [\"wall\"], \"runs\": []}",
		"{\"format\": \"pgo-profile\", \"version\": 1, \"unit\": \"ns\", \"binary\": \"x\", \"runs\": []}",
		"{\"format\": \"pgo-profile\", \"version\": 1, \"unit\": \"ns\", \"tool\": 5, \"runs\": []}",
		"{\"format\": \"pgo-profile\", \"version\": 1, \"unit\": \"ns\", \"rate_hz\": -1, \"runs\": []}",
		"{\"format\": \"pgo-profile\", \"version\": 1, \"unit\": \"ns\", \"runs\": [{\"run\": 0, \"cpu\": {\"a\": 99999999999999999999}}]}",
		"{\"format\": \"pgo-profile\", \"version\": 1, \"unit\": \"ns\", \"runs\": [{\"run\": 0, \"cpu\": {\"a\": 1}}]",
		"{\"format\": \"pgo-profile\", \"version\": 1, \"unit\": \"ns\", \"runs\": [{\"run\": 0, \"cpu\": {\"a\\u0000b\": 1}}]}",
		"{\"format\": \"pgo-profile\", \"version\": 1, \"unit\": \"ns\", \"dsos\": [], \"runs\": []}",
		"{\"format\": \"pgo-profile\", \"version\": 1, \"unit\": \"ns\", \"dsos\": {\"x\": {}}, \"runs\": []}",
		"{\"format\": \"pgo-profile\", \"version\": 1, \"unit\": \"ns\", \"dsos\": {\"x\": {\"own\": 1, \"frames\": []}}, \"runs\": []}",
		"{\"format\": \"pgo-profile\", \"version\": 1, \"unit\": \"ns\", \"dsos\": {\"x\": {\"frames\": [\"a;b\"]}}, \"runs\": []}",
		"{\"format\": \"pgo-profile\", \"version\": 1, \"unit\": \"ns\", \"dsos\": {\"x\": {\"frames\": [\"\"]}}, \"runs\": []}",
		"{\"format\": \"pgo-profile\", \"version\": 1, \"unit\": \"ns\", \"dsos\": {\"\": {\"frames\": [\"a\"]}}, \"runs\": []}",
		("{\"format\": \"pgo-profile\", \"version\": 1, \"unit\": \"ns\", \"runs\": [{\"run\": 0, \"cpu\": "
		 "{\"a\": 9223372036854775807, \"b\": 1}}, {\"run\": 1, \"cpu\": {\"a\": 9223372036854775807}}]}"),
	};
	size_t i;

	for (i = 0; i < PGO_ARRAY_SIZE(bad); i++) {
		struct convert_stackset s = CONVERT_STACKSET_INIT;
		int r = parse(bad[i], &s);

		/* the last one is valid JSON: the overflow only shows when runs are summed */
		if (i + 1 == PGO_ARRAY_SIZE(bad)) {
			struct convert_stack_weight *sw;
			size_t nr;

			T_ASSERT(r == 0);
			T_ASSERT(convert_stackset_collect(&s, CONVERT_VIEW_CPU, -1, &sw, &nr) == 0);
			T_ASSERT(nr == 2 && sw[0].weight == (uint64_t)9223372036854775807 * 2);
			free(sw);
			convert_stackset_release(&s);
			continue;
		}
		if (r != -1)
			fprintf(stderr, "# accepted bad profile %zu: %s\n", i, bad[i]);
		T_ASSERT(r == -1);
		T_ASSERT(s.nr_runs == 0 && s.stacks.nr == 0 && s.tool == NULL);
	}
	return T_OK;
}

static int test_load_file(void)
{
	struct convert_stackset s = CONVERT_STACKSET_INIT;
	char path[] = "/tmp/pgo-unit-json.XXXXXX";
	const char *j = "{\"format\": \"pgo-profile\", \"version\": 1, \"unit\": \"ns\", \"runs\": "
			"[{\"run\": 3, \"cpu\": {\"main;f\": 12}}]}";
	int fd = mkstemp(path);

	T_ASSERT(fd >= 0);
	T_ASSERT(write(fd, j, strlen(j)) == (ssize_t)strlen(j));
	close(fd);
	T_ASSERT(convert_profile_json_load(path, &s) == 0);
	T_ASSERT(s.nr_runs == 1 && s.runs[0].run == 3 && s.runs[0].pid == -1);
	convert_stackset_release(&s);
	unlink(path);
	T_ASSERT(convert_profile_json_load(path, &s) == -1);
	return T_OK;
}

static const struct t_case cases[] = {
	{ "write, read back, write again gives the same bytes", test_round_trip },
	{ "the example in docs/profile-json.md parses", test_doc_example },
	{ "malformed profiles are rejected", test_rejects },
	{ "load from a file; a missing file is an error", test_load_file },
};
T_MAIN(cases)
