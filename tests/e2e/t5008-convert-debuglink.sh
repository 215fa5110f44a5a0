#!/usr/bin/env bash
# A stripped binary whose DWARF lives in a separate file named by .gnu_debuglink
# (objcopy --only-keep-debug / --add-gnu-debuglink) converts exactly like the unstripped
# binary: beside it or in .debug/, after strip -g or strip --strip-all. A debuglink to a
# missing file, or to the debug file of another build (CRC mismatch), is exit 2 with no
# output, never a profile built from the wrong DWARF.
. "$(dirname "$0")/lib.sh"
. "$PGO_ROOT/tests/e2e/convert-lib.sh"

if ! test_have_prereq PERF || ! perf record -q -e cpu-clock -o probe.data true 2>/dev/null; then
	skip_all "perf record does not work here"
	test_done
fi
command -v objcopy >/dev/null || { skip_all "needs objcopy (binutils)"; test_done; }

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
	cat err && test_grep "error: .*c/hot" err && test ! -e c.afdo
'
test_expect_success 'a debuglink to the debug file of another build (CRC mismatch): exit 2' '
	split d d --strip-debug &&
	mkdir -p other && sed "s/2654435761u;/2654435769u;/" "$FIX/hot.c" >other/hot.c &&
	gcc -O2 -g -DTRAIN_INLINE -o other/hot other/hot.c -L. -lhot &&
	objcopy --only-keep-debug other/hot d/hot.debug &&
	test_expect_code 2 pgo convert --to autofdo -i g.data -b d/hot -o d.afdo 2>err &&
	cat err && test_grep "error: .*d/hot" err && test ! -e d.afdo
'
test_done
