#!/usr/bin/env bash
# pgo convert on other builds and recordings: non-PIE DWARF 4, perf record -g, a shared
# library as the binary, merged inputs, the default binary; and the error cases (no
# debug info, rebuilt binary, corrupt or truncated perf.data, no samples): exit 2,
# a clear message, no output file.
. "$(dirname "$0")/lib.sh"
. "$PGO_ROOT/tests/e2e/convert-lib.sh"

if ! test_have_prereq PERF || ! perf record -q -e cpu-clock -o probe.data true 2>/dev/null; then
	skip_all "perf record does not work here"
	test_done
fi

test_expect_success 'non-PIE, DWARF 4: gcc accepts, work has its hot loop' '
	build_hot hot4 -gdwarf-4 -no-pie && readelf -h hot4 | grep -q "EXEC" &&
	record hot4.data ./hot4 4000000 &&
	pgo convert --to autofdo -i hot4.data -b hot4 -o hot4.afdo &&
	pgo convert --dump hot4.afdo >dump4 &&
	off=$(line_offset "r += (x >> (i & 7))" work) &&
	c=$(dump_count dump4 work "$off") && test "$c" -gt 10 &&
	gcc -O2 -Wall -fauto-profile=hot4.afdo -c "$FIX/hot.c" -o p4.o 2>gcc.err && test ! -s gcc.err
'
test_expect_success 'perf record -g: same functions, gcc accepts' '
	build_hot hot -g &&
	perf record -q -g -e cpu-clock -c 50000 -o g.data ./hot 4000000 >/dev/null 2>&1 &&
	pgo convert --to autofdo -i g.data -o g.afdo 2>err &&
	test -s g.afdo && test_grep "g.afdo: " err &&
	pgo convert --dump g.afdo >dumpg &&
	test_grep "^work: head [1-9]" dumpg && test_grep "inlined big" dumpg &&
	gcc -O2 -Wall -fauto-profile=g.afdo -c "$FIX/hot.c" -o pg.o 2>gcc.err && test ! -s gcc.err
'
test_expect_success 'without -b the sampled main executable is used, output <binary>.afdo' '
	rm -f hot.afdo && pgo convert --to autofdo -i g.data 2>err && test -s hot.afdo
'
test_expect_success 'the shared library as binary: lib_work, its samples are not "other"' '
	pgo convert --to autofdo -i g.data -b libhot.so -o lib.afdo 2>err &&
	pgo convert --dump lib.afdo >dumpl && test_grep "^lib_work: head [1-9]" dumpl &&
	! grep -q "^work:" dumpl &&
	test_grep "in libhot.so" err
'
test_expect_success 'several inputs merge: counts add up' '
	record hot2.data ./hot 4000000 &&
	pgo convert --to autofdo -i g.data -b hot -o one.afdo &&
	pgo convert --to autofdo -i g.data -i hot2.data -b hot -o two.afdo &&
	pgo convert --dump one.afdo | tail -1 | sed "s/.*sum \([0-9]*\),.*/\1/" >s1 &&
	pgo convert --dump two.afdo | tail -1 | sed "s/.*sum \([0-9]*\),.*/\1/" >s2 &&
	test "$(cat s2)" -gt "$(cat s1)"
'
test_expect_success 'perf record with two events, --call-graph dwarf, -a' '
	perf record -q -e cpu-clock -e task-clock -c 100000 -o two.data ./hot 3000000 >/dev/null 2>&1 &&
	pgo convert --to autofdo -i two.data -b hot -o two.afdo 2>err && test -s two.afdo &&
	perf record -q --call-graph dwarf -e cpu-clock -c 200000 -o dw.data ./hot 3000000 >/dev/null 2>&1 &&
	pgo convert --to autofdo -i dw.data -b hot -o dw.afdo && test -s dw.afdo &&
	perf record -q -a -e cpu-clock -c 200000 -o all.data ./hot 3000000 >/dev/null 2>&1 &&
	pgo convert --to autofdo -i all.data -b hot -o all.afdo && test -s all.afdo
'
test_expect_success 'a binary without debug info: exit 2, says build with -g' '
	cp hot hot.stripped && strip -g hot.stripped &&
	test_expect_code 2 pgo convert --to autofdo -i g.data -b hot.stripped -o x.afdo 2>err &&
	test_grep "build it with -g" err && test ! -e x.afdo
'
test_expect_success 'debug info in a separate file through .gnu_debuglink' '
	mkdir -p split && cp hot split/hot &&
	objcopy --only-keep-debug split/hot split/hot.debug &&
	strip -g split/hot && objcopy --add-gnu-debuglink=split/hot.debug split/hot &&
	! readelf -S split/hot | grep -q debug_info &&
	pgo convert --to autofdo -i g.data -b split/hot -o split.afdo &&
	pgo convert --dump split.afdo >dumps && test_grep "^work: head [1-9]" dumps
'
test_expect_success 'a binary rebuilt since the recording: exit 2 unless --force' '
	mkdir -p rebuilt && sed "s/2654435761u;/2654435769u;/" "$FIX/hot.c" >rebuilt/hot.c &&
	gcc -O2 -g -DTRAIN_INLINE -o rebuilt/hot rebuilt/hot.c -L. -lhot &&
	test_expect_code 2 pgo convert --to autofdo -i g.data -b rebuilt/hot -o x.afdo 2>err &&
	test_grep "rebuilt since the recording" err && test ! -e x.afdo &&
	pgo convert --to autofdo -i g.data -b rebuilt/hot -o x.afdo --force 2>err &&
	test -s x.afdo && test_grep "force" err
'
test_expect_success 'truncated and corrupt perf.data: exit 2, the file named, no output' '
	size=$(stat -c %s g.data) &&
	head -c $((size / 2)) g.data >trunc.data &&
	test_expect_code 2 pgo convert --to autofdo -i trunc.data -b hot -o x2.afdo 2>err &&
	test_grep "trunc.data" err && test ! -e x2.afdo &&
	printf "PERFILE2garbage" >junk.data &&
	test_expect_code 2 pgo convert --to autofdo -i junk.data -b hot -o x2.afdo 2>err &&
	test_grep "junk.data" err && test ! -e x2.afdo &&
	: >empty.data &&
	test_expect_code 2 pgo convert --to autofdo -i empty.data -b hot -o x2.afdo 2>err &&
	test_grep "empty" err && test ! -e x2.afdo
'
test_expect_success 'no samples in the named binary: exit 2' '
	cp /bin/true ./true.bin &&
	test_expect_code 2 pgo convert --to autofdo -i g.data -b ./true.bin -o x3.afdo 2>err &&
	test_grep "no samples|debug info" err && test ! -e x3.afdo
'
test_expect_success 'usage errors exit 64' '
	test_expect_code 64 pgo convert -i g.data 2>err && test_grep "to is required" err &&
	test_expect_code 64 pgo convert --to nonsense 2>err &&
	test_expect_code 64 pgo convert --bogus 2>err
'
test_expect_success '--dump rejects a malformed .afdo with exit 2' '
	head -c 30 g.afdo >bad.afdo &&
	test_expect_code 2 pgo convert --dump bad.afdo 2>err && test_grep "bad.afdo" err
'
test_done
