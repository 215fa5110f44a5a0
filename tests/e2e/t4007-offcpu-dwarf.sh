#!/usr/bin/env bash
# Off-CPU user stacks unwound in the kernel from .eh_frame tables, on a program built the
# default way (-O2 -g, no frame pointers; Debian's libc has none either): waits made
# through libc (nanosleep, read on a pipe, pthread_mutex_lock, pthread_cond_wait, a wait in
# a signal handler) carry the whole user stack, down to _start for the main thread and the
# child process and to clone3 for threads. The truth is the helper's construction
# (tests/helpers/nofp-waits.c: each wait function has known callers).
. "$(dirname "$0")/lib.sh"
. "$PGO_ROOT/tests/e2e/offcpu-lib.sh"
offcpu_require

H=$PGO_HELPERS/nofp-waits

# complete < stacks: "wait_ns complete_ns" over the stacks with a libc wait in them
complete() {
	awk '$2 ~ /(clock_nanosleep|__nanosleep|libc_read|__read|lll_lock_wait|futex_abstimed_wait|futex_wait)/ {
		w += $1; if ($2 ~ /;(_start|clone3|clone)$/) c += $1 }
		END { printf "%.0f %.0f\n", w, c }'
}

test_expect_success BPF,PERF 'collect: dwarf user stacks, counted by how they ended' '
	pgo collect -o waits.data -- "$H" 6 20 >out 2>err &&
	test_grep "off-CPU user stacks: dwarf, [0-9]+ of [0-9]+ complete" err &&
	perf_stacks waits.data offcpu-time >off &&
	test_must_be_empty_err perf-script.err
'

test_expect_success BPF,PERF '>= 95% of the time waited through libc has the whole user stack' '
	read -r waited whole <<-EOF &&
	$(complete <off)
	EOF
	echo "waited $waited ns, $whole ns with the whole user stack" &&
	test "$waited" -ge 1000000000 &&
	test $((whole * 100)) -ge $((waited * 95))
'

test_expect_success BPF,PERF 'each wait has its callers, as the helper is built' '
	test_grep "clock_nanosleep[^;]*;__nanosleep;wait_nanosleep;one_round;rounds_on;run_rounds;main;__libc_start_call_main;__libc_start_main[^;]*;_start$" off &&
	test_grep ";read;wait_pipe;one_round;rounds_on;run_rounds;main;" off &&
	test_grep "lll_lock_wait;pthread_mutex_lock[^;]*;wait_mutex;one_round;rounds_on;run_rounds;main;" off &&
	test_grep "pthread_cond_wait[^;]*;wait_cond;one_round;rounds_on;run_rounds;main;" off
'

test_expect_success BPF,PERF 'threads down to start_thread, the child process down to _start' '
	test_grep ";wait_pipe;one_round;rounds_on;worker_main;start_thread;clone3$" off &&
	test_grep ";wait_cond;one_round;rounds_on;worker_main;start_thread;clone3$" off &&
	test_grep ";hold_and_release;holder_main;start_thread;clone3$" off &&
	test_grep ";wait_mutex;one_round;rounds_on;run_child;run_rounds;main;.*;_start$" off
'

test_expect_success BPF,PERF 'a wait in a signal handler: through __restore_rt to the interrupted call' '
	test_grep ";__nanosleep;wait_in_handler;on_signal;__restore_rt;[^;]*kill;raise_signal;one_round;rounds_on;run_rounds;main;" off
'

test_expect_success BPF,PERF 'no frame is out of place: every wait_* frame is called by one_round' '
	grep ";wait_\(nanosleep\|pipe\|mutex\|cond\);" off >waits &&
	test_grep -v ";wait_\(nanosleep\|pipe\|mutex\|cond\);one_round;" waits
'

test_expect_success BPF,PERF '--off-cpu-unwind fp: the frame-pointer walk, as before' '
	pgo collect -o fp.data --off-cpu-unwind fp -- "$H" 2 20 >out 2>err &&
	test_grep -v "off-CPU user stacks: dwarf" err &&
	test_grep "libc callers recovered [1-9]" err
'

test_expect_success BPF,PERF 'wall view of a half-compute half-sleep program without frame pointers' '
	pgo collect -q -o sleep.data -- "$PGO_HELPERS/nofp-sleep" 8 50 >/dev/null &&
	pgo convert --to folded --view wall -i sleep.data -o wall.folded &&
	sleep_all=$(awk "/\\[sleep\\] [0-9]+\$/ { s += \$NF } END { printf \"%.0f\", s }" wall.folded) &&
	sleep_wait=$(awk "/;main;wait_for_io;.*\\[sleep\\] [0-9]+\$/ { s += \$NF } END { printf \"%.0f\", s }" wall.folded) &&
	echo "sleep: $sleep_wait of $sleep_all ns under main;wait_for_io" &&
	test "$sleep_all" -ge 400000000 &&
	test $((sleep_wait * 100)) -ge $((sleep_all * 95))
'

test_done
