#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Resource bounds: do the time and memory of pgo convert and pgo gate compare grow
# linearly with their input? Each operation runs on a 1x input and on a 10x one, alternately,
# ROUNDS times; per size the medians of wall time, CPU time (user + sys, bench/cputime.c) and
# peak RSS are printed, then the 10x/1x ratios. Linear (or better, where fixed costs such as
# loading the binary's DWARF dominate) means a ratio of about 10 or less; above 12 is flagged.
#
#   1x input: pgo collect -F HZ -g -r RUNS of examples/shares SCALE (twice: base and head)
#   10x input: the same with 10 x RUNS runs (10x the samples, records and runs)
#   operations: pgo convert --to autofdo -b shares, pgo convert --to json,
#               pgo gate compare base head (perf.data, 10x runs),
#               pgo gate compare on gate-synth JSON with 10x the functions (FUNCS vs 10 x FUNCS)
#
#   bench/resources.sh [-n ROUNDS] [-r RUNS] [-s SCALE] [-F HZ] [-f FUNCS]
#   (defaults 5 rounds, 2 runs, SCALE 100 (~1 s CPU a run: ~10,000 samples at 1x), 4999 Hz,
#   300 functions; collecting the inputs takes ~45 s of CPU)
#   environment: PGO_BUILD (build dir with bin/pgo, examples/shares, tests/helpers/gate-synth)
. "$(dirname "$0")/lib.sh"
ROUNDS=5 RUNS=2 SCALE=100 HZ=4999 FUNCS=300
while getopts n:r:s:F:f: o; do
	case $o in
	n) ROUNDS=$OPTARG ;;
	r) RUNS=$OPTARG ;;
	s) SCALE=$OPTARG ;;
	F) HZ=$OPTARG ;;
	f) FUNCS=$OPTARG ;;
	*) echo "usage: bench/resources.sh [-n ROUNDS] [-r RUNS] [-s SCALE] [-F HZ] [-f FUNCS]" >&2; exit 64 ;;
	esac
done
SHARES=$PGO_BUILD/examples/shares
SYNTH=$PGO_BUILD/tests/helpers/gate-synth
for x in "$PGO" "$SHARES" "$SYNTH"; do
	[ -x "$x" ] || die "missing $x (run make bench B=resources)"
done
WORK=$(mktemp -d "${TMPDIR:-/tmp}/pgo-bench-resources.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# Inputs: base and head at 1x and 10x (the 10x ones are 10 x RUNS runs of the same program).
say "collecting inputs: $RUNS and $((10 * RUNS)) runs of shares $SCALE at $HZ Hz (twice each)"
for side in base head; do
	"$PGO" collect -q -F "$HZ" -g --no-off-cpu -r "$RUNS" -o "$WORK/$side-1x.data" -- \
		"$SHARES" "$SCALE" >/dev/null || die "pgo collect failed (1x)"
	"$PGO" collect -q -F "$HZ" -g --no-off-cpu -r $((10 * RUNS)) -o "$WORK/$side-10x.data" -- \
		"$SHARES" "$SCALE" >/dev/null || die "pgo collect failed (10x)"
done
"$SYNTH" --funcs "$FUNCS" --seed 1 -o "$WORK/synth-base-1x.json" &&
"$SYNTH" --funcs "$FUNCS" --seed 2 -o "$WORK/synth-head-1x.json" &&
"$SYNTH" --funcs $((10 * FUNCS)) --seed 1 -o "$WORK/synth-base-10x.json" &&
"$SYNTH" --funcs $((10 * FUNCS)) --seed 2 -o "$WORK/synth-head-10x.json" || die "gate-synth failed"

# samples SIZE: samples in shares in base-SIZE.data, from pgo convert's summary line.
samples() {
	"$PGO" convert --to autofdo -i "$WORK/base-$1.data" -b "$SHARES" -o /dev/null 2>&1 |
		sed -n 's/.*samples: \([0-9][0-9]*\) in.*/\1/p' | head -1
}
for s in 1x 10x; do
	printf 'input %-3s: base-%s.data %s bytes, %s samples; synth %s functions\n' "$s" "$s" \
		"$(stat -c %s "$WORK/base-$s.data")" "$(samples "$s")" \
		"$([ "$s" = 1x ] && echo "$FUNCS" || echo $((10 * FUNCS)))"
done

# cmd OP SIZE: the command line of operation OP on input SIZE.
cmd() {
	local w=$WORK s=$2
	case $1 in
	autofdo) echo "$PGO convert --to autofdo -i $w/base-$s.data -b $SHARES -o $w/out.afdo" ;;
	json) echo "$PGO convert --to json -i $w/base-$s.data -o $w/out.json" ;;
	gate-runs) echo "$PGO gate compare $w/base-$s.data $w/head-$s.data" ;;
	gate-funcs) echo "$PGO gate compare $w/synth-base-$s.json $w/synth-head-$s.json" ;;
	esac
}

OPS="autofdo json gate-runs gate-funcs"
# Alternate 1x and 10x within each round (the order flips every round) so that a change in
# the neighbours' load hits both sizes alike.
for r in $(seq 1 "$ROUNDS"); do
	if [ $((r % 2)) = 1 ]; then order="1x 10x"; else order="10x 1x"; fi
	for op in $OPS; do
		for s in $order; do
			rc=0
			# shellcheck disable=SC2046
			"$CPUTIME" -o "$WORK/t" -m $(cmd "$op" "$s") 2>"$WORK/err" || rc=$?
			# gate compare exits 1 on a regression: a verdict, not a failure here
			if [ "$rc" != 0 ] && ! { [ "${op%%-*}" = gate ] && grep -q 'status 256' "$WORK/err"; }; then
				cat "$WORK/err" >&2
				die "$op $s failed"
			fi
			echo "$op $s $(cat "$WORK/t")" >>"$WORK/raw"
		done
	done
done

# med OP SIZE FIELD: median of field FIELD (3 cpu, 4 wall, 5 rss) over the rounds.
med() { awk -v o="$1" -v s="$2" -v f="$3" '$1 == o && $2 == s { print $f }' "$WORK/raw" | median; }

echo "medians of $ROUNDS alternating rounds (wall and CPU in s, peak RSS in MiB); ratio = 10x / 1x"
printf '%-11s %8s %8s %8s | %8s %8s %8s | %6s %6s %6s\n' op "wall-1x" "cpu-1x" "rss-1x" \
	"wall-10x" "cpu-10x" "rss-10x" "wall" "cpu" "rss"
flag=0
for op in $OPS; do
	w1=$(med "$op" 1x 4) c1=$(med "$op" 1x 3) m1=$(med "$op" 1x 5)
	w10=$(med "$op" 10x 4) c10=$(med "$op" 10x 3) m10=$(med "$op" 10x 5)
	line=$(awk -v w1="$w1" -v c1="$c1" -v m1="$m1" -v w10="$w10" -v c10="$c10" -v m10="$m10" \
		-v op="$op" 'BEGIN {
		rw = w10 / w1; rc = c10 / c1; rm = m10 / m1
		bad = (rw > 12 || rc > 12 || rm > 12)
		printf "%-11s %8.3f %8.3f %8.1f | %8.3f %8.3f %8.1f | %6.2f %6.2f %6.2f%s\n", op, w1, c1,
			m1 / 1024, w10, c10, m10 / 1024, rw, rc, rm, bad ? "  ** SUPERLINEAR (> 12)" : ""
	}')
	echo "$line"
	case $line in *SUPERLINEAR*) flag=1 ;; esac
done
cp "$WORK/raw" "$BENCH_WORK/results/resources.raw"
[ "$flag" = 0 ] || { say "bench/resources.sh: some ratio is above 12"; exit 1; }
