#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Black-box: an inlined-instance record makes gcc inline. big() is inlined into main in the
# profiled build (flatten) but not by plain gcc -O2; the profile of the profiled build must make
# gcc -O2 -fauto-profile inline it into main's loop (early inliner decision, no call left there).
. "$(dirname "$0")/lib.sh"
. "$PGO_ROOT/tests/e2e/afdo-lib.sh"
afdo_require

# calls_to_big ASM: call instructions to big inside main.
calls_to_big() {
	awk '/^main:/ { m = 1 } m && /^\t\.cfi_endproc/ { m = 0 } m && /call\t+big/ { n++ } END { print n + 0 }' "$1"
}

test_expect_success 'control: without profile data gcc keeps calling big from main' '
	afdo_empty empty.afdo &&
	gcc -O2 -DATTR= -fauto-profile=empty.afdo -S big.c -o empty.s -fdump-tree-einline-details=empty.einline &&
	test_grep -v "Inlining big" empty.einline &&
	calls_to_big empty.s >control.calls &&
	test_ge "$(cat control.calls)" 2 "calls to big with the empty profile (loop + final call)"
'

for pie in pie no-pie; do
	for dw in 4 5; do
		test_expect_success "$pie DWARF $dw: the inlined-instance record makes gcc inline big into main" '
			gcc -O2 -g -gdwarf-'$dw' -f'$pie' -'$pie' -DATTR="__attribute__((flatten))" -o big big.c &&
			afdo_disas big main >main.dis &&
			test_grep -v "call.*<big>" main.dis &&
			for rec in $AFDO_RECORDERS; do
				afdo_record $rec $rec.data ./big 10000000 &&
				pgo convert --to autofdo -i $rec.data -b big -o $rec.afdo &&
				afdo_gcc_clean $rec.afdo big.c -DATTR= &&
				gcc -O2 -DATTR= -fauto-profile=$rec.afdo -S big.c -o $rec.s \
					-fdump-tree-einline-details=$rec.einline &&
				test_grep "Inlining big[^ ]* into main" $rec.einline &&
				n=$(calls_to_big $rec.s) && echo "$rec: calls to big in main: $n" &&
				test "$n" -lt "$(cat control.calls)" || exit 1
			done
		'
	done
done
test_done
