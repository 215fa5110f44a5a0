#!/usr/bin/env bash
# pgo convert --view wall: on-CPU + off-CPU time in one view, the thread state as the leaf.
. "$(dirname "$0")/lib.sh"
. "$PGO_ROOT/tests/e2e/offcpu-lib.sh"
offcpu_require

# sum_leaf REGEX FILE: total weight of the folded lines matching REGEX.
sum_lines() { awk -v re="$1" '$0 ~ re { s += $NF } END { printf "%.0f\n", s }' "$2"; }

# The acceptance of issue 5: offcpu-sleep computes MS ms of CPU, then sleeps as long as
# that was on or waiting for a CPU (the scheduler's accounting, not wall time: wall time
# the guest cannot account, a hypervisor's stall, once made compute 38% and wait_for_io 62%
# in CI), so the split is 50/50 however loaded the machine is.
test_expect_success BPF,PERF 'wall view: wait_for_io and compute 40-60% each; CPU view: wait_for_io < 5%' '
	pgo collect -q -o sleep.data -- "$PGO_HELPERS/offcpu-sleep" 8 50 >/dev/null &&
	pgo convert --to folded --view wall -i sleep.data -o wall.folded &&
	pgo convert --to folded --view cpu -i sleep.data -o cpu.folded &&
	wall_all=$(sum_lines . wall.folded) &&
	wall_wait=$(sum_lines ";wait_for_io;" wall.folded) &&
	wall_compute=$(sum_lines ";compute;" wall.folded) &&
	cpu_wait=$(sum_lines ";wait_for_io" cpu.folded) && cpu_all=$(sum_lines . cpu.folded) &&
	echo "wall: wait_for_io $wall_wait, compute $wall_compute of $wall_all ns;" \
		"cpu: wait_for_io $cpu_wait of $cpu_all ns" &&
	test "$wall_wait" -ge 400000000 &&
	test $((wall_wait * 100)) -ge $((wall_all * 40)) && test $((wall_wait * 100)) -le $((wall_all * 60)) &&
	test $((wall_compute * 100)) -ge $((wall_all * 40)) && test $((wall_compute * 100)) -le $((wall_all * 60)) &&
	test $((cpu_wait * 20)) -lt "$cpu_all"
'

test_expect_success BPF,PERF 'wall view: the caller of the libc call is in the stack' '
	test_grep "(^|;)main;wait_for_io;[^;]*nanosleep[^;]*;.*\[sleep\] [0-9]+$" wall.folded
'

test_expect_success BPF,PERF 'every wall stack ends in a state; on-CPU time is the CPU view plus [running]' '
	test_grep -v "[^]] [0-9]+$" wall.folded &&
	test_grep -v ";\\[offcpu\\] " wall.folded &&
	sed "s/ \\([0-9]*\\)$/;[running] \\1/" cpu.folded | test_stable_ksyms | sort >expect &&
	grep "\\[running\\] [0-9]*$" wall.folded | test_stable_ksyms | sort >actual &&
	test_cmp expect actual
'

test_expect_success BPF,PERF 'the wall flame graph draws the states' '
	pgo convert --to svg --view wall -i sleep.data -o wall.svg &&
	test_grep "\\[sleep\\]" wall.svg &&
	test_grep "\\[running\\]" wall.svg &&
	test_grep "Wall-clock time" wall.svg
'

test_expect_success BPF,PERF 'the profile JSON keeps the views apart: --view wall is refused' '
	test_expect_code 2 pgo convert --to json --view wall -i sleep.data -o w.json 2>err &&
	test_grep "keeps the cpu and offcpu views apart" err &&
	test ! -e w.json
'

test_expect_success '--view with an unknown name is a usage error' '
	test_expect_code 64 pgo convert --to folded --view nap -i nosuch.data 2>err &&
	test_grep "expected cpu, offcpu or wall" err
'

test_done
