#!/usr/bin/env bash
# A stripped binary whose DWARF lives in a separate file named by .gnu_debuglink
# (objcopy --only-keep-debug / --add-gnu-debuglink) converts exactly like the unstripped
# binary: beside it or in .debug/, after strip -g or strip --strip-all. A debuglink to a
# missing file, or to the debug file of another build (CRC mismatch), is exit 2 with no
# output, never a profile built from the wrong DWARF, and the message says which debug
# file was found and how it differs (CRC32, build-id) or where it was looked for.
. "$(dirname "$0")/lib.sh"
. "$PGO_ROOT/tests/e2e/convert-lib.sh"

if ! test_have_prereq PERF || ! perf record -q -e cpu-clock -o probe.data true 2>/dev/null; then
	skip_all "perf record does not work here"
	test_done
fi
command -v objcopy >/dev/null && command -v python3 >/dev/null ||
	{ skip_all "needs objcopy (binutils) and python3"; test_done; }

# split DIR DEBUGDIR STRIPFLAG: DIR/hot stripped with STRIPFLAG, its DWARF in DEBUGDIR/hot.debug.
split() {
	mkdir -p "$1" "$2" && cp hot "$1/hot" &&
	objcopy --only-keep-debug "$1/hot" "$2/hot.debug" &&
	strip "$3" "$1/hot" &&
	objcopy --add-gnu-debuglink="$2/hot.debug" "$1/hot" &&
	! readelf -S "$1/hot" | grep -q "\.debug_info"
}
# same_as_ref BINARY NAME: autofdo and llvm profiles from BINARY equal the unstripped ones.
same_as_ref() {
	pgo convert --to autofdo -i g.data -b "$1" -o "$2.afdo" &&
	pgo convert --dump "$2.afdo" >"$2.dump" && test_cmp ref.dump "$2.dump" &&
	pgo convert --to llvm -i g.data -b "$1" -o "$2.prof" && test_cmp ref.prof "$2.prof"
}

# crcs BINARY DEBUGFILE: "CRC32 <of DEBUGFILE>, the binary expects <BINARY's debuglink CRC>"
crcs() {
	objcopy --dump-section .gnu_debuglink=link.bin "$1" /dev/null 2>/dev/null ||
	objcopy -O binary --only-section=.gnu_debuglink "$1" link.bin &&
	python3 -c "
import struct, sys, zlib
link = open(\"link.bin\", \"rb\").read()
print(\"CRC32 %08x, the binary expects %08x\" % (zlib.crc32(open(sys.argv[1], \"rb\").read()),
      struct.unpack(\"<I\", link[-4:])[0]))" "$2"
}
build_id() { readelf -n "$1" | sed -n 's/.*Build ID: //p'; }

test_expect_success 'setup: record the unstripped binary, its profiles' '
	build_hot hot -g &&
	record g.data ./hot 3000000 &&
	pgo convert --to autofdo -i g.data -b hot -o ref.afdo &&
	pgo convert --dump ref.afdo >ref.dump && test_grep "^work: head [1-9]" ref.dump &&
	pgo convert --to llvm -i g.data -b hot -o ref.prof && test -s ref.prof
'
test_expect_success 'strip -g, debug file beside the binary: identical profiles' '
	split a a --strip-debug && same_as_ref a/hot a
'
test_expect_success 'strip --strip-all (no .symtab), debug file in .debug/: identical profiles' '
	split b b/.debug --strip-all && ! readelf -S b/hot | grep -q "\.symtab" &&
	same_as_ref b/hot b
'
test_expect_success 'a debuglink to a missing file: exit 2, no output' '
	split c c --strip-debug && rm c/hot.debug &&
	test_expect_code 2 pgo convert --to autofdo -i g.data -b c/hot -o c.afdo 2>err &&
	cat err && test ! -e c.afdo &&
	test_grep "error: .c/hot. has no debug info \(DWARF\): its debug file .hot.debug. \(.gnu_debuglink\) is in none of .c/., .c/.debug/., ./usr/lib/debug/.*/c/.; put it there" err
'
test_expect_success 'a debuglink to the debug file of another build (CRC mismatch): exit 2' '
	split d d --strip-debug &&
	mkdir -p other && sed "s/2654435761u;/2654435769u;/" "$FIX/hot.c" >other/hot.c &&
	gcc -O2 -g -DTRAIN_INLINE -o other/hot other/hot.c -L. -lhot &&
	objcopy --only-keep-debug other/hot d/hot.debug &&
	test_expect_code 2 pgo convert --to autofdo -i g.data -b d/hot -o d.afdo 2>err &&
	cat err && test ! -e d.afdo &&
	crcs d/hot d/hot.debug >crc &&
	test_grep "error: .d/hot. has no debug info \(DWARF\): its debug file .d/hot.debug. \(.gnu_debuglink\) does not match it, a debug file of another build \($(cat crc); build-id $(build_id other/hot), the binary.s $(build_id hot)\); put the debug file of this build there" err
'
test_expect_success 'without build-ids the CRC32 alone tells the debug file of another build' '
	mkdir -p e &&
	gcc -O2 -g -DTRAIN_INLINE -Wl,--build-id=none -o e/hot "$FIX/hot.c" -L. -lhot &&
	gcc -O2 -g -DTRAIN_INLINE -Wl,--build-id=none -o e/other other/hot.c -L. -lhot &&
	objcopy --only-keep-debug e/hot e/hot.debug && strip --strip-debug e/hot &&
	objcopy --add-gnu-debuglink=e/hot.debug e/hot &&
	test_expect_code 0 pgo convert --to autofdo -i g.data -b e/hot -o e.afdo --force &&
	objcopy --only-keep-debug e/other e/hot.debug &&
	test_expect_code 2 pgo convert --to autofdo -i g.data -b e/hot -o e2.afdo --force 2>err &&
	cat err && test ! -e e2.afdo && crcs e/hot e/hot.debug >crc &&
	test_grep "its debug file .e/hot.debug. \(.gnu_debuglink\) does not match it, a debug file of another build \($(cat crc)\); put" err
'
test_done
