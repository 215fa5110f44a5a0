#!/usr/bin/env bash
# Two threads fighting over a mutex: the futex wait shows up under contended().
. "$(dirname "$0")/lib.sh"
. "$PGO_ROOT/tests/e2e/offcpu-lib.sh"

test_expect_success BPF,PERF 'the futex wait is filed under the contended function' '
	pgo collect -o mutex.data -- "$PGO_HELPERS/offcpu-mutex" 100 1000 >out 2>err &&
	perf_stacks mutex.data offcpu-time >off &&
	test_grep "futex_wait.*;__GI___lll_lock_wait;contended;worker;start_thread" off &&
	waited=$(sum_matching "lll_lock_wait;contended;" <off) &&
	echo "waited $waited ns under contended" &&
	test "$waited" -ge 1000000
'

test_expect_success BPF,PERF 'perf report shows both events for the threads' '
	perf report -i mutex.data --stdio --sort comm,sym >report 2>report.err &&
	test_grep "of event .offcpu-time." report &&
	test_grep "contended" report &&
	test_must_be_empty_err report.err
'

test_done
