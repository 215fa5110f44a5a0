#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Black-box: gcc 12 accepts `pgo convert --to autofdo` output with no diagnostics, for PIE and
# non-PIE, DWARF 4 and 5 builds, from perf.data with and without call stacks.
. "$(dirname "$0")/lib.sh"
. "$PGO_ROOT/tests/e2e/afdo-lib.sh"
afdo_require

for pie in pie no-pie; do
	for dw in 4 5; do
		test_expect_success "$pie DWARF $dw: gcc -O2 -fauto-profile accepts the profile silently" '
			gcc -O2 -g -gdwarf-'$dw' -f'$pie' -'$pie' -o loop loop.c &&
			for rec in $AFDO_RECORDERS; do
				afdo_record $rec $rec.data ./loop 8000000 &&
				pgo convert --to autofdo -i $rec.data -b loop -o $rec.afdo &&
				test -s $rec.afdo &&
				afdo_gcc_clean $rec.afdo loop.c || exit 1
			done
		'
	done
done

test_expect_success 'the profile names the sampled functions (--dump)' '
	gcc -O2 -g -o loop loop.c &&
	afdo_record perf p.data ./loop 8000000 &&
	pgo convert --to autofdo -i p.data -b loop -o p.afdo &&
	pgo convert --dump p.afdo >dump.txt &&
	test_grep "work" dump.txt && test_grep "main" dump.txt
'

test_expect_success 'the empty-profile control is accepted too (the fixture is sound)' '
	afdo_empty empty.afdo && afdo_gcc_clean empty.afdo loop.c
'
test_done
