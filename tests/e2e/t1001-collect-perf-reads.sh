#!/usr/bin/env bash
# pgo collect writes perf.data that perf 6.1 reads without a warning, with the true
# function shares and the expected number of samples.
# The on-CPU sampler alone (--no-off-cpu): off-CPU samples would add to the counts (t4xxx
# test them); t1003 records with the defaults.
. "$(dirname "$0")/lib.sh"
EX=$PGO_ROOT/$PGO_BUILD/examples

if ! test_have_prereq PERF; then skip_all "perf not installed"; test_done; fi

# Self share of each hot function: first frame of each sample inside the shares binary.
profile_shares() {
	perf script -i "$1" -F ip,sym,dso 2>/dev/null | awk '
		/^$/ { done = 0; next }
		!done && /\(.*shares\)/ { c[$2]++; t++; done = 1 }
		END { for (k in c) if (k ~ /^hot/) printf "%s %.2f\n", k, 100 * c[k] / t }' | sort
}

test_expect_success 'collect the known-share program' '
	pgo collect --no-off-cpu -F 4999 -o shares.data -- "$EX/shares" 60 >bench.out 2>collect.err &&
	test -s shares.data &&
	test_grep "^pgo collect: 1 run, [0-9]+ samples, 0 lost, (task-clock|cycles) @ 4999 Hz" collect.err
'
test_expect_success 'perf script and perf report read it with no warnings' '
	perf script -i shares.data >script.out 2>script.err &&
	test_must_be_empty script.err &&
	test_grep "hot50" script.out &&
	perf report -i shares.data --stdio >report.out 2>report.err &&
	test_must_be_empty report.err &&
	test_grep "hot50" report.out &&
	perf report -i shares.data --stats >stats.out 2>stats.err &&
	test_must_be_empty stats.err &&
	test_grep "SAMPLE events" stats.out && test_grep -v "LOST" stats.out
'
test_expect_success 'header: event name, cmdline, build-ids, clock' '
	perf report -i shares.data --header-only >hdr.out 2>hdr.err &&
	test_must_be_empty hdr.err &&
	test_grep "event : name = (task-clock|cycles)" hdr.out &&
	test_grep "cmdline : .*pgo collect --no-off-cpu -F 4999 -o shares.data" hdr.out &&
	test_grep "clockid: monotonic" hdr.out &&
	perf buildid-list -i shares.data >bid.out 2>bid.err &&
	test_must_be_empty bid.err && test_grep "/shares$" bid.out
'
# "leaf caller grandcaller" of every sample whose leaf is hot50
hot50_chains() {
	perf script -i "$1" -F ip,sym 2>/dev/null |
		awk '/^$/ { n = 0; next } { f[++n] = $2 } n == 3 && f[1] == "hot50" { print f[2], f[3] }'
}
test_expect_success 'call stacks are frame-pointer chains: hot50 <- main <- libc' '
	hot50_chains shares.data >chain.out &&
	test -s chain.out &&
	sort -u chain.out >uniq.out && cat uniq.out &&
	echo "main __libc_start_call_main" >expect && test_cmp expect uniq.out
'
test_expect_success 'each function within 5 points of its measured CPU share' '
	profile_shares shares.data >measured &&
	awk "/^share/ { print \$2, \$3 }" bench.out | sort >truth &&
	cat truth measured &&
	join truth measured >both && test $(wc -l <both) = 4 &&
	awk "{ d = \$2 - \$3; if (d < 0) d = -d; if (d > 5) { print \"off by \" d \": \" \$0; bad = 1 } }
	     END { exit bad }" both
'
test_expect_success 'sample count within 10% of rate x CPU time' '
	cpu=$(awk "/^rusage_ns/ { print \$2 }" bench.out) &&
	n=$(perf script -i shares.data -F period 2>/dev/null | grep -c "[0-9]") &&
	echo "samples $n cpu_ns $cpu" &&
	awk -v n=$n -v c=$cpu "BEGIN { e = c / 1e9 * 4999; r = n / e; print \"ratio\", r;
	     exit !(r > 0.9 && r < 1.1) }"
'
test_expect_success 'at 20 kHz the 512 KiB rings wrap: nothing lost, every sample kept' '
	pgo collect --no-off-cpu -F 20000 -o hi.data "$EX/shares" 100 >hi.out 2>hi.err &&
	test_grep "0 lost" hi.err &&
	test $(stat -c %s hi.data) -gt $((2 * 512 * 1024 + 200000)) &&
	perf report -i hi.data --stats >stats.out 2>stats.err && test_must_be_empty stats.err &&
	test_grep -v "LOST|THROTTLE" stats.out &&
	n=$(awk "/SAMPLE events/ { print \$3; exit }" stats.out) &&
	grep -a -q "totals runs=1 samples=$n " hi.data &&
	cpu=$(awk "/^rusage_ns/ { print \$2 }" hi.out) &&
	awk -v n=$n -v c=$cpu "BEGIN { r = n / (c / 1e9 * 20000); print \"ratio\", r; exit !(r > 0.9 && r < 1.1) }"
'
test_expect_success '--call-graph none records no stacks' '
	pgo collect -q --no-off-cpu --call-graph none -o flat.data "$EX/shares" 5 >/dev/null 2>err &&
	test_must_be_empty err &&
	perf report -i flat.data --header-only >hdr 2>/dev/null &&
	test_grep "sample_type = IP\|TID\|TIME\|CPU\|PERIOD\|IDENTIFIER" hdr &&
	grep "name = task-clock" hdr >oncpu &&
	test_grep -v "CALLCHAIN" oncpu
'
test_done
