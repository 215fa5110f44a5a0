#!/usr/bin/env bash
# pgo convert --to pprof, read back by go tool pprof (the format's own reader) and checked
# against perf's reading of the same recording: totals, sample types, the main binary's
# mapping and build-id, inline chains (against binutils' addr2line), off-CPU time, labels,
# deterministic bytes, and no output file on a failed write.
. "$(dirname "$0")/lib.sh"
CS=$PGO_HELPERS/callstacks
PGO_BUILD_DIR=$PGO_ROOT/$PGO_BUILD

if ! test_have_prereq PERF; then skip_all "perf not installed"; test_done; fi
if ! command -v go >/dev/null; then skip_all "go not installed (apt-get install golang-go)"; test_done; fi
export GOCACHE=$TRASH/.gocache HOME=$TRASH

# column N (1 = samples) of go tool pprof -raw's samples, summed
raw_sum() {
	awk -v c="$2" '/^Samples:/ { s = 1; next } /^Locations/ { s = 0 }
		s && /^ +[0-9]+ .*:/ { t += $c } END { printf "%.0f\n", t }' "$1"
}

test_expect_success 'perf record -g: go tool pprof reads it; cpu total = perf script periods' '
	perf record -q -g -e task-clock -F 4999 -o perf.data "$CS" 20 >/dev/null 2>rec.err &&
	pgo convert --to pprof -i perf.data -o cs.pb.gz 2>err &&
	go tool pprof -raw cs.pb.gz >raw 2>raw.err &&
	test_grep "^samples/count cpu/nanoseconds\[dflt\]\$" raw &&
	test_grep "^PeriodType: cpu nanoseconds" raw &&
	perf script -i perf.data -F period 2>/dev/null | awk "{ t += \$1 } END { printf \"%.0f\\n\", t }" >expect &&
	raw_sum raw 2 >actual &&
	test_cmp expect actual &&
	perf script -i perf.data -F period 2>/dev/null | wc -l | tr -d " " >expect.n &&
	raw_sum raw 1 >actual.n &&
	test_cmp expect.n actual.n
'

test_expect_success 'the main binary is mapping 1, with its build-id' '
	bid=$(readelf -n "$CS" | awk "/Build ID/ { print \$3 }") &&
	sed -n "/^Mappings/,\$p" raw >maps &&
	test_grep "^1: 0x[0-9a-f]+/0x[0-9a-f]+/0x0 $CS $bid " maps
'

test_expect_success 'inline chains: innermost first, as addr2line -i gives them' '
	# locations in callstacks: the spin loop is always_inline into leaf, mid and deep
	awk "/^Locations/ { s = 1; next } /^Mappings/ { s = 0 }
		s && / M=1 spin / { print \$2; n++ } n == 3 { exit }" raw >addrs &&
	test -s addrs &&
	start=$(awk -F"[:/ ]+" "/^1: / { print \$2 }" maps) &&
	while read -r a; do
		awk -v a="$a" "/^Locations/ { s = 1; next } /^Mappings/ { s = 0 }
			s && \$2 == a { p = 1; print \$4, \$5; next }
			s && p && /^ +[0-9]+: / { exit } s && p { print \$1, \$2 }" raw >got.$a &&
		addr2line -i -f -e "$CS" $(printf "0x%x" $((a - start))) | paste - - | sed "s/ (discriminator [0-9]*)//" |
			awk "{ print \$1, \$2 }" | sed "s|[^ ]*/tests/helpers/|tests/helpers/|" >want.$a &&
		sed "s|[^ ]*/tests/helpers/|tests/helpers/|" got.$a >got2.$a &&
		test_cmp want.$a got2.$a || exit 1
	done <addrs
'

# go tool pprof -traces of one sample index as folded stacks (root first, the thread
# state label as the leaf when STATE=1), summed by stack, zero weights left out.
traces_folded() {
	go tool pprof -traces -unit=ns -sample_index="$2" "$1" 2>/dev/null | awk -v st="$3" '
		function flush() { if (n && w > 0) { s = ""; for (i = n; i >= 1; i--) s = s (s == "" ? "" : ";") f[i]
			if (st && state != "") s = s ";" state; sum[s] += w } n = 0; w = 0; state = "" }
		/^-+\+-+$/ { flush(); inb = 1; next }
		!inb { next }
		/^ *thread state: / { sub(/^ *thread state: +/, ""); state = $0; next }
		/^ *[a-z]+: / { next }
		/^ *[0-9]+(ns)? +[^ ]/ { w = $1; sub(/ns$/, "", w); sub(/^ *[0-9]+(ns)? +/, ""); sub(/ \(inline\)$/, ""); f[++n] = $0; next }
		/^ +[^ ]/ { sub(/^ +/, ""); sub(/ \(inline\)$/, ""); f[++n] = $0; next }
		END { flush(); for (k in sum) printf "%s %.0f\n", k, sum[k] }' | test_stable_ksyms | sort
}

test_expect_success 'go tool pprof -traces agrees with pgo folded: perf record -g' '
	traces_folded cs.pb.gz cpu 0 >traces &&
	pgo convert -q --to folded -i perf.data | test_stable_ksyms | sort >folded &&
	test -s folded && test_cmp folded traces
'

test_expect_success 'go tool pprof -traces agrees with pgo folded: processes and threads, -r 2' '
	pgo collect -q -r 2 --no-off-cpu -o mp.data "$PGO_BUILD_DIR/examples/forks" >/dev/null &&
	pgo convert -q --to pprof -i mp.data -o mp.pb.gz &&
	traces_folded mp.pb.gz cpu 0 >traces &&
	pgo convert -q --to folded -i mp.data | test_stable_ksyms | sort >folded &&
	test "$(go tool pprof -raw mp.pb.gz 2>/dev/null | grep -o "pid:\[[0-9]*\]" | sort -u | wc -l)" -ge 4 &&
	test -s folded && test_cmp folded traces
'

test_expect_success 'the same recording gives the same bytes' '
	pgo convert -q --to pprof -i perf.data -o again.pb.gz &&
	cmp cs.pb.gz again.pb.gz
'

test_expect_success BPF 'off-CPU: offcpu and wall columns, thread state labels, run labels' '
	pgo collect -q -r 2 -o sleep.data "$PGO_HELPERS/offcpu-sleep" 4 20 >/dev/null &&
	pgo convert -q --to pprof -i sleep.data -o sleep.pb.gz &&
	go tool pprof -raw sleep.pb.gz >raw2 2>/dev/null &&
	test_grep "^samples/count cpu/nanoseconds\[dflt\] offcpu/nanoseconds wall/nanoseconds\$" raw2 &&
	perf script -i sleep.data -F event,period 2>/dev/null |
		awk "\$2 == \"offcpu-time:\" { o += \$1; next } { c += \$1 } END { printf \"%.0f\\n%.0f\\n%.0f\\n\", c, o, c + o }" >expect &&
	{ raw_sum raw2 2 && raw_sum raw2 3 && raw_sum raw2 4; } >actual &&
	test_cmp expect actual &&
	test_grep "thread state:\[" raw2 &&
	traces_folded sleep.pb.gz offcpu 1 >traces.off &&
	pgo convert -q --to folded --view offcpu -i sleep.data | test_stable_ksyms | sort >folded.off &&
	test -s folded.off && test_cmp folded.off traces.off &&
	traces_folded sleep.pb.gz cpu 0 >traces.on &&
	pgo convert -q --to folded -i sleep.data | test_stable_ksyms | sort >folded.on &&
	test_cmp folded.on traces.on &&
	test_grep "run:\[0\]" raw2 && test_grep "run:\[1\]" raw2
'

test_expect_success 'a write that fails leaves no file and exits 2' '
	mkdir ro && chmod 555 ro &&
	if [ "$(id -u)" = 0 ]; then out=/proc/version/x.pb.gz; else out=ro/x.pb.gz; fi &&
	test_expect_code 2 pgo convert -q --to pprof -i perf.data -o "$out" 2>err &&
	test ! -e "$out" && test_grep "pgo convert" err
'

test_done
