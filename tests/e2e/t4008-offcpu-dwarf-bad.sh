#!/usr/bin/env bash
# Off-CPU DWARF unwinding with bad or missing unwind information: the stack stops at the
# last frame that could be found, with the reason counted on the summary line; never a
# wrong frame, never a crash. Copies of tests/helpers/nofp-waits: stripped of its symbols
# (.eh_frame stays: the stacks are still whole), without .eh_frame, and with a corrupted
# .eh_frame (a record length running past the section).
. "$(dirname "$0")/lib.sh"
. "$PGO_ROOT/tests/e2e/offcpu-lib.sh"
offcpu_require

H=$PGO_HELPERS/nofp-waits

# corrupt_eh_frame FILE: set the length of the first record of FILE's .eh_frame to 0xfffffff0
corrupt_eh_frame() {
	hex=$(readelf -SW "$1" | awk '$2 == ".eh_frame" { print $5 }') && off=$((16#$hex)) &&
	test -n "$off" &&
	printf '\360\377\377\377' | dd of="$1" bs=1 seek="$off" conv=notrunc status=none
}

# stacks_stop_in BINARY STACKS: no stack of STACKS (leaf first) goes on past its first
# function of BINARY: the CFI of libc leads into the binary, and the binary has none. The
# first frame may be any function of it (one_round, when wait_mutex tail-calls the unlock).
# The offending stacks are printed.
stacks_stop_in() {
	nm --defined-only "$1" | awk '$2 ~ /^[tT]$/ { print $3 }' >own &&
	test -s own &&
	awk -F";" 'NR == FNR { own[$1] = 1; next }
		{ sub(/^[0-9]+ /, ""); for (i = 1; i < NF; i++) if (own[$i]) { print; bad = 1; break } }
		END { exit bad }' own "$2"
}

test_expect_success BPF,PERF 'stripped of symbols: .eh_frame is still there, the stacks are whole' '
	cp "$H" stripped && strip stripped &&
	pgo collect -o stripped.data -- ./stripped 2 20 >out 2>err &&
	test_grep "off-CPU user stacks: dwarf" err &&
	test_grep -v "no unwind table" err &&
	perf_stacks stripped.data offcpu-time >off &&
	test_grep "clock_nanosleep[^;]*;__nanosleep;\\[unknown\\];.*;__libc_start_call_main;__libc_start_main[^;]*;\\[unknown\\]$" off
'

test_expect_success BPF,PERF 'no .eh_frame: stacks stop at the first frame of the binary, counted' '
	objcopy --remove-section .eh_frame --remove-section .eh_frame_hdr "$H" noeh &&
	pgo collect -o noeh.data -- ./noeh 2 20 >out 2>err &&
	test_grep "truncated: [0-9]+.* [1-9][0-9]* no unwind table" err &&
	test_grep "[1-9][0-9]* files without one" err &&
	perf_stacks noeh.data offcpu-time >off &&
	test_grep "clock_nanosleep[^;]*;__nanosleep;wait_nanosleep$" off &&
	stacks_stop_in noeh off
'

test_expect_success BPF,PERF 'a corrupted .eh_frame: no table for the binary, stacks stop there, counted' '
	cp "$H" corrupt && corrupt_eh_frame corrupt &&
	{ ./corrupt 1 1 >/dev/null || true; } &&
	pgo collect -o corrupt.data -- ./corrupt 2 20 >out 2>err &&
	test_grep "[1-9][0-9]* no unwind table" err &&
	perf_stacks corrupt.data offcpu-time >off &&
	test_grep ";wait_pipe$" off &&
	stacks_stop_in "$H" off
'

test_done
