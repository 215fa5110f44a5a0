#!/usr/bin/env bash
# pgo convert --threads: per thread, on-CPU + off-CPU time against the thread's lifetime.
. "$(dirname "$0")/lib.sh"

test_expect_success BPF,PERF 'two threads and main: each covered, none SHORT' '
	pgo collect -q -o mutex.data -- "$PGO_HELPERS/offcpu-mutex" 50 1000 >/dev/null &&
	pgo convert --threads -i mutex.data >threads &&
	test "$(grep -Ec "^ *[0-9]+ +[0-9]+ offcpu-mutex" threads)" = 3 &&
	test_grep "^# 3 threads: " threads &&
	test_grep -v "SHORT" threads
'

test_expect_success PERF 'without off-CPU a sleeping thread is SHORT' '
	pgo collect -q --no-off-cpu -o on.data -- "$PGO_HELPERS/offcpu-sleep" 4 30 >/dev/null &&
	pgo convert --threads -i on.data >threads &&
	test_grep "SHORT" threads &&
	test_grep "no offcpu-time event" threads
'

test_expect_success 'a missing file is an error' '
	test_expect_code 2 pgo convert --threads -i nosuch.data 2>err &&
	test_grep "nosuch.data" err
'

test_done
