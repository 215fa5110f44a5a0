#!/usr/bin/env bash
# Lost records are counted and reported, never silent: stop pgo collect (so nobody drains
# the rings) while the benchmark keeps burning CPU at 20 kHz, until the 512 KiB per-CPU rings
# must have overflowed; then pgo's count must match the kernel's LOST records.
. "$(dirname "$0")/lib.sh"
EX=$PGO_ROOT/$PGO_BUILD/examples

if ! test_have_prereq PERF; then skip_all "perf not installed"; test_done; fi

# CPU seconds x 100 (clock ticks) used so far by process $1
ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

test_expect_success 'rings overflow while pgo is stopped' '
	pgo collect --no-off-cpu -F 20000 -o lost.data "$EX/exitcode" wait >ready 2>collect.err &
	pid=$! &&
	for i in $(seq 100); do grep -q ready ready 2>/dev/null && break; sleep 0.1; done &&
	child=$(pgrep -P $pid) && test -n "$child" &&
	kill -STOP $pid &&
	t0=$(ticks $child) &&
	# 150 ticks = 1.5 s of CPU = 30000 samples of ~90 bytes: far beyond 2 x 512 KiB
	for i in $(seq 300); do [ $(($(ticks $child) - t0)) -ge 150 ] && break; sleep 0.1; done &&
	echo "child used $(($(ticks $child) - t0)) ticks while pgo was stopped" &&
	kill -CONT $pid && sleep 0.2 && kill -INT $pid &&
	rc=0 && wait $pid || rc=$?
	test $rc = 130
'
test_expect_success 'pgo reports the loss on stderr and in the file, as the kernel counted it' '
	cat collect.err &&
	test_grep "warning: lost [1-9][0-9]* records" collect.err &&
	ours=$(sed -n "s/.*warning: lost \([0-9]*\) records.*/\1/p" collect.err) &&
	grep -a -q "totals runs=1 samples=[0-9]* lost=$ours " lost.data &&
	perf script -i lost.data --show-lost-events 2>/dev/null |
		sed -n "s/.*PERF_RECORD_LOST lost:* *\([0-9]*\).*/\1/p" >kernel.lost &&
	test -s kernel.lost &&
	theirs=$(awk "{ s += \$1 } END { print s }" kernel.lost) &&
	echo "pgo $ours kernel $theirs" && test "$ours" = "$theirs"
'
test_expect_success 'the file is still valid: perf reads every sample and notes the loss' '
	perf report -i lost.data --stats >stats 2>/dev/null &&
	test_grep "LOST events" stats && test_grep "SAMPLE events" stats
'
test_done
