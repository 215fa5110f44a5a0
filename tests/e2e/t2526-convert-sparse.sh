#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A sparse profile is reported: gcc 12 optimises lines counted below 2 for size, so a
# profile with few samples makes warm code cold (docs/decisions-convert.md). pgo convert --to autofdo
# warns when the lines sampled once and twice estimate that many lines that ran have no
# sample, or when the binary has fewer than 5000 samples and more than one sampled line in
# ten has a single one; the profile is still written. It asks for a higher rate only when
# the recording was below 4999 Hz. A short recording of a small hot loop, each of its lines
# sampled many times, is not sparse.
. "$(dirname "$0")/lib.sh"
. "$PGO_ROOT/tests/e2e/afdo-lib.sh"
afdo_require

test_expect_success 'a 100 Hz recording of recsort is reported as sparse' '
	gcc -O2 -g -o recsort "$PGO_ROOT/examples/recsort/recsort.c" &&
	perf record -q -e task-clock -c 10000000 -o sparse.data ./recsort train 300000 1 >/dev/null 2>&1 &&
	pgo convert --to autofdo -i sparse.data -b recsort -o sparse.afdo 2>err &&
	cat err &&
	test_grep "warning: sparse profile: [0-9]* samples in recsort;" err &&
	test_grep "sampled lines have a single sample" err &&
	test_grep "higher rate \(pgo collect -F 4999; this recording sampled at 100 Hz\)" err &&
	pgo convert --dump sparse.afdo >sparse.dump &&
	test_grep "^merge_sort: head" sparse.dump &&
	# the rate of a fixed period comes from the event, whatever perf named it
	perf record -q -e cpu-clock:u -c 5000000 -o sparse-u.data ./recsort train 300000 1 >/dev/null 2>&1 &&
	pgo convert --to autofdo -i sparse-u.data -b recsort -o sparse-u.afdo 2>err &&
	cat err &&
	test_grep "this recording sampled at 200 Hz" err
'

test_expect_success 'at 4999 Hz already, the advice is more time, not a higher rate' '
	perf record -q -F 4999 -e task-clock -o short4999.data ./recsort train 30000 1 >/dev/null 2>&1 &&
	pgo convert --to autofdo -i short4999.data -b recsort -o short4999.afdo 2>err &&
	cat err &&
	test_grep "warning: sparse profile" err &&
	test_grep "at 4999 Hz already, record longer or several runs \(pgo collect -r N" err &&
	! grep -e "-F 4999" err
'

test_expect_success 'a dense recording of a small hot loop is not' '
	gcc -O2 -g -DATTR= -o big big.c &&
	perf record -q -e task-clock -c 100000 -o dense.data ./big 150000000 >/dev/null 2>&1 &&
	pgo convert -v --to autofdo -i dense.data -b big -o dense.afdo 2>err &&
	cat err &&
	samples=$(sed -n "s/.*samples: \([0-9]*\) in big,.*/\1/p" err) &&
	test_ge "$samples" 5000 "samples in big" &&
	test_grep "sampled lines, .* sampled once" err &&
	! grep "sparse profile" err
'
# big's loop has about 8 lines; one stray sample on a ninth (a CI run under ASan saw 1 of 9
# lines sampled once) makes the recording sparse by the rule. Up to three recordings, until
# every line has many samples.
test_expect_success 'a short recording whose lines all have many samples is not' '
	for try in 1 2 3; do
		perf record -q -e task-clock -c 1000000 -o short.data ./big 150000000 >/dev/null 2>&1 &&
		perf script -i short.data -F ip >ips &&
		test $(wc -l <ips) -lt 5000 &&
		pgo convert -v --to autofdo -i short.data -b big -o short.afdo 2>err &&
		cat err &&
		samples=$(sed -n "s/.*samples: \([0-9]*\) in big,.*/\1/p" err) &&
		test "$samples" -lt 5000 &&
		lines=$(sed -n "s/.* \([0-9]*\) sampled lines, .*/\1/p" err) &&
		once=$(sed -n "s/.* sampled lines, \([0-9]*\) sampled once.*/\1/p" err) || exit 1
		test $((once * 10)) -gt "$lines" || break
		test $try -lt 3 || exit 1
	done &&
	! grep "sparse profile" err
'
test_done
