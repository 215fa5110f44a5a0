#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# convert reads line tables itself (convert/linetab.c) and leaves to libdw what it cannot
# read: both must give the same profiles. A copy of the binary whose debug sections are
# compressed the GNU way (.zdebug_*, which libdw decompresses and the reader does not take)
# has every line table read by libdw; converting one recording with each copy must give
# byte-identical autofdo, llvm and folded output. The verbose log must say which reader ran,
# so that the comparison is between the two.
. "$(dirname "$0")/lib.sh"
. "$PGO_ROOT/tests/e2e/afdo-lib.sh"
afdo_require

for dw in 4 5; do
	test_expect_success "DWARF $dw: build, a .zdebug copy, record" '
		gcc -O2 -g -gdwarf-'$dw' -DONE_TU -o prog'$dw' stkinl.c &&
		objcopy --compress-debug-sections=zlib-gnu prog'$dw' prog'$dw'z &&
		readelf -S -W prog'$dw'z | grep -q "\.zdebug_line" &&
		afdo_record perfg rec'$dw'.data ./prog'$dw' 3000000
	'
	for fmt in autofdo llvm folded; do
		test_expect_success "DWARF $dw, $fmt: our line tables and libdw give the same output" '
			pgo convert -v --to '$fmt' -i rec'$dw'.data -b prog'$dw' -o ours.'$fmt' 2>ours.log &&
			pgo convert -v --to '$fmt' -i rec'$dw'.data -b prog'$dw'z -o libdw.'$fmt' 2>libdw.log &&
			test_grep -v "libdw reads its line tables" ours.log &&
			test_grep -v "left to libdw" ours.log &&
			test_grep "libdw reads its line tables" libdw.log &&
			test -s ours.'$fmt' &&
			cmp ours.'$fmt' libdw.'$fmt'
		'
	done
done
test_done
