#!/usr/bin/env bash
# pgo convert on perf record --threads recordings: perf writes a directory, DIR/data with
# the header and the records it synthesized, DIR/data.N with those its N-th reader thread
# copied from the ring buffers (each a zstd stream of its own with -z). What pgo reads is
# checked against what perf script reads from the same directory.
. "$(dirname "$0")/lib.sh"
CS=$PGO_HELPERS/callstacks

if ! test_have_prereq PERF ||
   ! perf record -q --threads -e cpu-clock -o probe.data true >/dev/null 2>&1 || ! test -d probe.data; then
	skip_all "perf record --threads does not work here"
	test_done
fi

# check DIR: pgo's samples and total period equal perf script's
check() {
	pgo convert --to autofdo -i "$1" -o "$1.afdo" 2>err && cat err &&
	sed -n "s/.*samples: \([0-9]*\) in [^,]*, \([0-9]*\) in other DSOs, \([0-9]*\) kernel, \([0-9]*\) unmapped; \([0-9]*\) lost.*/\1 \2 \3 \4 \5/p" err >counts &&
	awk "{ print \$1 + \$2 + \$3 + \$4 }" counts >pgo.n &&
	perf script -i "$1" -F period 2>/dev/null | wc -l >perf.n && test_cmp perf.n pgo.n &&
	pgo convert --to folded -i "$1" -o "$1.folded" &&
	awk "{ s += \$NF } END { print s }" "$1.folded" >pgo.total &&
	perf script -i "$1" -F period 2>/dev/null | awk "{ s += \$1 } END { print s }" >perf.total &&
	test_cmp perf.total pgo.total && cat pgo.total
}

test_expect_success 'perf record --threads -g: every sample, the call paths' '
	perf record -q --threads -g -e task-clock -F 4999 -o t.data "$CS" 40 >/dev/null 2>rec.err &&
	test -d t.data && test -s t.data/data && ls t.data/data.0 &&
	check t.data &&
	test_grep ";main;outer_b;mid;deep;spin [0-9]+\$" t.data.folded &&
	pgo convert --dump t.data.afdo >dump && test_grep "^[a-z_]+: head [1-9]" dump
'
# Each process is pinned to a CPU of its own: perf writes data.N from CPU N's ring buffer, and
# with a busy CPU both processes could run on the other one, leaving a data file empty.
test_expect_success TWO_CPUS 'perf record --threads -z, two processes: a zstd stream per data file' '
	perf record -q --threads -z -m 8 -g -e task-clock -F 4999 -o tz.data -- \
		sh -c "taskset -c 0 \"$CS\" 30 & taskset -c 1 \"$CS\" 30; wait" >/dev/null 2>rec.err &&
	test -s tz.data/data.0 && test -s tz.data/data.1 &&
	check tz.data &&
	pgo convert -v --to folded -i tz.data -o /dev/null 2>verr &&
	test_grep "compressed records \(perf record -z\) decompressed" verr
'
test_expect_success 'a data file cut short: exit 2, names it, no output' '
	cp -r t.data cut.data && f=$(ls -S cut.data/data.* | head -1) &&
	truncate -s $(( $(stat -c %s "$f") - 20 )) "$f" &&
	test_expect_code 2 pgo convert --to folded -i cut.data -o cut.folded 2>err && cat err &&
	test_grep "cut.data/data\.[0-9]+.*truncated" err && test ! -e cut.folded
'
test_expect_success 'a directory that is not a recording: exit 2, says so' '
	mkdir empty.data &&
	test_expect_code 2 pgo convert --to folded -i empty.data -o e.folded 2>err &&
	test_grep "not a perf.data directory" err && test ! -e e.folded
'
test_done
