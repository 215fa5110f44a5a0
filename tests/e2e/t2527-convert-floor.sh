#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The count floor (--min-count, default 2) and lines without a sample. Every sampled line
# ran, so it is raised to 2 (gcc 12: hot). A line without a sample either ran between
# samples or never ran; per function, the lines sampled once and twice estimate how many
# ran unseen, and only a function whose zeros mostly ran gets them raised. floor.c:
# dispatch() is an interpreter switch whose run reaches 2 of 13 cases (the other cases
# never run: they keep 0 and gcc optimises them for size), spread() runs each of its 480
# cheap lines on every call (thin samples: its zeros are raised). gcc 12 scales a function's
# block counts to its head count, so the head of a sampled function is raised too: spread()
# is one block, and gcc gives it the head's count whatever its lines count. dispatch()'s
# head is its entry block's (the switch line's) count: with the entry instruction's line
# alone, gcc scaled the hot case from 30 down to 1 on a thin recording.
. "$(dirname "$0")/lib.sh"
. "$PGO_ROOT/tests/e2e/afdo-lib.sh"
afdo_require

# off FUNC PATTERN: line of PATTERN in floor.c minus the line of FUNC's name.
off() {
	local fl pl
	fl=$(grep -n "static [a-z]* $1(" floor.c | head -1 | cut -d: -f1)
	pl=$(grep -nF -- "$2" floor.c | head -1 | cut -d: -f1)
	echo $((pl - fl))
}
# line_of DUMP FN OFFSET: the count of +OFFSET directly in top-level FN of a --dump.
line_of() { awk -v fn="$2:" -v o="+$3:" '$1 == fn { in_fn = 1; next } /^[^ ]/ { in_fn = 0 }
	in_fn && $1 == o { print $2; exit }' "$1"; }
# counts DUMP FN: the line counts directly in top-level FN, one a line.
counts() { awk -v fn="$2:" '$1 == fn { in_fn = 1; next } /^[^ ]/ { in_fn = 0 }
	in_fn && /^  [-+][0-9]+: [0-9]+$/ { print $2 }' "$1"; }

test_expect_success 'setup: -O2 -g build' '
	gcc -O2 -g -o floor floor.c
'

for rec in $AFDO_RECORDERS; do
	test_expect_success "$rec: never-run cases keep 0, sampled lines and thinly sampled spread() are raised" '
		afdo_record '$rec' '$rec'.data ./floor 20000000 45000 &&
		pgo convert --to autofdo --min-count 0 -i '$rec'.data -b floor -o '$rec'-raw.afdo &&
		pgo convert --dump '$rec'-raw.afdo >'$rec'-raw.dump &&
		pgo convert --to autofdo -i '$rec'.data -b floor -o '$rec'.afdo &&
		pgo convert --dump '$rec'.afdo >'$rec'.dump &&
		never=$(off dispatch "never runs") && hot=$(off dispatch "x = x / seven + 1;") &&
		test "$(line_of '$rec'-raw.dump dispatch $never)" = 0 &&
		test "$(line_of '$rec'.dump dispatch $never)" = 0 &&
		test_ge "$(line_of '$rec'.dump dispatch $hot)" 2 "count of a hot case" &&
		counts '$rec'-raw.dump spread >raw.spread && counts '$rec'.dump spread >floored.spread &&
		sampled=$(grep -cv "^0$" raw.spread) && once=$(grep -c "^1$" raw.spread) &&
		echo "'$rec': spread: $(wc -l <raw.spread) lines, $sampled sampled, $once once" &&
		test_ge "$sampled" 30 "sampled lines of spread" && test_ge "$once" 5 "lines of spread sampled once" &&
		test "$(sort -n floored.spread | head -1)" -ge 2 &&
		test_ge "$(sed -n "s/^spread: head \([0-9]*\),.*/\1/p" '$rec'.dump)" 2 "head of spread" &&
		test "$(counts '$rec'.dump dispatch | grep -c "^1$")" = 0
	'
done

test_expect_success 'gcc: the never-run case is cold, the hot case and spread() are hot' '
	rec=${AFDO_RECORDERS%% *} &&
	afdo_gcc_clean $rec.afdo floor.c &&
	gcc -O2 -fauto-profile=$rec.afdo -c floor.c -o floor.o \
		-fdump-tree-fixup_cfg3-blocks-details-lineno=floor.gcc &&
	nl=$(grep -n "never runs" floor.c | cut -d: -f1) &&
	hl=$(grep -n "x = x / seven + 1;" floor.c | cut -d: -f1) &&
	sl=$(grep -n "v = v + 60;" floor.c | cut -d: -f1) &&
	n=$(afdo_line_count floor.gcc dispatch floor.c $nl) &&
	h=$(afdo_line_count floor.gcc dispatch floor.c $hl) &&
	s=$(afdo_line_count floor.gcc spread floor.c $sl) &&
	hp=$(line_of $rec.dump dispatch $(off dispatch "x = x / seven + 1;")) &&
	echo "gcc counts: never-run case $n, hot case $h (profile: $hp), spread $s" &&
	test "$n" = 0 && test_ge "$h" 2 "hot case" && test_ge "$s" 2 "spread" &&
	test_ge "$h" "$hp" "gcc count of the hot case vs its profile count (not scaled down by the head)"
'
test_done
