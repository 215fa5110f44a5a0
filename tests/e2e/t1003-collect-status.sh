#!/usr/bin/env bash
# pgo collect exits with the benchmark's status (128+N when killed by signal N), passes
# SIGINT/SIGTERM on, and still writes a valid file.
. "$(dirname "$0")/lib.sh"
EX=$PGO_ROOT/$PGO_BUILD/examples

if ! test_have_prereq PERF; then skip_all "perf not installed"; test_done; fi

perf_reads() {
	perf script -i "$1" >"$1.script" 2>"$1.err" && test_must_be_empty "$1.err" &&
	test_grep "burn" "$1.script"
}

test_expect_success 'exit code 3 is passed through; the file is written' '
	test_expect_code 3 pgo collect -q -o code.data "$EX/exitcode" 3 &&
	perf_reads code.data
'
test_expect_success 'a benchmark killed by SIGKILL gives 137' '
	test_expect_code 137 pgo collect -q -o kill.data "$EX/exitcode" sig:9 &&
	perf_reads kill.data
'
test_expect_success 'a benchmark killed by SIGSEGV gives 139' '
	test_expect_code 139 pgo collect -q -o segv.data "$EX/exitcode" sig:11 &&
	perf_reads segv.data
'
test_expect_success '-r 5 stops at the first failing run and keeps its status' '
	test_expect_code 4 pgo collect -r 5 -o fail.data "$EX/exitcode" 4 2>err &&
	test_grep "pgo collect: 1 run," err &&
	grep -a -q "run index=1 .* status=4 " fail.data &&
	perf_reads fail.data
'

# Start a never-ending benchmark, wait until it runs, send SIG to pgo collect.
interrupt() {
	local sig=$1 out=$2 pid i
	rm -f ready
	pgo collect -o "$out" "$EX/exitcode" wait >ready 2>collect.err &
	pid=$!
	for i in $(seq 100); do grep -q ready ready 2>/dev/null && break; sleep 0.1; done
	grep -q ready ready || { kill -9 $pid; return 1; }
	sleep 0.3
	kill -$sig $pid
	rc=0; wait $pid || rc=$?
	echo "rc $rc"
}
test_expect_success 'SIGINT is forwarded: exit 130 and a valid file' '
	interrupt INT int.data >rc.out && cat rc.out collect.err &&
	test_grep "^rc 130$" rc.out &&
	test_grep "interrupted" collect.err &&
	perf_reads int.data &&
	test_grep "status=130" int.data
'
test_expect_success 'SIGTERM is forwarded: exit 143 and a valid file' '
	interrupt TERM term.data >rc.out && cat rc.out &&
	test_grep "^rc 143$" rc.out &&
	perf_reads term.data
'
test_expect_success 'no temporary file is left behind' '
	ls -a >files && test_grep -v "\.tmp\." files
'
test_done
