#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The gate's evaluation protocol (shared/design/gate-evaluation.md) in miniature, on
# synthetic programs from tests/helpers/gate-synth (the simulation model of
# gate-statistics.md §9: Zipf(1.1) self shares, a random call tree, 3% machine and 3%
# per-function run-to-run noise with heterogeneous per-function noisiness, Poisson
# sampling at 999 Hz x 10 s, 5 runs per side). Every comparison uses fresh seeds, so the
# trials are independent (true A/A in the simulation, not split A/A).
#
# Part 1, synthetic (the shipped budget): 2 simulated programs. Part 2, real: the
# tests/helpers/gate-work benchmark in two shapes ("flat": work_d 10% of a 40/25/15/10/5/5
# mix; "hot": work_d 6% under a 70% function), collected with pgo collect at 1999 Hz,
# 5 runs per side of ~0.2 s CPU each (~400 samples per run: 25x less data than
# 999 Hz x 10 s, to keep the bench short); every trial is a fresh, independent pair of
# collections (true A/A; 25 trials per program, 50 in all, by default), injections add
# PCT% of total work to work_d's own loop.
#
# Prints, per program and cell: the failure rate of stage 1 and after the confirmation
# stage (5 more head runs; fail only if the same function flags again), each with a 95%
# Clopper-Pearson interval; "target": the injected function is a root cause; "clean": it
# is the only one; "roots": root causes per trial (under A/A: falsely flagged functions);
# "program": the program-level check fired. Cells: detection and attribution for +1%, +2% and
# +5%-of-total regressions injected into the ~5% function, the two negative controls (the
# hottest function 50% faster, the head machine 5% slower), and the gate's own cost.
#
#   bench/gate-synth.sh [-n AA_TRIALS] [-m TRIALS_PER_CELL] [-t REAL_TRIALS] [--noise realistic|noisy]
#                 [--no-real] [--no-synthetic]
#   environment: PGO_BUILD (build dir with bin/pgo, tests/helpers/gate-synth, gate-work)
. "$(dirname "$0")/lib.sh"
ROOT=$PGO_ROOT BUILD=$PGO_BUILD
SYNTH=$BUILD/tests/helpers/gate-synth
AA=60 M=30 NOISE=realistic REAL=1 SYN=1 RT=25
WORKB=$BUILD/tests/helpers/gate-work
while [ $# -gt 0 ]; do
	case "$1" in
	-n) AA=$2; shift 2 ;;
	-m) M=$2; shift 2 ;;
	-t) RT=$2; shift 2 ;;
	--noise) NOISE=$2; shift 2 ;;
	--no-real) REAL=0; shift ;;
	--no-synthetic) SYN=0; shift ;;
	*) echo "usage: bench/gate-synth.sh [-n AA_TRIALS] [-m TRIALS_PER_CELL] [-t REAL_TRIALS] [--noise realistic|noisy] [--no-real] [--no-synthetic]" >&2; exit 64 ;;
	esac
done
[ -x "$PGO" ] && [ -x "$SYNTH" ] || { echo "bench/gate-synth.sh: build first (make all $BUILD/tests/helpers/gate-synth)" >&2; exit 2; }
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
WORK=$(mktemp -d "${TMPDIR:-/tmp}/pgo-bench-gate.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
TARGET=fn_003 HOT=fn_000
RUNS=5 HZ=999 SECS=10

# One comparison: prints "exit nflagged_roots target_is_root clean" (clean: target is the
# only root cause). Extra arguments go to the head's generator.
trial() { # program-args seed head-args...
	local prog=$1 seed=$2; shift 2
	"$SYNTH" $prog --noise "$NOISE" --runs $RUNS --hz $HZ --secs $SECS --seed "$seed" -o "$WORK/b.json" &&
	"$SYNTH" $prog --noise "$NOISE" --runs $RUNS --hz $HZ --secs $SECS --seed $((seed + 500000)) "$@" -o "$WORK/h.json" || exit 2
	local rc=0 rc2=0
	"$PGO" gate compare "$WORK/b.json" "$WORK/h.json" >"$WORK/out" 2>"$WORK/err" || rc=$?
	if [ "$rc" -ge 2 ]; then echo "bench/gate-synth.sh: gate error (exit $rc):" >&2; cat "$WORK/err" >&2; exit 2; fi
	# Confirmation stage (gate-statistics.md §6.5): 5 fresh head runs; fail only if the
	# same function flags again on all 10.
	if [ "$rc" = 1 ]; then
		"$SYNTH" $prog --noise "$NOISE" --runs $RUNS --hz $HZ --secs $SECS --seed $((seed + 900000)) "$@" -o "$WORK/h2.json" || exit 2
		"$PGO" gate compare "$WORK/b.json" "$WORK/h.json" --confirm-profile "$WORK/h2.json" >"$WORK/out2" 2>"$WORK/err" || rc2=$?
		if [ "$rc2" -ge 2 ]; then echo "bench/gate-synth.sh: gate error (exit $rc2):" >&2; cat "$WORK/err" >&2; exit 2; fi
	fi
	local roots nr t c pf
	roots=$(awk '/ROOT CAUSE/ { print $1 }' "$WORK/out" | sort -u | tr '\n' ' ')
	nr=$(echo $roots | wc -w)
	t=0; c=0
	case " $roots" in *" $TARGET "*) t=1 ;; esac
	[ "$roots" = "$TARGET " ] && c=1
	pf=0; grep -qE '^program: .*(REGRESSION|slower)' "$WORK/out" && pf=1
	echo "$rc $nr $t $c $pf $rc2"
}

ci() { # k n -> "[lo, hi]" Clopper-Pearson 95%
	"$PY" -c "
import sys
k, n = int(sys.argv[1]), int(sys.argv[2])
try:
    from scipy.stats import beta
    lo = 0.0 if k == 0 else beta.ppf(0.025, k, n - k + 1)
    hi = 1.0 if k == n else beta.ppf(0.975, k + 1, n - k)
    print('[%.3f, %.3f]' % (lo, hi))
except ImportError:
    print('[no scipy]')
" "$1" "$2"
}

cell() { # title program-args n seed0 head-args...
	local title=$1 prog=$2 n=$3 seed0=$4; shift 4
	local i fail=0 fail2=0 roots=0 correct=0 clean=0 prog_flag=0 line rc nr t c pf rc2
	for i in $(seq 1 "$n"); do
		line=$(trial "$prog" $((seed0 + i)) "$@") || exit 2
		read -r rc nr t c pf rc2 <<<"$line"
		[ "$rc" = 1 ] && fail=$((fail + 1))
		[ "$rc2" = 1 ] && fail2=$((fail2 + 1))
		roots=$((roots + nr)); correct=$((correct + t)); clean=$((clean + c)); prog_flag=$((prog_flag + pf))
	done
	printf '  %-32s n=%-3d fail %5.3f %-16s confirmed %5.3f %-16s target %5.3f clean %5.3f roots %5.3f program %5.3f\n' \
		"$title" "$n" "$(echo "$fail / $n" | bc -l)" "$(ci $fail "$n")" "$(echo "$fail2 / $n" | bc -l)" "$(ci $fail2 "$n")" "$(echo "$correct / $n" | bc -l)" \
		"$(echo "$clean / $n" | bc -l)" "$(echo "$roots / $n" | bc -l)" "$(echo "$prog_flag / $n" | bc -l)"
}

command -v bc >/dev/null || { echo "bench/gate-synth.sh: needs bc" >&2; exit 2; }
if [ "$SYN" = 1 ]; then
echo "pgo gate evaluation (synthetic, $NOISE noise, $HZ Hz x ${SECS} s x $RUNS runs per side, q 0.05, floors 0.5%/5%)"
t0=$(date +%s.%N)
ncmp=0
for spec in "flat-200:--program-seed 1 --funcs 200" "hot-40:--program-seed 2 --funcs 40"; do
	name=${spec%%:*} prog=${spec#*:}
	share=$("$PY" -c "
import sys
n = int(sys.argv[1]); z = sum((i + 1) ** -1.1 for i in range(n))
print('%.1f%% (target %s), %.1f%% (hottest)' % (100 * 4 ** -1.1 / z, '$TARGET', 100 / z))" "${prog##* }")
	echo "program $name: $share"
	cell "A/A" "$prog" "$AA" 1000
	cell "+1% of total in $TARGET" "$prog" "$M" 2000 --inject abs:0.01
	cell "+2% of total in $TARGET" "$prog" "$M" 3000 --inject abs:0.02
	cell "+5% of total in $TARGET" "$prog" "$M" 4000 --inject abs:0.05
	cell "control: $HOT 50% faster" "$prog" "$M" 5000 --inject faster:0.5
	cell "control: head machine 5% slower" "$prog" "$M" 6000 --inject drift:0.05
	ncmp=$((ncmp + AA + 5 * M))
done
t1=$(date +%s.%N)
"$PY" -c "
import sys
el, n, runs, secs = float(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
per = el / n
bench = 2 * runs * secs
print('cost: %d comparisons in %.1f s wall (generation included): %.3f s per comparison = %.4fx of the %g s of benchmark runs it judges (%d + %d runs x %g s)' % (n, el, per, per / bench, bench, runs, runs, secs))
print('      (the gate\'s own computation only; the real-program part below measures collection cost)')
" "$(echo "$t1 - $t0" | bc -l)" "$ncmp" "$RUNS" "$SECS"
fi

# ---- Part 2: real collections ----
# score OUT RC: "nroots target_is_root clean program_flag" from a terminal report.
score() {
	local roots nr t=0 c=0 pf=0
	roots=$(awk '/ROOT CAUSE/ { print $1 }' "$1" | sort -u | tr '\n' ' ')
	nr=$(echo $roots | wc -w)
	case " $roots" in *" work_d "*) t=1 ;; esac
	[ "$roots" = "work_d " ] && c=1
	grep -qE '^program: .*(REGRESSION|slower)' "$1" && pf=1
	echo "$nr $t $c $pf"
}

real_program() { # name shape
	local name=$1 shape=$2 i k rc rc2 nr t c pf args
	local cells="aa inj1 inj2 inj5 fast"
	declare -A fail conf roots tgt clean prog
	for k in $cells; do fail[$k]=0; conf[$k]=0; roots[$k]=0; tgt[$k]=0; clean[$k]=0; prog[$k]=0; done
	for i in $(seq 1 "$RT"); do
		# Interleave the sides' collections in a shuffled order within the trial.
		for k in $(printf '%s\n' base $cells | shuf); do
			case $k in
			base|aa) args="" ;; inj1) args="inject 1" ;; inj2) args="inject 2" ;;
			inj5) args="inject 5" ;; fast) args="faster 2" ;;
			esac
			"$PGO" collect -q -r $RUNS -F 1999 -o "$WORK/$k.data" -- "$WORKB" -s "$shape" 20 $args ||
				{ echo "bench/gate-synth.sh: pgo collect failed" >&2; exit 2; }
		done
		for k in $cells; do
			rc=0 rc2=0
			"$PGO" gate compare "$WORK/base.data" "$WORK/$k.data" >"$WORK/out" 2>"$WORK/err" || rc=$?
			if [ "$rc" -ge 2 ]; then cat "$WORK/err" >&2; exit 2; fi
			read -r nr t c pf <<<"$(score "$WORK/out")"
			[ "$rc" = 1 ] && fail[$k]=$((fail[$k] + 1))
			if [ "$rc" = 1 ]; then
				# Confirmation stage: 5 more head runs, same function must flag again.
				case $k in
				aa) args="" ;; inj1) args="inject 1" ;; inj2) args="inject 2" ;;
				inj5) args="inject 5" ;; fast) args="faster 2" ;;
				esac
				"$PGO" collect -q -r $RUNS -F 1999 -o "$WORK/confirm.data" -- "$WORKB" -s "$shape" 20 $args ||
					{ echo "bench/gate-synth.sh: pgo collect failed" >&2; exit 2; }
				"$PGO" gate compare "$WORK/base.data" "$WORK/$k.data" --confirm-profile "$WORK/confirm.data" \
					>/dev/null 2>"$WORK/err" || rc2=$?
				if [ "$rc2" -ge 2 ]; then cat "$WORK/err" >&2; exit 2; fi
				[ "$rc2" = 1 ] && conf[$k]=$((conf[$k] + 1))
			fi
			roots[$k]=$((roots[$k] + nr)); tgt[$k]=$((tgt[$k] + t)); clean[$k]=$((clean[$k] + c)); prog[$k]=$((prog[$k] + pf))
		done
	done
	for k in $cells; do
		case $k in
		aa) title="A/A (true: independent collections)" ;; inj1) title="+1% of total in work_d" ;;
		inj2) title="+2% of total in work_d" ;; inj5) title="+5% of total in work_d" ;;
		fast) title="control: work_a 2x faster" ;;
		esac
		printf '  %-38s n=%-3d fail %5.3f %-16s confirmed %5.3f %-16s target %5.3f clean %5.3f roots %5.3f program %5.3f\n' \
			"$title" "$RT" "$(echo "${fail[$k]} / $RT" | bc -l)" "$(ci "${fail[$k]}" "$RT")" \
			"$(echo "${conf[$k]} / $RT" | bc -l)" "$(ci "${conf[$k]}" "$RT")" \
			"$(echo "${tgt[$k]} / $RT" | bc -l)" "$(echo "${clean[$k]} / $RT" | bc -l)" \
			"$(echo "${roots[$k]} / $RT" | bc -l)" "$(echo "${prog[$k]} / $RT" | bc -l)"
	done
}

cpu_of() { # command...: user+sys CPU seconds of the command and its children
	/usr/bin/time -o "$WORK/time" -f "%U %S" "$@" >/dev/null 2>&1
	awk '{ print $1 + $2 }' "$WORK/time"
}

if [ "$REAL" = 1 ]; then
	if ! [ -x "$WORKB" ] || ! "$PGO" collect -q -r 1 -o "$WORK/probe.data" -- "$WORKB" 1 2>"$WORK/err"; then
		echo "real programs: skipped (pgo collect cannot sample here: $(head -1 "$WORK/err"))"
	else
		echo "pgo gate evaluation (real: tests/helpers/gate-work, pgo collect -F 1999 -r $RUNS, ~0.2 s CPU per run, q 0.05, floors 0.5%/5%)"
		echo "program gate-work flat (work_d 10%, work_a 40%):"
		real_program flat flat
		echo "program gate-work hot (work_d 6%, work_a 70%):"
		real_program hot hot
		# Cost on a pass: pgo collect -r 5 of both sides + compare, against the bare runs.
		bare=0 gated=0
		for i in 1 2 3; do
			b=$(cpu_of sh -c "for j in 1 2 3 4 5 6 7 8 9 10; do '$WORKB' 20; done")
			g=$(cpu_of sh -c "'$PGO' collect -q -r 5 -F 1999 -o '$WORK/c1.data' -- '$WORKB' 20 &&
				'$PGO' collect -q -r 5 -F 1999 -o '$WORK/c2.data' -- '$WORKB' 20 &&
				'$PGO' gate compare '$WORK/c1.data' '$WORK/c2.data' >/dev/null")
			bare=$(echo "$bare + $b" | bc -l); gated=$(echo "$gated + $g" | bc -l)
		done
		printf 'cost (real, CPU time of 3 passes): bare 5+5 runs %.2f s, gated (collect 5+5 + compare) %.2f s = %.2fx the benchmark\n' \
			"$bare" "$gated" "$(echo "$gated / $bare" | bc -l)"
	fi
fi
