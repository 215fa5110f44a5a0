#!/usr/bin/env bash
# Errors exit 2 (64 for usage) with a clear message and leave no output file.
. "$(dirname "$0")/lib.sh"
EX=$PGO_ROOT/$PGO_BUILD/examples
HELP=$PGO_ROOT/$PGO_BUILD/tests/helpers

no_output() {
	ls -a >files && test_grep -v "pgo\.data|out\.data|\.tmp\." files
}

test_expect_success '--help shows usage and examples' '
	pgo collect --help >out && test_grep "^usage: pgo collect" out && test_grep "EXAMPLES" out &&
	pgo-collect --help >out2 && test_cmp out out2
'
test_expect_success 'command not found: exit 2, no file' '
	test_expect_code 2 pgo collect ./no-such-benchmark 2>err &&
	test_grep "cannot run .\./no-such-benchmark.*(No such file|not found)" err &&
	test_expect_code 2 pgo collect no-such-benchmark-in-path 2>err &&
	test_grep "command not found" err &&
	no_output
'
test_expect_success 'a file that is not executable: exit 2, no file' '
	echo "echo hi" >script.sh && chmod -x script.sh &&
	test_expect_code 2 pgo collect ./script.sh 2>err && test_grep "Permission denied" err &&
	test_expect_code 2 pgo collect "$TRASH" 2>err && test_grep "Is a directory" err &&
	rm script.sh && no_output
'
test_expect_success 'output not writable: exit 2, the benchmark never runs' '
	test_expect_code 2 pgo collect -o /nonexistent-dir/out.data -- sh -c "touch ran" 2>err &&
	test_grep "cannot create output file ./nonexistent-dir/out.data." err &&
	test ! -e ran &&
	: >afile && test_expect_code 2 pgo collect -o afile/out.data true 2>err &&
	test ! -e ran && rm afile && no_output
'
test_expect_success 'bad option values: usage error (exit 64) naming the value' '
	for bad in "-F 0" "-F abc" "-F 10ms" "-r 0" "-r -1" "--call-graph lbr" "--call-graph dwarf,13" "-e bogus"; do
		test_expect_code 64 pgo collect $bad true 2>err || exit 1
		test_grep "invalid|unknown event" err || exit 1
	done &&
	test_expect_code 64 pgo collect -F 500000 true 2>err && test_grep "perf_event_max_sample_rate|invalid" err &&
	no_output
'
test_expect_success 'usage errors: exit 64' '
	test_expect_code 64 pgo collect 2>err && test_grep "no command" err && test_grep "^usage:" err &&
	test_expect_code 64 pgo collect --frobnicate true 2>err && test_grep "unknown option" err &&
	test_expect_code 64 pgo collect -o 2>err && test_grep "missing value" err &&
	no_output
'
test_expect_success 'perf_event_open refused: exit 2 names the sysctl and capability, no file' '
	test_expect_code 2 "$HELP/noperf" pgo collect -o out.data true 2>err &&
	test_grep "perf_event_open refused" err &&
	test_grep "perf_event_paranoid" err && test_grep "CAP_PERFMON" err &&
	no_output
'
test_expect_success '-e cycles without a PMU is a clear error' '
	if perf stat -e cycles true 2>&1 | grep -q "not supported"; then
		test_expect_code 2 pgo collect -e cycles -o out.data true 2>err &&
		test_grep "no hardware PMU" err && no_output
	else
		pgo collect -q -e cycles -o out.data true && perf report -i out.data --header-only | grep -q "name = cycles"
	fi
'
test_expect_success 'the benchmark sees its own stdin, stdout and exit code' '
	echo input | test_expect_code 7 pgo collect -q -o out.data -- sh -c "cat; exit 7" >out 2>err &&
	test_grep "^input$" out && test_must_be_empty err && rm out.data
'
test_done
