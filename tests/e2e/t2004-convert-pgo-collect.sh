#!/usr/bin/env bash
# pgo convert on files written by pgo collect: pgo-convert --to autofdo alone reads
# pgo.data and writes <binary>.afdo; each of the -r runs is its own run.
. "$(dirname "$0")/lib.sh"
. "$PGO_ROOT/tests/e2e/convert-lib.sh"

if ! test_have_prereq PERF || ! pgo collect -q -o probe.data true 2>/dev/null; then
	skip_all "pgo collect does not work here"
	test_done
fi

test_expect_success 'pgo collect -r 3 then pgo-convert --to autofdo with no other option' '
	build_hot hot -g &&
	pgo collect -q -r 3 -F 4999 ./hot 3000000 >/dev/null &&
	test -s pgo.data &&
	pgo-convert --to autofdo -v 2>err &&
	test -s hot.afdo &&
	test_grep "hot.afdo: [1-9][0-9]* functions" err &&
	test "$(grep -c "debug: run [0-9]: pid" err)" = 3
'
test_expect_success 'the profile has the hot loop and gcc accepts it' '
	pgo convert --dump hot.afdo >dump &&
	off=$(line_offset "r += (x >> (i & 7))" work) &&
	c=$(dump_count dump work "$off") && test "$c" -gt 5 &&
	gcc -O2 -Wall -fauto-profile=hot.afdo -c "$FIX/hot.c" -o p.o 2>gcc.err && test ! -s gcc.err
'
test_expect_success 'perf.data from perf record and pgo.data merge' '
	record perf.data ./hot 3000000 &&
	pgo convert --to autofdo -i pgo.data -i perf.data -b hot -o both.afdo -v 2>err &&
	test "$(grep -c "debug: run [0-9]: pid" err)" = 4
'
test_done
