#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Inline instances from call stacks: in the profiled build main calls mix (small) and
# scramble (over the size threshold) in another translation unit, so -O2 cannot inline them.
# The DWARF-unwound stacks say which call site each sample of mix came through; pgo convert
# must write an instance of mix at main's hot call line (and none for scramble, nor for the
# cold last call of mix), and gcc -O2 -fauto-profile must then inline mix into main's loop
# when both are in one translation unit, which it does not do without the instance.
. "$(dirname "$0")/lib.sh"
. "$PGO_ROOT/tests/e2e/afdo-lib.sh"
afdo_require
# main's lines: main's definition is at line 17; the hot calls at 22 (mix) and 24 (scramble),
# the cold one at 25 (mix).
HOT="[+]5" BIG="[+]7" COLD="[+]8"

test_expect_success 'control: without the instance gcc does not inline mix' '
	grep -n "^int main" stkinl.c | grep -q "^17:" &&
	afdo_empty empty.afdo &&
	gcc -O2 -DONE_TU -fauto-profile=empty.afdo -S stkinl.c -o empty.s \
		-fdump-tree-einline-details=empty.einline &&
	test_grep -v "Inlining mix" empty.einline &&
	test_grep "call.*mix" empty.s
'

test_expect_success 'build the profiled binary (callees in their own translation unit)' '
	gcc -O2 -g -o stkinl stkinl.c stkinl-lib.c &&
	afdo_disas stkinl main >main.dis &&
	test_grep "call.*<mix>" main.dis && test_grep "call.*<scramble>" main.dis &&
	mix=$(afdo_size stkinl mix) && scr=$(afdo_size stkinl scramble) &&
	echo "bytes: mix $mix, scramble $scr (default threshold 320)" &&
	test "$mix" -le 160 && test "$scr" -gt 320
'

for rec in $(afdo_stack_recorders); do
	test_expect_success "$rec: an instance of mix at the hot call line, none for scramble or the cold call" '
		afdo_profile '$rec' stkinl 10000000 && cat '$rec'.main | grep inlined &&
		test_grep "^  $HOT: inlined mix, total" '$rec'.main &&
		test_grep -v "inlined scramble" '$rec'.main &&
		test_grep -v "^  $COLD: inlined" '$rec'.main &&
		afdo_gcc_clean '$rec'.afdo stkinl.c -DONE_TU &&
		gcc -O2 -DONE_TU -fauto-profile='$rec'.afdo -S stkinl.c -o '$rec'.s \
			-fdump-tree-einline-details='$rec'.einline &&
		test_grep "stkinl.c:22:[0-9]*: optimized: *Inlining mix[^ ]* into main" '$rec'.einline &&
		test_grep -v "stkinl.c:25:[0-9]*: optimized: *Inlining mix" '$rec'.einline &&
		test_grep -v "Inlining scramble" '$rec'.einline
	'

	test_expect_success "$rec: --inline-max-size 0 writes no instance; mix keeps its own profile" '
		pgo convert --to autofdo -i '$rec'.data -b stkinl -o '$rec'-0.afdo --inline-max-size 0 &&
		pgo convert --dump '$rec'-0.afdo >'$rec'-0.dump &&
		test_grep -v "inlined mix" '$rec'-0.dump &&
		afdo_section '$rec'.dump mix >with.mix && afdo_section '$rec'-0.dump mix >without.mix &&
		test_grep "^mix: head" with.mix && test_cmp without.mix with.mix &&
		gcc -O2 -DONE_TU -fauto-profile='$rec'-0.afdo -S stkinl.c -o '$rec'-0.s \
			-fdump-tree-einline-details='$rec'-0.einline &&
		test_grep -v "Inlining mix" '$rec'-0.einline
	'

	test_expect_success "$rec: a larger --inline-max-size also takes scramble" '
		pgo convert --to autofdo -i '$rec'.data -b stkinl -o '$rec'-big.afdo --inline-max-size 4096 &&
		pgo convert --dump '$rec'-big.afdo >'$rec'-big.dump &&
		afdo_section '$rec'-big.dump main >'$rec'-big.main &&
		test_grep "^  $BIG: inlined scramble, total" '$rec'-big.main &&
		test_grep -v "^  $COLD: inlined" '$rec'-big.main
	'
done

test_expect_success 'bad --inline-max-size is a usage error' '
	test_expect_code 64 pgo convert --to autofdo -i dwarf.data -b stkinl -o x.afdo --inline-max-size -1 &&
	test_expect_code 64 pgo convert --to autofdo -i dwarf.data -b stkinl -o x.afdo --inline-max-size lots
'
test_done
