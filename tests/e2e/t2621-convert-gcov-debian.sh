#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The gcov route on a program we did not write: Debian's bzip2, built -O2 -g without frame
# pointers, one unit at a time. gcc's early partial inlining splits mainGtU into
# mainGtU.part.0 before it writes the notes (gcov-dump shows it), which -fprofile-use
# does not do: pgo convert refuses those notes and names the flag; with the notes of a
# -fno-partial-inlining build, gcc -fprofile-use reads every .gcda without a diagnostic,
# and makes every partial-inlining part and clone instrumented PGO makes, and the .cold
# parts of the hot functions.
. "$(dirname "$0")/lib.sh"
. "$PGO_ROOT/tests/e2e/afdo-lib.sh"
afdo_require

debsrc=${PGO_DEBSRC:-/var/tmp/pgo-debsrc}
bz=$(ls -d "$debsrc"/bzip2-1*/ 2>/dev/null | head -1)
if [ -z "$bz" ] && command -v apt-get >/dev/null; then
	mkdir -p "$debsrc" && (cd "$debsrc" && timeout 300 apt-get source -q bzip2 >/dev/null 2>&1)
	bz=$(ls -d "$debsrc"/bzip2-1*/ 2>/dev/null | head -1)
fi
if [ -z "$bz" ] || ! command -v gcov-dump >/dev/null; then
	skip_all "no Debian bzip2 source in $debsrc (apt-get source bzip2) or no gcov-dump"
	test_done
fi
UNITS="blocksort huffman crctable randtable compress decompress bzlib bzip2"

# build DIR FLAGS...: bzip2 in DIR, each unit compiled on its own, diagnostics in DIR/cc.err
build() {
	local dir=$1 u
	shift
	mkdir -p "$dir" && cp -n "$bz"/*.c "$bz"/*.h "$dir"/ && : >"$dir/cc.err" &&
	for u in $UNITS; do
		(cd "$dir" && gcc -O2 -g -D_FILE_OFFSET_BITS=64 "$@" -c $u.c -o $u.o 2>>cc.err) || return 1
	done &&
	(cd "$dir" && gcc "$@" -o bzip2 $(for u in $UNITS; do printf "%s.o " $u; done))
}
# train DIR: compress and decompress a text
train() { (cd "$1" && ./bzip2 -c <../in.txt >in.bz2 && ./bzip2 -dc <in.bz2 | cmp - ../in.txt); }

test_expect_success 'notes of an early split function: refused, naming the flag' '
	seq 1 3000000 >in.txt &&
	build split -ftest-coverage &&
	gcov-dump split/blocksort.gcno >split.dump && test_grep "mainGtU\\.part\\.0" split.dump &&
	pgo collect -q --no-off-cpu -F 4999 -o split.data -- sh -c "cd split && ./bzip2 -c <../in.txt >/dev/null" &&
	test_expect_code 2 pgo convert --to gcov -i split.data -b split/bzip2 --gcno-dir split 2>err &&
	test_grep "blocksort.gcno: gcc split a function into mainGtU.part.0" err &&
	test_grep "fno-partial-inlining" err && ! ls split/*.gcda 2>/dev/null
'

test_expect_success 'notes built -fno-partial-inlining: gcc -fprofile-use reads them without a diagnostic' '
	build notes -ftest-coverage -fno-partial-inlining &&
	pgo collect -q --no-off-cpu -F 4999 -o bz.data -- sh -c "cd notes && ./bzip2 -c <../in.txt >x.bz2 && ./bzip2 -dc <x.bz2 >/dev/null" &&
	pgo convert --to gcov -i bz.data -b notes/bzip2 --gcno-dir notes &&
	for u in blocksort compress decompress huffman bzlib; do
		gcov-dump -l notes/$u.gcda >$u.dump && test_grep "COUNTERS arcs" $u.dump || exit 1
	done &&
	mkdir use && cp notes/*.gcda notes/*.gcno use/ &&
	build use -fprofile-use -Werror=coverage-mismatch -Wmissing-profile &&
	cat use/cc.err &&
	! grep -E "profile|coverage|corrupt" use/cc.err &&
	train use
'

test_expect_success 'the partial-inlining parts, clones and hot .cold parts of instrumented PGO' '
	build inst -fprofile-generate && train inst &&
	mkdir inst-use && cp inst/*.gcda inst-use/ &&
	build inst-use -fprofile-use &&
	nm inst-use/bzip2 | sed -n "s/.* t \\(.*\\.\\(part\\|isra\\|constprop\\)\\.[0-9]*\\)$/\\1/p" | sort >clones.inst &&
	nm use/bzip2 | sed -n "s/.* t \\(.*\\.\\(part\\|isra\\|constprop\\)\\.[0-9]*\\)$/\\1/p" | sort >clones.ours &&
	cat clones.inst && test_grep "^mainGtU\\.part\\.0$" clones.inst &&
	comm -23 clones.inst clones.ours >missing && test_must_be_empty missing &&
	echo "parts and clones only the gcov route makes: $(comm -13 clones.inst clones.ours | tr "\n" " ")" &&
	nm inst-use/bzip2 | sed -n "s/.* t \\(.*\\.cold\\)$/\\1/p" | sort >cold.inst &&
	nm use/bzip2 | sed -n "s/.* t \\(.*\\.cold\\)$/\\1/p" | sort >cold.ours &&
	echo "cold parts: instrumented $(wc -l <cold.inst), gcov route $(wc -l <cold.ours), both $(comm -12 cold.inst cold.ours | wc -l)" &&
	for f in BZ2_blockSort.cold BZ2_compressBlock.cold BZ2_decompress.cold; do
		test_grep "^$f$" cold.inst && test_grep "^$f$" cold.ours || exit 1
	done
'
test_done
