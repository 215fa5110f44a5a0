#!/usr/bin/env bash
# Off-CPU time of a program that sleeps half the time under wait_for_io(): recorded as the
# offcpu-time event with the caller of the libc call in the stack, read by perf without warnings.
. "$(dirname "$0")/lib.sh"
. "$PGO_ROOT/tests/e2e/offcpu-lib.sh"
offcpu_require

H=$PGO_HELPERS/offcpu-sleep

test_expect_success BPF,PERF 'collect records offcpu-time by default' '
	pgo collect -o sleep.data -- "$H" 8 50 >out 2>err &&
	test_grep "off-CPU: .* s in [0-9]+ samples; [0-9]+ switches followed" err &&
	perf report -i sleep.data --stats 2>/dev/null >stats &&
	test_grep "offcpu-time" stats
'

test_expect_success BPF,PERF 'perf script shows wait_for_io as the caller of clock_nanosleep' '
	perf_stacks sleep.data offcpu-time >off &&
	test_grep "clock_nanosleep[^;]*;(__nanosleep;)?wait_for_io;main" off &&
	test_must_be_empty_err perf-script.err
'

test_expect_success BPF,PERF 'the wait is the 8 x 50 ms asked for, filed under wait_for_io' '
	waited=$(sum_matching ";wait_for_io;" <off) &&
	echo "waited $waited ns" &&
	{ test "$waited" -ge 400000000 || { cat err off; false; }; } &&
	test "$waited" -lt 4000000000
'

test_expect_success BPF,PERF 'on-CPU samples put compute on the CPU, wait_for_io under 5%' '
	perf_stacks sleep.data task-clock >on &&
	test_grep "^[0-9]+ compute;main" on &&
	all=$(sum_matching "." <on) && wait=$(sum_matching "wait_for_io" <on) &&
	echo "on-CPU: $wait of $all ns under wait_for_io" &&
	test $((wait * 20)) -lt "$all"
'

test_expect_success BPF,PERF 'perf report reads both events without warnings' '
	perf report -i sleep.data --stdio >report 2>report.err &&
	test_grep "of event .task-clock." report &&
	test_grep "of event .offcpu-time." report &&
	test_grep "wait_for_io" report &&
	test_must_be_empty_err report.err
'

test_expect_success BPF,PERF 'the thread state is in the raw data: sleep (1)' '
	perf script -i sleep.data -F event,bpf-output 2>/dev/null >raw &&
	test_grep "4f 46 46 43 01 01" raw
'

test_done
