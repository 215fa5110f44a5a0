#!/usr/bin/env bash
# pgo collect killed with SIGKILL at random moments, 50 times, writing over the same
# output name: that name always holds either the previous good file (byte-identical) or
# a complete new one that perf script reads without a warning. Leftovers may only be
# lib/atomicfile.c's temp files, ".<name>.tmp.XXXXXX" in the same directory.
. "$(dirname "$0")/lib.sh"
EX=$PGO_ROOT/$PGO_BUILD/examples

if ! test_have_prereq PERF; then skip_all "perf not installed"; test_done; fi

# perf_ok FILE: perf script reads FILE with no warning and finds samples of shares.
perf_ok() {
	perf script -i "$1" -F ip,sym >script.out 2>script.err &&
	test_must_be_empty script.err && test -s script.out
}

test_expect_success 'a first complete profile under the output name' '
	pgo collect -o out.data -- "$EX/shares" 3 >/dev/null 2>collect.err &&
	perf_ok out.data
'
test_expect_success 'SIGKILL at 0-300 ms, 50 runs: old file intact or a complete new one' '
	cp out.data prev.data &&
	new=0 kept=0 &&
	for i in $(seq 50); do
		pgo collect -o out.data -- "$EX/shares" 10 >/dev/null 2>/dev/null &
		pid=$! &&
		sleep 0.$((RANDOM % 3))$((RANDOM % 10))$((RANDOM % 10)) &&
		# the run may end before the kill, and then wait gives its status, not 137: the
		# file under the output name is what this test checks
		{ kill -9 $pid 2>/dev/null || :; } &&
		{ wait $pid 2>/dev/null || :; } &&
		test -s out.data || { echo "run $i: out.data missing or empty"; exit 1; }
		if cmp -s out.data prev.data; then
			kept=$((kept + 1))
		else
			perf_ok out.data || { echo "run $i: corrupt out.data"; cat script.err; exit 1; }
			cp out.data prev.data &&
			new=$((new + 1))
		fi || exit 1
	done &&
	echo "$new new files, $kept runs killed before the rename" &&
	# grep -v finds no stray file: its status 1 is the good case, the file decides
	{ ls -A | grep -v -E "^(out|prev)\.data$|^\.out\.data\.tmp\.[A-Za-z0-9]{6}$|^script\.(out|err)$|^collect\.err$|^\.out$|^stray$" >stray || :; } &&
	test_must_be_empty stray
'
test_done
