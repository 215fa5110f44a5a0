#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# convert reads line tables itself (symbolize/linetab.c) and leaves to libdw what it cannot
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
# Debug sections compressed the standard way (SHF_COMPRESSED, zlib: what Debian's dbgsym
# files and -gz hold): libdw decompresses them in place when it opens the file, and the
# line-table reader then reads them itself.
test_expect_success 'SHF_COMPRESSED (zlib) debug sections: our reader, the same output' '
	objcopy --compress-debug-sections=zlib prog5 prog5c &&
	readelf -S -W prog5c | grep -E "\.debug_line .* C " &&
	pgo convert -v --to autofdo -i rec5.data -b prog5 -o plain.afdo 2>/dev/null &&
	pgo convert -v --to autofdo -i rec5.data -b prog5c -o zlib.afdo 2>zlib.log &&
	test_grep -v "left to libdw" zlib.log && test_grep -v "libdw reads its line tables" zlib.log &&
	cmp plain.afdo zlib.afdo
'
# zstd (binutils 2.40's objcopy; gcc 13's -gz=zstd): elfutils 0.188's libelf cannot
# decompress it, and libdw sees no DWARF. The error must say so and how to get out, not
# "build it with -g"; where libelf can read zstd, the output must equal the plain one.
zstd_case() { # BINARY FILE: convert BINARY, whose debug info (in FILE) is zstd
	if pgo convert --to autofdo -i rec5.data -b "$1" -o zstd.afdo 2>err; then
		cmp plain.afdo zstd.afdo
	else
		test $? = 2 && cat err && test ! -e zstd.afdo &&
		test_grep "is compressed with zstd, which this libelf \\(elfutils [0-9.]+\\) cannot read; decompress it \\(objcopy --decompress-debug-sections .$2.\\)" err &&
		test_grep -v "build it with -g" err
	fi
}
if objcopy --compress-debug-sections=zstd prog5 prog5z 2>/dev/null; then
	test_expect_success 'zstd-compressed debug sections: named, with the way out' '
		readelf -t prog5z | grep -q "COMPRESSED" &&
		zstd_case prog5z prog5z &&
		cp prog5z prog5u && objcopy --decompress-debug-sections prog5u &&
		pgo convert --to autofdo -i rec5.data -b prog5u -o unz.afdo && cmp plain.afdo unz.afdo
	'
	test_expect_success 'a zstd-compressed separate debug file: named too' '
		mkdir -p split && cp prog5 split/prog5 &&
		objcopy --only-keep-debug --compress-debug-sections=zstd split/prog5 split/prog5.debug &&
		strip -g split/prog5 && objcopy --add-gnu-debuglink=split/prog5.debug split/prog5 &&
		rm -f zstd.afdo && zstd_case split/prog5 split/prog5.debug
	'
else
	say "zstd-compressed debug sections not tested: this objcopy cannot compress with zstd"
fi
test_done
