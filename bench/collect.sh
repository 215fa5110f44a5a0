#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Collector cost: the whole command's CPU time (user + sys of the collector and the benchmark,
# from /usr/bin/time) and wall time under `pgo collect -F 999 -g` (its defaults: with off-CPU
# recording where BPF works), under `pgo collect -F 999 -g --no-off-cpu` (the same work as perf)
# and under `perf record -F 999 -g`, on the CPU-bound examples/shares. They run alternately (the
# order rotates every round); each round gives paired pgo/perf ratios and the medians are
# printed. Goal: both ratios <= 1.0.
#
#   bench/collect.sh [-r ROUNDS] [-s SCALE]    (default 12 rounds, SCALE 100: about 1 s of CPU)
#   environment: PGO_BUILD (build dir with bin/pgo and examples/)
. "$(dirname "$0")/lib.sh"
ROOT=$PGO_ROOT BUILD=$PGO_BUILD
BENCH=$BUILD/examples/shares
ROUNDS=12 SCALE=100
while getopts r:s: o; do
	case $o in
	r) ROUNDS=$OPTARG ;;
	s) SCALE=$OPTARG ;;
	*) echo "usage: bench/collect.sh [-r ROUNDS] [-s SCALE]" >&2; exit 64 ;;
	esac
done
for x in "$PGO" "$BENCH" /usr/bin/time; do
	[ -x "$x" ] || { echo "bench/collect.sh: missing $x (run make first)" >&2; exit 2; }
done
command -v perf >/dev/null || { echo "bench/collect.sh: perf not installed" >&2; exit 2; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/pgo-bench-collect.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# measure NAME CMD...: append "NAME wall cpu" (seconds) to $WORK/raw
measure() {
	local name=$1; shift
	/usr/bin/time -f "%e %U %S" -o "$WORK/t" "$@" >/dev/null 2>"$WORK/err" ||
		{ echo "bench/collect.sh: '$*' failed:" >&2; cat "$WORK/err" >&2; exit 2; }
	awk -v n="$name" '{ printf "%s %s %.3f\n", n, $1, $2 + $3 }' "$WORK/t" >>"$WORK/raw"
}
run_pgo() { measure pgo "$PGO" collect -q -F 999 -g -o "$WORK/pgo.data" -- "$BENCH" "$SCALE"; }
run_pgo_on() { measure pgo_on "$PGO" collect -q -F 999 -g --no-off-cpu -o "$WORK/pgo_on.data" -- "$BENCH" "$SCALE"; }
run_perf() { measure perf perf record -q -F 999 -g -o "$WORK/perf.data" -- "$BENCH" "$SCALE"; }
run_base() { measure base "$BENCH" "$SCALE"; }

echo "collector overhead: $ROUNDS rounds, examples/shares $SCALE, -F 999 -g" >&2
: >"$WORK/raw"
for r in $(seq "$ROUNDS"); do
	case $((r % 3)) in
	0) run_pgo; run_pgo_on; run_perf ;;
	1) run_perf; run_pgo; run_pgo_on ;;
	2) run_pgo_on; run_perf; run_pgo ;;
	esac
	run_base
done
samples_pgo=$(perf report -i "$WORK/pgo_on.data" --stats 2>/dev/null | awk '/SAMPLE events/ { print $3; exit }')
samples_perf=$(perf report -i "$WORK/perf.data" --stats 2>/dev/null | awk '/SAMPLE events/ { print $3; exit }')

awk -v sp="$samples_pgo" -v sf="$samples_perf" '
function median(a, n,   i, j, t) {
	for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
	return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2
}
function col(name, i) { for (i = 1; i <= n; i++) { cw[i] = w[name, i]; cc[i] = c[name, i] } }
function ratios(name, i) {
	for (i = 1; i <= n; i++) { rw[i] = w[name, i] / w["perf", i]; rc[i] = c[name, i] / c["perf", i] }
	printf "ratio %-20s wall %.3f, CPU %.3f\n", name "/perf:", median(rw, n), median(rc, n)
}
{ k[$1]++; w[$1, k[$1]] = $2; c[$1, k[$1]] = $3 }
END {
	n = k["pgo"]
	printf "%-34s %8s %8s\n", "median over " n " rounds", "wall s", "CPU s"
	col("base"); printf "%-34s %8.3f %8.3f\n", "benchmark alone", median(cw, n), median(cc, n)
	col("pgo"); printf "%-34s %8.3f %8.3f\n", "pgo collect -F 999 -g", median(cw, n), median(cc, n)
	col("pgo_on"); printf "%-34s %8.3f %8.3f   (%s samples)\n", "pgo collect -F 999 -g --no-off-cpu", median(cw, n), median(cc, n), sp
	col("perf"); printf "%-34s %8.3f %8.3f   (%s samples)\n", "perf record -F 999 -g", median(cw, n), median(cc, n), sf
	print "median of paired per-round ratios (goal: <= 1.0):"
	ratios("pgo"); ratios("pgo_on")
}' "$WORK/raw"
