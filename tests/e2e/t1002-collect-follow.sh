#!/usr/bin/env bash
# Every thread and every child process is sampled; repeated runs stay separable.
# The on-CPU sampler alone (--no-off-cpu): off-CPU samples would add to the counts (t4xxx
# test them); t1003 records with the defaults.
. "$(dirname "$0")/lib.sh"
EX=$PGO_ROOT/$PGO_BUILD/examples

if ! test_have_prereq PERF; then skip_all "perf not installed"; test_done; fi

test_expect_success 'samples from every thread' '
	pgo collect -q --no-off-cpu -o thr.data "$EX/threads" 4 150 >tids 2>err &&
	test_must_be_empty err &&
	test $(grep -c "^tid" tids) = 5 &&
	perf script -i thr.data -F tid,ip,sym >s.out 2>s.err &&
	test_must_be_empty s.err &&
	for t in $(awk "/^tid/ { print \$2 }" tids); do
		grep -q "^ *$t " s.out || { echo "no sample from tid $t"; exit 1; }
	done &&
	test_grep "worker_spin" s.out && test_grep "main_spin" s.out
'
test_expect_success 'samples from the exec child and the forked child, symbolized' '
	pgo collect -q --no-off-cpu -o fork.data "$EX/forks" 150 >pids 2>err &&
	test_must_be_empty err &&
	perf script -i fork.data -F pid,ip,sym >s.out 2>s.err &&
	test_must_be_empty s.err &&
	for role in parent exec-child forked-child; do
		pid=$(awk -v r=$role "\$1 == \"pid\" && \$2 == r { print \$3 }" pids) &&
		test -n "$pid" &&
		sym=$(echo $role | tr - _)_spin &&
		grep -A2 "^ *$pid " s.out | grep -q "$sym" ||
			{ echo "no $sym sample in pid $pid ($role)"; exit 1; }
	done
'
test_expect_success 'the exec child has its own comm and maps' '
	perf script -i fork.data --show-task-events --show-mmap-events >ev.out 2>ev.err &&
	test_must_be_empty ev.err &&
	test $(grep -c "PERF_RECORD_COMM exec: forks" ev.out) = 2 &&
	test $(grep -c "PERF_RECORD_FORK" ev.out) -ge 3
'
test_expect_success '-r 3: three runs, each a separate process tree under pgo' '
	pgo collect --no-off-cpu -r 3 -o runs.data "$EX/shares" 5 >/dev/null 2>err &&
	test_grep "^pgo collect: 3 runs, " err &&
	perf script -i runs.data --show-task-events >ev.out 2>ev.err &&
	test_must_be_empty ev.err &&
	grep "PERF_RECORD_FORK" ev.out >forks &&
	test $(wc -l <forks) = 3 &&
	sed -n "s/.*PERF_RECORD_FORK(\([0-9]*\):.*):(\([0-9]*\):.*/\1 \2/p" forks >pairs &&
	test $(awk "{ print \$2 }" pairs | sort -u | wc -l) = 1 &&
	pgo_pid=$(awk "{ print \$2; exit }" pairs) &&
	test_grep -v "PERF_RECORD_COMM.*:$pgo_pid/" ev.out &&
	test $(awk "{ print \$1 }" pairs | sort -u | wc -l) = 3 &&
	for p in $(awk "{ print \$1 }" pairs); do
		perf script -i runs.data -F pid 2>/dev/null | grep -q "^ *$p *$" ||
			{ echo "run $p has no samples"; exit 1; }
	done
'
test_expect_success '-r 3: per-run metadata names each run root, times and samples' '
	grep -a -o "run index=[0-9]* pid=[0-9]* start=[0-9]* end=[0-9]* status=0 samples=[0-9]*" runs.data >meta &&
	test $(wc -l <meta) = 3 &&
	awk "{ print \$3 }" meta | sed s/pid=// | sort >meta.pids &&
	awk "{ print \$1 }" pairs | sort >fork.pids &&
	test_cmp fork.pids meta.pids &&
	grep -a -q "totals runs=3 samples=" runs.data &&
	grep -a -q "event name=task-clock\|event name=cycles" runs.data
'
test_expect_success 'per-run sample counts in the metadata match perf script' '
	while read -r _ _ pid _ _ _ samples; do
		pid=${pid#pid=} samples=${samples#samples=} &&
		n=$(perf script -i runs.data -F pid 2>/dev/null | grep -c "^ *$pid *$") &&
		echo "run $pid: meta $samples perf $n" &&
		test "$n" = "$samples" || exit 1
	done <meta
'
test_done
