#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Black-box: gcc annotates the hot lines with "(auto FDO)" counts at the right line offsets
# (relative to the function name's line, DW_AT_decl_line), including inlined code, and gives
# every sampled function a head count.
. "$(dirname "$0")/lib.sh"
. "$PGO_ROOT/tests/e2e/afdo-lib.sh"
afdo_require

for pie in pie no-pie; do
	for dw in 4 5; do
		test_expect_success "$pie DWARF $dw: the hot loop of work carries the samples" '
			gcc -O2 -g -gdwarf-'$dw' -f'$pie' -'$pie' -o loop loop.c &&
			for rec in $AFDO_RECORDERS; do
				afdo_record $rec $rec.data ./loop 8000000 &&
				pgo convert --to autofdo -i $rec.data -b loop -o $rec.afdo &&
				gcc -O2 -fauto-profile=$rec.afdo -c loop.c -o loop.o \
					-fdump-tree-fixup_cfg3-blocks-details-lineno=$rec.dump &&
				d=$rec.dump &&
				body=$(afdo_line_count $d work loop.c 15) &&
				ret=$(afdo_line_count $d work loop.c 16) &&
				head=$(afdo_head_count $d work) &&
				echo "$rec: work body $body, return $ret, head $head" &&
				test_ge "$body" 50 "$rec: count of the loop body (work+4)" &&
				test_ge "$body" $((2 * ret + 1)) "$rec: loop body vs return r (an offset error swaps them)" &&
				test_ge "$head" 1 "$rec: head count of work" || exit 1
			done
		'
	done
done

test_expect_success 'code of an inlined callee is annotated in its caller' '
	gcc -O2 -g -o loop loop.c &&
	for rec in $AFDO_RECORDERS; do
		afdo_record $rec $rec.data ./loop 8000000 &&
		pgo convert --to autofdo -i $rec.data -b loop -o $rec.afdo &&
		gcc -O2 -fauto-profile=$rec.afdo -c loop.c -o loop.o \
			-fdump-tree-fixup_cfg3-blocks-details-lineno=$rec.dump &&
		d=$rec.dump &&
		c=$(afdo_line_count $d main loop.c 22) &&
		echo "$rec: helper (inlined in main) line 22: $c" &&
		test_ge "$c" 2 "$rec: count of helper+2 inlined at main+9" || exit 1
	done
'

test_expect_success 'without a profile gcc shows no (auto FDO) counts (the check can fail)' '
	afdo_empty empty.afdo &&
	gcc -O2 -fauto-profile=empty.afdo -c loop.c -o loop.o \
		-fdump-tree-fixup_cfg3-blocks-details-lineno=empty.dump &&
	test "$(afdo_line_count empty.dump work loop.c 15)" = -1
'
test_done
