#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Black-box: a branch the source marks rare (__builtin_expect (..., 0)) but that is taken on
# every iteration at run time (./loop N 1) flips its probability under the profile, and the
# function behind it becomes hot (.text.hot). The profile's counts must override the hint.
# The run is long enough for ~1000 samples: pgo convert raises every line to at least 2
# (--min-count), so with a handful of samples on the taken side the not-taken side's floor
# alone would hold the probability below 80% (7 vs 2 gave 77.8% in CI).
. "$(dirname "$0")/lib.sh"
. "$PGO_ROOT/tests/e2e/afdo-lib.sh"
afdo_require

# taken_pct DUMP: the probability gcc gives the true edge of the rare test on loop.c:43.
taken_pct() {
	awk '/\[loop\.c:43:[0-9]+( discrim [0-9]+)?\] if / { getline; if (match($0, /\[[0-9.]+%\]/)) { print substr($0, RSTART + 1, RLENGTH - 3) + 0; exit } }' "$1"
}
# section_of ASM FUNC: the section the function's code is emitted in.
section_of() {
	awk -v f="$2:" '/^\t\.(text|section)/ { s = $0 } $1 == f { sub(/^\t/, "", s); print s; exit }' "$1"
}

test_expect_success 'control: with no profile data the hint keeps the branch unlikely' '
	afdo_empty empty.afdo &&
	gcc -O2 -fauto-profile=empty.afdo -S loop.c -o empty.s -fdump-tree-optimized-blocks-details-lineno=empty.opt &&
	p=$(taken_pct empty.opt) && echo "empty: $p%" && test -n "$p" &&
	awk -v p="$p" "BEGIN { exit !(p <= 20) }" &&
	section_of empty.s rare_fn | grep -v "text.hot"
'

for pie in pie no-pie; do
	for dw in 4 5; do
		test_expect_success "$pie DWARF $dw: the profile makes the rare branch likely and rare_fn hot" '
			gcc -O2 -g -gdwarf-'$dw' -f'$pie' -'$pie' -o loop loop.c &&
			for rec in $AFDO_RECORDERS; do
				afdo_record $rec $rec.data ./loop 12000000 1 &&
				pgo convert --to autofdo -i $rec.data -b loop -o $rec.afdo &&
				gcc -O2 -fauto-profile=$rec.afdo -S loop.c -o $rec.s \
					-fdump-tree-optimized-blocks-details-lineno=$rec.opt &&
				p=$(taken_pct $rec.opt) && s=$(section_of $rec.s rare_fn) &&
				echo "$rec: rare branch taken $p%, rare_fn in $s" &&
				awk -v p="$p" "BEGIN { exit !(p >= 80) }" &&
				echo "$s" | grep -q "text.hot" || exit 1
			done
		'
	done
done
test_done
