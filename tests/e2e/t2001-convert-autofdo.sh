#!/usr/bin/env bash
# pgo convert --to autofdo on a perf record of a default gcc 12 build (PIE, DWARF 5):
# gcc 12 accepts the profile silently, annotates the hot lines, flips a mispredicted
# branch and inlines a call that had an inline instance.
. "$(dirname "$0")/lib.sh"
. "$PGO_ROOT/tests/e2e/convert-lib.sh"

if ! test_have_prereq PERF || ! perf record -q -e cpu-clock -o probe.data true 2>/dev/null; then
	skip_all "perf record does not work here"
	test_done
fi

test_expect_success 'record the fixture (PIE, DWARF 5)' '
	build_hot hot -g && readelf -h hot | grep -q "DYN" &&
	record hot.data ./hot 6000000 && test -s hot.data
'
test_expect_success 'pgo convert --to autofdo writes a profile and a summary' '
	pgo convert --to autofdo -i hot.data -b hot -o hot.afdo 2>err &&
	test -s hot.afdo &&
	test_grep "hot.afdo: [0-9]+ functions" err &&
	test_grep "samples: [1-9][0-9]* in hot, [1-9][0-9]* in other DSOs" err
'
test_expect_success '-q: the same profile, no summary; -q -v is a usage error' '
	pgo convert -q --to autofdo -i hot.data -b hot -o quiet.afdo 2>err &&
	cmp hot.afdo quiet.afdo &&
	test_grep -v "functions|samples:" err &&
	test_expect_code 64 pgo convert -q -v --to autofdo -i hot.data -b hot -o q2.afdo 2>err &&
	test_grep "cannot be combined" err && test ! -e q2.afdo
'
test_expect_success '--dump shows the hot loop of work and the inline instances in main' '
	pgo convert --dump hot.afdo >dump &&
	test_grep "^afdo version 2: " dump &&
	test_grep "^work: head [1-9]" dump &&
	test_grep "^main: head [1-9]" dump &&
	off=$(line_offset "r += (x >> (i & 7))" work) &&
	c=$(dump_count dump work "$off") && test "$c" -gt 20 &&
	big=$(line_offset "acc += big(i);" main) &&
	test_grep "^  \+$big: inlined big, total [1-9]" dump &&
	hel=$(line_offset "acc += helper(i);" main) &&
	test_grep "^  \+$hel: inlined helper" dump
'
test_expect_success 'lines with code but no samples get explicit zeros (--min-count 0)' '
	# the printf line runs once: a record must exist, and a sample landing on it (seen
	# once in CI) may make it 1; other unsampled lines of main must be explicit zeros
	pgo convert --to autofdo --min-count 0 -i hot.data -b hot -o zeros.afdo &&
	pgo convert --dump zeros.afdo >zeros.dump &&
	pr=$(line_offset "printf(" main) &&
	c=$(dump_count zeros.dump main "$pr") && test -n "$c" && test "$c" -le 1 &&
	awk "/^[^ #]/ { in_f = (\$1 == \"main:\") } in_f && /^  [+-][0-9]+: 0\$/ { z++ } END { exit !(z >= 1) }" zeros.dump
'
test_expect_success 'by default every sampled line counts at least 2 (gcc 12: hot); an unsampled one 0 or 2' '
	! grep -E "^ +[+-][0-9.]+: 1\$" dump &&
	off=$(line_offset "r += (x >> (i & 7))" work) &&
	test "$(dump_count dump work "$off")" = "$(dump_count zeros.dump work "$off")" &&
	pr=$(line_offset "printf(" main) && c=$(dump_count dump main "$pr") &&
	{ test "$c" = 0 || test "$c" = 2; } &&
	pgo convert --to autofdo --min-count 5 -i hot.data -b hot -o five.afdo &&
	pgo convert --dump five.afdo >five.dump &&
	! grep -E "^ +[+-][0-9.]+: [1-4]\$" five.dump
'
test_expect_success '--min-count takes a whole number' '
	test_expect_code 64 pgo convert --to autofdo --min-count x -i hot.data -b hot -o bad.afdo 2>err &&
	test_grep "invalid --min-count" err && test ! -e bad.afdo
'
test_expect_success 'gcc -fauto-profile accepts it with no diagnostics' '
	gcc -O2 -Wall -Wextra -fauto-profile=hot.afdo -c "$FIX/hot.c" -o p.o \
		-fdump-tree-fixup_cfg3-blocks-details -fdump-tree-optimized-blocks-details \
		-fdump-tree-einline-details 2>gcc.err &&
	test ! -s gcc.err
'
test_expect_success 'fixup_cfg3 shows (auto FDO) counts in the hot loop of work' '
	awk "/^;; Function work /{f=1} /^;; Function /&&!/work /{f=0} f" p.c.*fixup_cfg3 >work.cfg &&
	test_grep "\(hot\)" work.cfg &&
	test_grep "loop depth 1, count [1-9][0-9]+ \(auto FDO\)" work.cfg
'
test_expect_success 'the unlikely-marked but common branch flips (10% -> > 50%)' '
	printf "adcg\002\000\000\000\000\000\000\000\000\000\000\252\001\000\000\000\001\000\000\000\001\000\000\000\000\000\000\000\254\000\000\000\000\000\000\000\000" >empty.afdo &&
	pgo convert --dump empty.afdo &&
	gcc -O2 -fauto-profile=empty.afdo -c "$FIX/hot.c" -o e.o -fdump-tree-optimized-blocks-details \
		-fdump-tree-einline-details 2>/dev/null &&
	grep -A4 "& 3;" e.c.*optimized | grep -m1 goto >empty.prob &&
	grep -A4 "& 3;" p.c.*optimized | grep -m1 goto >ours.prob &&
	cat empty.prob ours.prob &&
	e=$(sed "s/.*\[\([0-9]*\)\..*/\1/" empty.prob) && o=$(sed "s/.*\[\([0-9]*\)\..*/\1/" ours.prob) &&
	test "$e" -le 50 && test "$o" -gt 50
'
test_expect_success 'the inline instance makes gcc inline big (not inlined without it)' '
	! grep -q "Inlining big" e.c.*einline &&
	test_grep "Inlining big" p.c.*einline
'
test_expect_success 'the output is deterministic' '
	pgo convert --to autofdo -i hot.data -b hot -o again.afdo 2>/dev/null &&
	cmp hot.afdo again.afdo
'
test_done
