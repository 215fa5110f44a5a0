#!/usr/bin/env bash
# pgo gate on a real program collected with pgo collect (tests/helpers/gate-work: known
# shares, work_d ~10%): two collections of the same binary pass; +5% of total time added
# to work_d's own loop fails naming exactly work_d; work_a (the hottest, 40%) made 2x
# faster flags nothing; and the git flow records with a real collection, a regressing
# commit is checked (exit 1) and the notes ref exists. perf.data files are gate inputs.
# The comparisons use q = 0.01 (Q below): the test machine is shared with other jobs, and
# at q = 0.05 an A/A false flag somewhere is expected in a few percent of runs (bench/gate-synth.sh
# measures that rate); the regressions here are far above the q = 0.01 detection limit.
. "$(dirname "$0")/lib.sh"
W=$PGO_HELPERS/gate-work
RUN="-r 5 -F 1999"
Q="--q 0.01"

if ! test_have_prereq PERF; then skip_all "perf events not available"; test_done; fi

test_expect_success 'collect: baseline, A/A, +5% of total in work_d, work_a 2x faster' '
	pgo collect -q $RUN -o base.data -- "$W" 50 &&
	pgo collect -q $RUN -o same.data -- "$W" 50 &&
	pgo collect -q $RUN -o slow.data -- "$W" 50 inject 5 &&
	pgo collect -q $RUN -o fast.data -- "$W" 50 faster 2
'
test_expect_success 'two collections of the same binary pass (exit 0)' '
	test_expect_code 0 pgo gate compare $Q base.data same.data >out &&
	test_grep "^verdict: pass" out
'
test_expect_success '+5% of total in work_d fails (exit 1) with work_d the only root cause' '
	test_expect_code 1 pgo gate compare $Q base.data slow.data --json v.json >out &&
	test_grep "^work_d +self .*ROOT CAUSE" out &&
	test "$(grep -c "ROOT CAUSE" out)" = 1 &&
	python3 -c "import json,sys; v=json.load(open(\"v.json\")); r=[x for x in v[\"results\"] if x[\"function\"]==\"work_d\" and x[\"kind\"]==\"self\"][0]; sys.exit(0 if v[\"root_causes\"]==[\"work_d\"] and 0.03 < r[\"delta\"] < 0.07 else 1)"
'
test_expect_success 'the hottest function 2x faster flags nothing else (exit 0)' '
	test_expect_code 0 pgo gate compare $Q base.data fast.data >out &&
	test_grep "^work_a +self .*improved" out &&
	test_grep -v "ROOT CAUSE|via" out
'
test_expect_success 'a truncated perf.data and another binary are errors (exit 2)' '
	head -c 20000 base.data >trunc.data &&
	test_expect_code 2 pgo gate compare trunc.data same.data 2>err &&
	test_grep "trunc.data" err &&
	pgo collect -q -r 2 -o other.data -- "$PGO_ROOT/$PGO_BUILD/examples/shares" 2 >/dev/null &&
	test_expect_code 2 pgo gate compare base.data other.data 2>err &&
	test_grep "same program" err
'
test_expect_success 'git flow: record, regressing commit, check exits 1; notes ref exists' '
	mkdir repo && cd repo && git init -q -b main &&
	echo "none 0" >gate-work.inject && git add gate-work.inject &&
	git -c user.name=t -c user.email=t@t commit -q -m base &&
	pgo gate record $RUN -- "$W" 50 2>err &&
	test_grep "stored a 5-run profile" err &&
	git show-ref refs/notes/pgo >refs && test_grep refs/notes/pgo refs &&
	git checkout -q -b pr && echo "inject 5" >gate-work.inject &&
	git -c user.name=t -c user.email=t@t commit -q -am "slower work_d" &&
	test_expect_code 1 pgo gate check $RUN $Q --markdown c.md -- "$W" 50 >out 2>err &&
	test_grep "^work_d +self .*ROOT CAUSE" out && test_grep "work_d" c.md
'
test_expect_success 'check --confirm collects more runs on a flag and still fails on a real one' '
	cd repo &&
	test_expect_code 1 pgo gate check $RUN $Q --confirm --json v.json -- "$W" 50 >out 2>err &&
	test_grep "confirming on more head runs" err &&
	test_grep "\"head_runs\": 10" v.json &&
	test_grep "^work_d +self .*ROOT CAUSE" out
'
test_expect_success 'a failing benchmark is an error (exit 2), not a verdict' '
	cd repo &&
	test_expect_code 2 pgo gate check $RUN -- "$W" 2>err &&
	test_grep "failed" err
'
test_done
