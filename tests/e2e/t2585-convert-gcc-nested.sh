#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Black-box: inlining two levels deep (nest.c: main -> count_crossings -> crosses -> orient,
# all inlined by gcc -O2). gcc 12 compiles crosses before main, and its early inliner asks
# crosses' own record whether to inline orient (growth 9 > --param early-inlining-insns
# otherwise); -fauto-profile then inlines into main only the instances one level down. With
# no record of crosses (the binary has no out-of-line copy) orient's samples in main's record
# are never used: the converter adds every instance that has inlined callees of its own into
# its function's record. gcc's dumps must show the early inlining in crosses and orient's
# counts in main. By default (--offline-nested=inlined) only for functions the binary has no
# out-of-line copy of: a copy, compiled on its own and unsampled in training, stays without a
# record (all: with one, which slowed mujs 2.5-8.5%); none: nothing changes.
. "$(dirname "$0")/lib.sh"
. "$PGO_ROOT/tests/e2e/afdo-lib.sh"
afdo_require

# orient_return LISTING: the largest count of the line +4 (orient's return) in the orient
# instances of a --dump listing.
orient_return() {
	awk '{ i = match($0, /[^ ]/) }
		o && i <= o { o = 0 }
		/inlined orient,/ { o = i; next }
		o && i == o + 2 && $1 == "+4:" && $2 > m { m = $2 }
		END { print m + 0 }' "$1"
}

test_expect_success 'setup: gcc -O2 inlines the whole chain into main' '
	gcc -O2 -g -o nest nest.c &&
	./nest 3 >expect &&
	! nm nest | grep -E -q " (orient|crosses|count_crossings)" &&
	afdo_disas nest main >main.s && ! grep -q "call.*<\(orient\|crosses\)" main.s
'

test_expect_success 'control: with an empty profile gcc does not inline orient early' '
	afdo_empty empty.afdo &&
	gcc -O2 -fauto-profile=empty.afdo -c nest.c -o empty.o -fdump-tree-einline-details=empty.einline &&
	test_grep -v "Inlining orient[^ ]* into crosses" empty.einline
'

for rec in $AFDO_RECORDERS; do
	test_expect_success "$rec: crosses gets a record, gcc inlines orient into it and counts orient in main" '
		afdo_record '$rec' '$rec'.data ./nest 300 &&
		pgo convert --to autofdo -i '$rec'.data -b nest -o '$rec'.afdo &&
		# no out-of-line copies here: the default is all
		pgo convert --to autofdo --offline-nested=all -i '$rec'.data -b nest -o '$rec'.all.afdo &&
		cmp '$rec'.afdo '$rec'.all.afdo &&
		pgo convert --dump '$rec'.afdo >'$rec'.dump && cat '$rec'.dump &&
		afdo_section '$rec'.dump main >'$rec'.main &&
		grep -q "^ *+[0-9]*: inlined orient, total [1-9]" '$rec'.main &&
		afdo_section '$rec'.dump crosses >'$rec'.crosses &&
		test_grep "^crosses: head [1-9][0-9]*, total [1-9]" '$rec'.crosses &&
		test_grep "inlined orient, total [1-9]" '$rec'.crosses &&
		# orient inlines nothing: no record of its own
		test_grep -v "^orient:" '$rec'.dump &&
		afdo_gcc_clean '$rec'.afdo nest.c &&
		gcc -O2 -fauto-profile='$rec'.afdo -c nest.c -o '$rec'.o \
			-fdump-tree-einline-details='$rec'.einline \
			-fdump-tree-fixup_cfg3-blocks-details-lineno='$rec'.fixup &&
		test_grep "Inlining orient[^ ]* into crosses" '$rec'.einline &&
		# the largest count of orient'"'"'s return line in main'"'"'s record (orient is
		# +4 from its declaration) against gcc'"'"'s count of that line in main
		want=$(orient_return '$rec'.main) &&
		got=$(afdo_line_count '$rec'.fixup main nest.c 15) &&
		echo "orient return line: profile $want, gcc in main $got" &&
		test_ge "$want" 20 "orient'"'"'s return line in the profile" &&
		test_ge "$got" "$want" "orient'"'"'s return line in main (gcc)"
	'
done

test_expect_success '--offline-nested=none: no record of crosses, main'"'"'s record unchanged' '
	pgo convert --to autofdo --offline-nested=none -i perf.data -b nest -o none.afdo &&
	pgo convert --dump none.afdo >none.dump &&
	test_grep -v "^crosses:" none.dump &&
	test_grep -v "^count_crossings:" none.dump &&
	afdo_section none.dump main >none.main &&
	grep -q "inlined orient, total [1-9]" none.main
'

test_expect_success 'an out-of-line copy (address taken): a record only with --offline-nested=all' '
	sed -e "s/^static int crosses(/static inline __attribute__((always_inline)) int crosses(/" \
		-e "/^static long count_crossings(/i int (*volatile crosses_ptr)(const struct pt *, const struct pt *, const struct pt *, const struct pt *) = crosses;" \
		nest.c >copy.c &&
	gcc -O2 -g -o copy copy.c && ./copy 3 >copy.out && test_cmp expect copy.out &&
	nm copy | grep -q " t crosses$" && ! nm copy | grep -q " count_crossings" &&
	afdo_disas copy main >copy.s && ! grep -q "call.*<\(orient\|crosses\|count_crossings\)" copy.s &&
	afdo_record perf copy.data ./copy 300 &&
	pgo convert --to autofdo -i copy.data -b copy -o copy.afdo &&
	pgo convert --dump copy.afdo >copy.dump && cat copy.dump &&
	test_grep "^count_crossings: head [1-9]" copy.dump &&
	test_grep -v "^crosses:" copy.dump &&
	pgo convert --to autofdo --offline-nested -i copy.data -b copy -o copy.all.afdo &&
	pgo convert --dump copy.all.afdo >copy.all.dump &&
	test_grep "^count_crossings: head [1-9]" copy.all.dump &&
	test_grep "^crosses: head [1-9]" copy.all.dump
'

test_expect_success 'an unknown --offline-nested value is a usage error' '
	test_expect_code 64 pgo convert --to autofdo --offline-nested=some -i perf.data -b nest -o x.afdo 2>err &&
	test_grep "invalid --offline-nested .some. \(none, inlined or all\)" err && ! test -e x.afdo
'

test_expect_success 'the rebuild with the profile computes the same' '
	gcc -O2 -g -Wall -fauto-profile=perf.afdo -o rebuilt nest.c 2>gcc.err &&
	test_must_be_empty gcc.err &&
	./rebuilt 3 >actual && test_cmp expect actual
'

test_expect_success '--to llvm keeps the instances where they are' '
	pgo convert --to llvm -i perf.data -b nest -o perf.prof &&
	! grep -q "^crosses:" perf.prof && grep -q "^main:" perf.prof
'
test_done
