#!/usr/bin/env bash
# pgo convert under valgrind memcheck: the perf.data -> stacks -> SVG path and the profile
# JSON round trip run with no invalid access and no leak. Slow (libdw under memcheck:
# about a minute on a busy machine), so it runs when PGO_TEST_VALGRIND=1 (.ci/run sets it).
. "$(dirname "$0")/lib.sh"
CS=$PGO_HELPERS/callstacks

if [ -z "${PGO_TEST_VALGRIND:-}" ]; then
	skip_all "set PGO_TEST_VALGRIND=1 to run (slow)"
	test_done
fi
if ! command -v valgrind >/dev/null || ! test_have_prereq PERF NOT_SANITIZED; then
	skip_all "needs valgrind, perf and a build without sanitizers"
	test_done
fi

vg() { valgrind -q --leak-check=full --show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite,indirect --error-exitcode=99 "$@"; }

test_expect_success 'perf.data to svg: clean under memcheck' '
	perf record -q -g -e task-clock -F 499 -o perf.data "$CS" 10 >/dev/null 2>&1 &&
	vg pgo convert --to svg -i perf.data -o out.svg 2>err || { cat err; exit 1; }
	xmllint --noout out.svg
'
test_expect_success 'profile JSON to json and folded: clean under memcheck' '
	pgo convert --to json -i perf.data -o p.json &&
	vg pgo convert --to json -i p.json -o q.json 2>err || { cat err; exit 1; }
	test_cmp p.json q.json &&
	vg pgo convert --to folded --view offcpu -i p.json -o off.folded 2>err || { cat err; exit 1; }
'
test_expect_success 'a bad profile JSON: clean under memcheck, exit 2' '
	echo "{\"format\": \"pgo-profile\", \"version\": 1, \"unit\": \"ns\", \"runs\": [{\"run\": 0, \"cpu\": {\"a\": -1}}]}" >bad.json &&
	test_expect_code 2 vg pgo convert --to svg -i bad.json -o bad.svg 2>err &&
	test_grep "bad.json" err && test_grep -v "==[0-9]+==" err
'
test_done
