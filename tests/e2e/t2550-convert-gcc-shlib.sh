#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Black-box: samples in a shared library (mapped at a random address, file offsets != vaddrs
# in general) land on the library's own lines when the library is the binary converted.
. "$(dirname "$0")/lib.sh"
. "$PGO_ROOT/tests/e2e/afdo-lib.sh"
afdo_require

for dw in 4 5; do
	test_expect_success "DWARF $dw: the hot loop of libhot.so gets the library's samples" '
		gcc -O2 -g -gdwarf-'$dw' -fPIC -shared -Wl,-soname,libhot.so -o libhot.so shlib.c &&
		gcc -O2 -g -gdwarf-'$dw' -o shmain shmain.c ./libhot.so -Wl,-rpath,"$PWD" &&
		for rec in $AFDO_RECORDERS; do
			afdo_record $rec $rec.data ./shmain 20000 &&
			pgo convert --to autofdo -i $rec.data -b libhot.so -o $rec.afdo &&
			afdo_gcc_clean $rec.afdo shlib.c -fPIC &&
			gcc -O2 -fPIC -fauto-profile=$rec.afdo -c shlib.c -o shlib.o \
				-fdump-tree-fixup_cfg3-blocks-details-lineno=$rec.dump &&
			c=$(afdo_line_count $rec.dump hot_mix shlib.c 10) && h=$(afdo_head_count $rec.dump hot_mix) &&
			echo "$rec: hot_mix loop $c, head $h" &&
			test_ge "$c" 50 "$rec: count of the loop body in the library" &&
			test_ge "$h" 1 "$rec: head count of hot_mix" || exit 1
		done
	'
done

test_expect_success 'both the executable and the library can be converted from one recording' '
	gcc -O2 -g -fPIC -shared -o libhot.so shlib.c &&
	gcc -O2 -g -o shmain shmain.c ./libhot.so -Wl,-rpath,"$PWD" &&
	afdo_record perfg both.data ./shmain 20000 &&
	pgo convert --to autofdo -i both.data -b libhot.so -b shmain -o both.afdo &&
	afdo_gcc_clean both.afdo shlib.c -fPIC && afdo_gcc_clean both.afdo shmain.c &&
	gcc -O2 -fPIC -fauto-profile=both.afdo -c shlib.c -o shlib.o -fdump-tree-fixup_cfg3-blocks-details-lineno=both.dump &&
	test_ge "$(afdo_line_count both.dump hot_mix shlib.c 10)" 50 "count of the loop body in the library" &&
	gcc -O2 -fauto-profile=both.afdo -c shmain.c -o shmain.o -fdump-tree-fixup_cfg3-blocks-details-lineno=main.dump &&
	test_ge "$(afdo_line_count main.dump main shmain.c 16)" 2 "count of the loop body in the executable"
'
test_done
