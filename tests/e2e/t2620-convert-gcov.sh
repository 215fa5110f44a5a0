#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# pgo convert --to gcov against gcc's own readers: a multi-file program built -O2 -g
# -ftest-coverage is sampled, converted to .gcda next to its .gcno, and then
#  - gcc 12 -fprofile-use reads them with no coverage-mismatch or corrupted-profile
#    diagnostic (-Werror=coverage-mismatch, nothing on stderr at all);
#  - gcov-dump reads them, and -fdump-ipa-profile shows the counts gcc read;
#  - gcov's line counts on the hot lines (those at >= 10% of the hottest line of an
#    instrumented run) match the instrumented run's within 10%, after scaling each
#    source file (one hot function each) so that its hottest line matches: sampled
#    counts are samples, not executions, and a sample of a loop's line weighs its
#    instructions' cost, which differs between functions (mix.c's loop gets 3x the
#    samples per iteration of proc.c's), so only the shape within a function is claimed;
#  - the blocks training never ran become .cold parts in the functions where
#    instrumented PGO makes them (nm of both -fprofile-use builds).
. "$(dirname "$0")/lib.sh"
. "$PGO_ROOT/tests/e2e/afdo-lib.sh"
afdo_require
command -v gcov >/dev/null && command -v gcov-dump >/dev/null || {
	skip_all "gcov or gcov-dump missing (apt-get install gcc)"
	test_done
}
SRC="$PGO_ROOT/tests/e2e/gcov"
UNITS="main proc tab mix"
N=20000000

# build DIR FLAGS...: the program's objects in DIR, with the same names every time
build() {
	local dir=$1 u
	shift
	mkdir -p "$dir" && cp "$SRC"/*.c "$dir"/ &&
	for u in $UNITS; do
		(cd "$dir" && gcc -O2 -g "$@" -c $u.c -o $u.o 2>>cc.err) || return 1
	done &&
	(cd "$dir" && gcc "$@" main.o proc.o tab.o mix.o -o prog)
}

# counts FILE.gcov: "line count" for each executed line
counts() { sed -n 's/^ *\([0-9][0-9]*\)\*\{0,1\}: *\([0-9]*\):.*/\2 \1/p' "$1"; }

test_expect_success 'samples of a -ftest-coverage build become .gcda files gcov-dump reads' '
	build notes -ftest-coverage -fno-partial-inlining &&
	afdo_record collect notes/pgo.data notes/prog $N &&
	pgo convert --to gcov -i notes/pgo.data -b notes/prog --gcno-dir notes 2>conv.err &&
	cat conv.err &&
	for u in $UNITS; do
		test -s notes/$u.gcda && gcov-dump -l notes/$u.gcda >$u.dump &&
		test_grep "COUNTERS arcs" $u.dump || exit 1
	done &&
	test_grep "stamp $(gcov-dump notes/proc.gcno | sed -n "s/.*stamp //p")" proc.dump
'

test_expect_success 'gcc -fprofile-use reads them without a diagnostic, and its dump has the counts' '
	cp -r notes use && rm -f use/*.o use/cc.err &&
	build use -fprofile-use -Werror=coverage-mismatch -Wmissing-profile -fdump-ipa-profile &&
	test_must_be_empty use/cc.err &&
	c=$(sed -n "s/^Read edge from .*, count:\([0-9]*\)/\1/p" use/proc.c.*i.profile | sort -n | tail -1) &&
	echo "proc.c: largest arc count gcc read $c" && test "$c" -gt 100
'

test_expect_success 'gcov line counts: within 10% of an instrumented run on the hot lines' '
	build inst -fprofile-generate -ftest-coverage &&
	inst/prog $N >/dev/null &&
	for u in proc mix tab main; do
		(cd inst && gcov -o . $u.c >/dev/null) && counts inst/$u.c.gcov | sed "s/^/$u /" >>truth &&
		(cd notes && gcov -o . $u.c >/dev/null) && counts notes/$u.c.gcov | sed "s/^/$u /" >>ours || exit 1
	done &&
	awk "NR == FNR { k = \$1\" \"\$2; t[k] = \$3; f[k] = \$1; if (\$3 > tm) tm = \$3
			 if (\$3 > fm[\$1]) { fm[\$1] = \$3; fk[\$1] = k }; next }
	     { o[\$1\" \"\$2] = \$3 }
	     END { bad = 0
		   for (k in t) if (t[k] >= tm / 10) { s = fm[f[k]] / o[fk[f[k]]]; r = o[k] * s / t[k]
			printf \"%s: instrumented %d, sampled %d (scaled %.0f, ratio %.3f)\n\", k, t[k], o[k], o[k] * s, r
			if (r < 0.9 || r > 1.1) bad++ }
		   exit bad > 0 }" truth ours
'

test_expect_success 'hot/cold splitting: .cold parts where instrumented PGO makes them' '
	cp -r inst inst-use && rm -f inst-use/*.o inst-use/cc.err &&
	build inst-use -fprofile-use &&
	nm inst-use/prog | sed -n "s/.* t \(.*\.cold\)$/\1/p" | sort >cold.inst &&
	nm use/prog | sed -n "s/.* t \(.*\.cold\)$/\1/p" | sort >cold.ours &&
	echo "instrumented: $(cat cold.inst | tr "\n" " ")" && echo "gcov route: $(cat cold.ours | tr "\n" " ")" &&
	test_grep "^process\.cold$" cold.inst &&
	comm -23 cold.inst cold.ours >missing && test_must_be_empty missing &&
	nm use/prog | sed -n "s/.* t \(.*\.part\.[0-9]*\)$/\1/p" | sort >part.ours &&
	nm inst-use/prog | sed -n "s/.* t \(.*\.part\.[0-9]*\)$/\1/p" | sort >part.inst &&
	test_cmp part.inst part.ours
'

test_expect_success '-o DIR and --profile-prefix-path: where gcc -fprofile-use=DIR looks' '
	mkdir prof prof2 &&
	pgo convert --to gcov -q -i notes/pgo.data -b notes/prog --gcno-dir notes -o prof &&
	ls prof >names && cat names && test_grep "^#.*#notes#proc\.gcda$" names &&
	pgo convert --to gcov -q -i notes/pgo.data -b notes/prog --gcno-dir notes -o prof2 \
		--profile-prefix-path "$PWD/notes" &&
	ls prof2 >names2 && test_grep "^proc\.gcda$" names2 &&
	mkdir elsewhere && cp notes/*.c elsewhere/ &&
	build elsewhere -fprofile-use="$PWD/prof2" -fprofile-prefix-path="$PWD/elsewhere" \
		-Werror=coverage-mismatch -Wmissing-profile &&
	test_must_be_empty elsewhere/cc.err
'

test_expect_success 'errors: no notes, notes of another program' '
	mkdir empty-dir &&
	test_expect_code 2 pgo convert --to gcov -i notes/pgo.data -b notes/prog --gcno-dir empty-dir 2>err &&
	test_grep "no .gcno files there" err &&
	mkdir other && printf "int other(int x) { return x + 1; }\n" >other/o.c &&
	(cd other && gcc -O2 -g -ftest-coverage -c o.c) &&
	test_expect_code 2 pgo convert --to gcov -i notes/pgo.data -b notes/prog --gcno-dir other 2>err &&
	test_grep "no sample fell on a line" err && ! test -e other/o.gcda
'
test_done
