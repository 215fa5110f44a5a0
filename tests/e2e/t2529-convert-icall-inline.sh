#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Inline instances at indirect calls: in the profiled build main calls hash (small, nearly
# every iteration), rehash (small, once in 1024) and scramble (large) through a
# function-pointer table, in other translation units. The DWARF-unwound stacks say which target each sample
# of hash came through; pgo convert must write an instance of hash at the hot indirect call
# line (none for rehash nor scramble), and gcc -O2 -fauto-profile must then promote that call
# to a guarded direct call of hash and inline it before annotation (afdo_vpt_for_early_inline),
# which it refuses without the instance.
. "$(dirname "$0")/lib.sh"
. "$PGO_ROOT/tests/e2e/afdo-lib.sh"
afdo_require

# main's definition is at line 22; the hot indirect call at 27, scramble's at 29.
HOT="[+]5" BIG="[+]7"
# the early promotion and inlining, as gcc's afdo pass dumps them
PROMOTED="Indirect call -> direct call [^ ]* => hash transformation"
INLINED="Inlining hash/[0-9]* to main/"

test_expect_success 'build the profiled binary (targets in other translation units)' '
	grep -n "^int main" icall.c | grep -q "^22:" &&
	gcc -O2 -g -o icall icall.c icall-lib.c stkinl-lib.c &&
	afdo_disas icall main >main.dis &&
	test_grep "call  *\*" main.dis && test_grep -v "call.*<hash>" main.dis &&
	hash=$(afdo_size icall hash) && scramble=$(afdo_size icall scramble) &&
	echo "bytes: hash $hash, scramble $scramble (default threshold 320)" &&
	test "$hash" -le 160 && test "$scramble" -gt 320
'

for rec in $(afdo_stack_recorders); do
	test_expect_success "$rec: an instance of hash at the hot indirect call, none for rehash or scramble" '
		afdo_profile '$rec' icall 10000000 && cat '$rec'.main &&
		test_grep "^  $HOT: inlined hash, total" '$rec'.main &&
		test_grep "^  $HOT: [0-9]*  targets: hash=" '$rec'.main &&
		test_grep "^  $BIG: [0-9]*  targets: scramble=" '$rec'.main &&
		test_grep -v "inlined rehash" '$rec'.main &&
		test_grep -v "inlined scramble" '$rec'.main &&
		afdo_gcc_clean '$rec'.afdo icall.c -DONE_TU &&
		gcc -O2 -DONE_TU -fauto-profile='$rec'.afdo -S icall.c -o '$rec'.s \
			-fdump-ipa-afdo-details='$rec'.afdo-pass &&
		test_grep "$PROMOTED" '$rec'.afdo-pass &&
		test_grep "$INLINED" '$rec'.afdo-pass &&
		test_grep -v "=> rehash transformation" '$rec'.afdo-pass &&
		test_grep -v "=> scramble transformation" '$rec'.afdo-pass
	'

	test_expect_success "$rec: --inline-max-size 0: no instance, gcc does not promote early" '
		pgo convert --to autofdo -i '$rec'.data -b icall -o '$rec'-0.afdo --inline-max-size 0 &&
		pgo convert --dump '$rec'-0.afdo >'$rec'-0.dump &&
		test_grep -v "inlined hash" '$rec'-0.dump &&
		afdo_section '$rec'.dump hash >with.hash && afdo_section '$rec'-0.dump hash >without.hash &&
		test_grep "^hash: head" with.hash && test_cmp without.hash with.hash &&
		gcc -O2 -DONE_TU -fauto-profile='$rec'-0.afdo -S icall.c -o '$rec'-0.s \
			-fdump-ipa-afdo-details='$rec'-0.afdo-pass &&
		test_grep "Checking indirect call" '$rec'-0.afdo-pass &&
		test_grep -v "$PROMOTED" '$rec'-0.afdo-pass
	'
done
test_done
