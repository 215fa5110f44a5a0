#!/usr/bin/env bash
# pgo collect -z: the records go to the file compressed as perf record -z writes them
# (PERF_RECORD_COMPRESSED records of one zstd stream, the HEADER_COMPRESSED feature).
# perf 6.1 reads the file without a message and finds every sample; pgo convert reads the
# same samples and unwinds their DWARF stack copies (tests/helpers/callstacks.c: 20%
# main;outer_a;leaf, 30% main;outer_b;leaf, 50% main;outer_b;mid;deep).
. "$(dirname "$0")/lib.sh"
CS=$PGO_HELPERS/callstacks

if ! test_have_prereq PERF; then skip_all "perf not installed"; test_done; fi

test_expect_success 'pgo collect -z --call-graph dwarf: a file many times smaller' '
	pgo collect -z --no-off-cpu --call-graph dwarf -F 4999 -o z.data -- "$CS" 40 >/dev/null 2>err &&
	cat err &&
	ratio=$(sed -n "s/^pgo collect: zstd level 1: .* MB of records in a .* [KM]B file (\([0-9.]*\)x)\$/\1/p" err) &&
	echo "ratio $ratio" && awk -v r="$ratio" "BEGIN { exit !(r >= 5) }" &&
	sed -n "s/^pgo collect: 1 run, \([0-9]*\) samples, 0 lost.*/\1/p" err >pgo.n && test -s pgo.n
'
test_expect_success 'perf 6.1 reads it without a message, every sample' '
	perf report -i z.data --header-only >hdr 2>hdr.err && test_must_be_empty hdr.err &&
	test_grep "compressed : Zstd, level = 1" hdr &&
	perf script -i z.data -F period >script.out 2>script.err && test_must_be_empty script.err &&
	wc -l <script.out >perf.n && test_cmp pgo.n perf.n &&
	perf report -i z.data --stdio >report.out 2>report.err && test_must_be_empty report.err &&
	test_grep "outer_b" report.out
'
test_expect_success 'pgo convert: the same samples, the stacks unwound from the copies' '
	pgo convert --to folded -i z.data -o z.folded 2>err &&
	awk "{ s += \$1 } END { print s }" script.out >perf.total &&
	awk "{ s += \$NF } END { print s }" z.folded >pgo.total && test_cmp perf.total pgo.total &&
	awk "/;main;outer_a;leaf;spin / { a += \$NF } /;main;outer_b;leaf;spin / { b += \$NF }
	     /;main;outer_b;mid;deep;spin / { d += \$NF }
	     END { t = a + b + d; if (!t) exit 1; a = 100 * a / t; b = 100 * b / t; d = 100 * d / t;
		   printf \"%.1f %.1f %.1f\\n\", a, b, d;
		   exit !(a > 13 && a < 27 && b > 23 && b < 37 && d > 43 && d < 57) }" z.folded
'
test_expect_success '--compression-level 19; levels outside 1..22 are usage errors' '
	pgo collect --compression-level 19 --no-off-cpu -F 999 -o z19.data -- "$CS" 10 >/dev/null 2>err &&
	test_grep "^pgo collect: zstd level 19:" err &&
	perf report -i z19.data --header-only 2>/dev/null | grep -q "level = 19" &&
	test_expect_code 64 pgo collect --compression-level 0 -o bad.data -- "$CS" 1 2>err &&
	test_expect_code 64 pgo collect --compression-level 23 -o bad.data -- "$CS" 1 2>err &&
	test_grep "1..22" err && test ! -e bad.data
'
# 40 units make 430-460 MB here, but 184 MB once in a CI run on a busy host (fewer samples
# taken): the run grows until the file is big enough for the hint.
test_expect_success 'a file of 256 MB or more without -z: a hint to use it' '
	for scale in 40 80 160; do
		pgo collect --no-off-cpu --call-graph dwarf,65528 -F 20000 -o big.data -- "$CS" $scale \
			>/dev/null 2>err || exit 1
		size=$(stat -c %s big.data) && rm -f big.data && echo "$size bytes" || exit 1
		test "$size" -lt $((256 << 20)) || break
	done &&
	test "$size" -ge $((256 << 20)) &&
	test_grep "^pgo collect: big.data is [0-9]+ MB: -z would compress it" err &&
	pgo collect -z --no-off-cpu --call-graph dwarf,65528 -F 20000 -o bigz.data -- "$CS" 10 >/dev/null 2>err &&
	rm -f bigz.data && test_grep -v "would compress" err
'
test_done
