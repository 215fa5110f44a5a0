#!/usr/bin/env bash
# pgo convert --threads without off-CPU data (t4002 checks it with): sleeping shows as SHORT.
. "$(dirname "$0")/lib.sh"

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
