#!/usr/bin/env bash
# Lost records are counted and reported, never silent: stop pgo collect (so nobody drains
# the rings) while the benchmark keeps burning CPU at 20 kHz until the 512 KiB per-CPU rings
# must have overflowed, then end the benchmark before pgo resumes. The kernel then never gets
# to write a PERF_RECORD_LOST (it does so on the next write to the ring); pgo must still
# report every dropped record, from the events' lost counts.
. "$(dirname "$0")/lib.sh"
EX=$PGO_ROOT/$PGO_BUILD/examples

if ! test_have_prereq PERF; then skip_all "perf not installed"; test_done; fi

# CPU time in clock ticks (1/100 s) used so far by process $1
ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

test_expect_success 'rings overflow while pgo is stopped; the benchmark ends first' '
	pgo collect --no-off-cpu -F 20000 -o lost.data "$EX/exitcode" wait >ready 2>collect.err &
	pid=$! &&
	test_wait_until 100 "grep -q ready ready 2>/dev/null" &&
	child=$(pgrep -P $pid) && test -n "$child" &&
	kill -STOP $pid &&
	t0=$(ticks $child) &&
	# 150 ticks = 1.5 s of CPU = 30000 samples of ~90 bytes: far beyond 2 x 512 KiB
	test_wait_until 300 "[ \$((\$(ticks $child) - t0)) -ge 150 ]" &&
	ticks $child >cpu.ticks && kill -INT $child && sleep 0.2 &&
	kill -CONT $pid &&
	test_expect_code 130 wait $pid
'
test_expect_success 'pgo reports the loss on stderr and in the file, as perf reads it' '
	cat collect.err &&
	test_grep "warning: lost [1-9][0-9]* records" collect.err &&
	ours=$(sed -n "s/.*warning: lost \([0-9]*\) records.*/\1/p" collect.err) &&
	grep -a -q "totals runs=1 samples=[0-9]* lost=$ours " lost.data &&
	perf script -i lost.data --show-lost-events 2>/dev/null |
		sed -n "s/.*PERF_RECORD_LOST lost:* *\([0-9]*\).*/\1/p" >perf.lost &&
	test -s perf.lost &&
	theirs=$(awk "{ s += \$1 } END { print s }" perf.lost) &&
	echo "pgo $ours perf $theirs" && test "$ours" = "$theirs"
'
test_expect_success 'samples + lost account for the CPU time at 20 kHz' '
	n=$(sed -n "s/.* \([0-9]*\) samples, \([0-9]*\) lost,.*/\1 \2/p" collect.err) &&
	awk -v t=$(cat cpu.ticks) -v n="$n" "BEGIN { split(n, a, \" \"); r = (a[1] + a[2]) / (t / 100 * 20000);
		print \"samples\", a[1], \"lost\", a[2], \"ratio\", r; exit !(r > 0.9 && r < 1.1) }"
'
test_expect_success 'the file is still valid: perf reads every sample and notes the loss' '
	perf report -i lost.data --stats >stats 2>/dev/null &&
	test_grep "LOST events" stats && test_grep "SAMPLE events" stats
'
test_done
