#!/usr/bin/env bash
# An off-CPU stack's kernel frames end the same way whether or not another probe shares the
# sched_switch tracepoint. With one (perf record -e sched:sched_switch here) the kernel calls
# the probes through an iterator, one frame more above __schedule; the collector drops the
# tracing frames by count, so the raw stacks gain __schedule as their leaf. convert drops it:
# the wait ends at schedule either way (convert/stacks.c).
. "$(dirname "$0")/lib.sh"
. "$PGO_ROOT/tests/e2e/offcpu-lib.sh"
offcpu_require

H=$PGO_HELPERS/offcpu-sleep

# Another BPF program on sched_switch (another job's pgo collect --off-cpu on a shared
# machine) brings the iterator frame into every stack: then no collection here is alone.
if command -v bpftool >/dev/null && bpftool prog show 2>/dev/null | grep -q " name sched_switch"; then
	test_set_prereq ALONE "another BPF program is on sched_switch now (another job's pgo collect --off-cpu?)"
else
	test_set_prereq ALONE
fi

test_expect_success BPF,PERF,ALONE 'alone: the converted stacks end at schedule' '
	pgo collect -q --off-cpu -o alone.data -- "$H" 4 5 >/dev/null &&
	perf_stacks alone.data offcpu-time >alone.raw &&
	test_grep "^[0-9]+ (__)?schedule;do_nanosleep" alone.raw &&
	pgo convert -q --to folded --view offcpu -i alone.data -o alone.folded &&
	test_grep "do_nanosleep_\[k\];schedule_\[k\];\[sleep\]" alone.folded
'

test_expect_success BPF,PERF 'beside perf record -e sched:sched_switch: raw stacks start at __schedule, converted ones at schedule' '
	perf record -q -e sched:sched_switch -a -o bg.data -- sleep 3 >/dev/null 2>&1 &
	bg=$! && sleep 1 &&
	pgo collect -q --off-cpu -o shared.data -- "$H" 4 5 >/dev/null &&
	wait $bg &&
	perf_stacks shared.data offcpu-time >shared.raw &&
	test_grep "^[0-9]+ __schedule;schedule;do_nanosleep" shared.raw &&
	pgo convert -q --to folded --view offcpu -i shared.data -o shared.folded &&
	test_grep "do_nanosleep_\[k\];schedule_\[k\];\[sleep\]" shared.folded &&
	test_grep -v "__schedule_\[k\];\[" shared.folded
'
test_done
