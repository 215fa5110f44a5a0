#!/usr/bin/env bash
# gcc's hot/cold partitioning moves a rarely-taken branch out to work.cold, a part that
# work jumps to and never calls. gcc reads work.cold's counts as work's, so pgo convert
# merges them, but the part is no entry: its first block's count must not be added to
# work's head (it was, and the head came out as the sum of both parts' largest lines).
. "$(dirname "$0")/lib.sh"
. "$PGO_ROOT/tests/e2e/convert-lib.sh"

if ! test_have_prereq PERF || ! perf record -q -e cpu-clock -o probe.data true 2>/dev/null; then
	skip_all "perf record does not work here"
test_done
fi

test_expect_success 'gcc splits work into work and work.cold' '
	gcc -O2 -g -fno-omit-frame-pointer -o cold "$FIX/cold.c" &&
	nm cold >syms && test_grep " T work$" syms && test_grep " t work\.cold$" syms &&
	objdump -d -l --no-show-raw-insn cold >asm &&
	sed -n "/<work\.cold>:/,/^$/p" asm >cold.asm &&
	test_grep "cold\.c:$(grep -n "s ^= (s >> 7)" "$FIX/cold.c" | cut -d: -f1)" cold.asm
'
test_expect_success 'both parts ran: perf script has samples in each' '
	perf record -q -g -e cpu-clock -c 50000 -o g.data ./cold 3000000 >/dev/null 2>&1 &&
	perf script -i g.data -F ip,sym >stacks &&
	awk "NF == 0 { n = 0; next } ++n == 1 { print \$2 }" stacks | sort | uniq -c >leaves &&
	test_grep " work$" leaves && test_grep " work\.cold$" leaves
'
test_expect_success 'the cold part is in work, and work is entered no more than its lines ran' '
	pgo convert --to autofdo -i g.data -b cold -o g.afdo &&
	pgo convert --dump g.afdo >dump &&
	! grep -q "^work\." dump &&
	fl=$(grep -n "^work(" "$FIX/cold.c" | cut -d: -f1) &&
	cl=$(grep -n "s ^= (s >> 7)" "$FIX/cold.c" | cut -d: -f1) &&
	sed -n "/^work:/,/^[^ ]/p" dump >work &&
	c=$(dump_count dump work $((cl - fl))) && test "$c" -gt 0 &&
	head=$(sed -n "s/^work: head \([0-9]*\),.*/\1/p" dump) &&
	max=$(awk "/^  \+[0-9]+: [0-9]+/ { v = \$2 + 0; if (v > m) m = v } END { print m + 0 }" work) &&
	echo "head $head, largest line $max, cold loop line $c" &&
	test "$head" -ge 1 && test "$head" -le "$max"
'
test_done
