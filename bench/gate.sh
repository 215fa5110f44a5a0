#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The gate on a real program it was not written for (shared/design/gate-evaluation.md §1-2):
# Debian's lua5.4, built the default way (-O2 -g, 33 units, make -j2), running
# bench/inputs/eval.lua, in a git repository as a CI job sees it. Every check is a real
# `pgo gate check`, in two modes:
#   interleaved  pgo gate check --build "make ..." --base main: the gate checks main out as a
#                worktree, builds it and runs base and head alternately in one job;
#   notes        pgo gate record on main (a note per trial), then, later, pgo gate check on
#                the head: the head runs while the checks of other trials run in between
#                (the "gap" column: minutes between the base's recording and the head's).
# Heads (branches off main, each built once in its own worktree; the base is built
# separately, so A/A is "same source, separate builds"):
#   aa      an empty commit (true A/A);
#   inj1/2/5  -DGATE_INJECT_ITERS=N: every 1024th call of the target (GATE_TARGET: by
#           default luaH_getshortstr, ~20% of the time, a hash lookup called from the VM)
#           spins N iterations (the counter is in the base too; only a constant in another
#           unit differs, and every function stays where it is). N is calibrated by timing,
#           independently of the profiler: a probe head spinning ~+180% of the base's CPU time
#           is timed in paired alternating CPU-time runs against the base (median of ratios,
#           bootstrap 95% interval), which gives the cost of one iteration in place; N for
#           +1/2/5% follows from it (the cost is linear in N), with the probe's interval
#           scaled. Each head is also timed alone against the base (wide: CPU time varies by
#           several % a run here).
# Variants: "quiet" (the machine as it is) and "loaded" (plus one CPU-bound neighbour, a
# shell busy loop at the benchmark's nice level: a shared CI runner). Trials are processed
# in batches (both variants, all cells, per batch), so a partial run has numbers for every
# cell; results are appended to $GATE_WORK/results/checks.tsv and `bench/gate.sh --summary`
# prints the table from whatever has run. The cost cell compares a check (build excluded:
# the build command copies a prebuilt binary) with the same 2 x runs bare runs, in wall and
# CPU time, paired rounds.
#
#   bench/gate.sh [--summary] [--fresh]
#   environment (defaults in brackets):
#     GATE_AA [100]      A/A checks per mode and variant
#     GATE_M [20]        checks per injected size, mode and variant
#     GATE_AA_LOADED [20], GATE_M_LOADED [10]  the same for the loaded variant
#     GATE_RUNS [21]     runs per side (-r)   GATE_HZ [9999] sampling rate (-F)
#     GATE_N [1]         eval.lua's repetitions (one run: ~0.25 s CPU, ~3,500 samples at
#                        9999 Hz here: 21 runs give ~65k samples a side, >= 20k for +1%)
#     GATE_CAL_ROUNDS [15], GATE_SIZE_ROUNDS [21]  paired rounds timing the probe, each size
#     GATE_FLAGS [--confirm]   more gate check options (the CI examples' --confirm)
#     GATE_MODES ["interleaved notes"]  GATE_VARIANTS ["quiet loaded"]
#     GATE_CELLS ["aa inj1 inj2 inj5"]  the heads checked (e.g. inj1 alone at a larger -r)
#     GATE_TARGET [luaH_getshortstr]  the function injected into (math_sin: ~8% of the time,
#                        where +1% of total is +12% of itself); a new GATE_WORK per target
#     GATE_BATCH [10]    trials per batch      GATE_COST_ROUNDS [5]
#     GATE_CCACHE [1]    build with ccache (CCACHE_NOHASHDIR: the worktree's path does not
#                        miss the cache), so a check's base build is seconds, not ~20 s
#     GATE_WORK [$BENCH_WORK/gate]  repository, builds and results (BENCH_WORK: sources)
#   quick numbers: GATE_AA=20 GATE_M=10 bench/gate.sh
. "$(dirname "$0")/lib.sh"

AA=${GATE_AA:-100} M=${GATE_M:-20} RUNS=${GATE_RUNS:-21} HZ=${GATE_HZ:-9999} N=${GATE_N:-1}
AA_LOADED=${GATE_AA_LOADED:-20} M_LOADED=${GATE_M_LOADED:-10}
FLAGS=${GATE_FLAGS---confirm} MODES=${GATE_MODES:-interleaved notes}
VARIANTS=${GATE_VARIANTS:-quiet loaded} BATCH=${GATE_BATCH:-10} COST_ROUNDS=${GATE_COST_ROUNDS:-5}
W=${GATE_WORK:-$BENCH_WORK/gate}
TARGET=${GATE_TARGET:-luaH_getshortstr}
CELLS=${GATE_CELLS:-aa inj1 inj2 inj5}
SUMMARY_ONLY=0 FRESH=0
for a in "$@"; do
	case $a in
	--summary) SUMMARY_ONLY=1 ;;
	--fresh) FRESH=1 ;;
	-h|--help) sed -n '2,51p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) die "usage: bench/gate.sh [--summary] [--fresh]" ;;
	esac
done
PY=/usr/bin/python3
mkdir -p "$W/results"
RES=$W/results/checks.tsv

summary() {
	"$PY" "$PGO_ROOT/bench/gate-summary.py" "$W/results"
}
if [ "$SUMMARY_ONLY" = 1 ]; then summary; exit; fi

[ -x "$PGO" ] || die "build pgo first (make)"
need_pkgs gcc make git ccache time
[ "$FRESH" = 1 ] && rm -rf "$W/repo" "$W/heads" "$W/results" "$W/calib" && mkdir -p "$W/results"

export CCACHE_DIR=$W/ccache CCACHE_NOHASHDIR=1 CCACHE_MAXSIZE=2G
MAKE_CMD="make -s -j2"
[ "${GATE_CCACHE:-1}" = 1 ] && MAKE_CMD="make -s -j2 CC='ccache gcc'"

# ---- the repository: main = Debian's lua5.4 + a Makefile + the benchmark input ----
make_repo() {
	local src d=$W/repo
	src=$(deb_source lua5.4) || exit 2
	rm -rf "$d" && mkdir -p "$d"
	basename "$src" >"$W/source"
	ls "$src"/src/*.[ch] | grep -v '/luac\.c$' | xargs -I{} cp {} "$d/"
	echo '#define DEB_HOST_MULTIARCH "x86_64-linux-gnu"' >"$d/lua5.4-deb-multiarch.h"
	cp "$PGO_ROOT/bench/inputs/eval.lua" "$d/bench.lua"
	# The injection site: every 1024th call of $TARGET spins gate_inject_iters times. The
	# count lives in gate_inject.c (another unit, no LTO), so the target's unit is the same
	# code in base and heads: a head differs only in that constant (0 in the base), and the
	# counter's own cost (a few % of the function) is on both sides.
	local unit
	unit=$(grep -l "^[a-zA-Z].*[ *]$TARGET (.*) {\$" "$src"/src/*.c | head -1)
	[ -n "$unit" ] || die "no function $TARGET in lua's sources"
	unit=$(basename "$unit")
	awk -v t="$TARGET" '{ print } $0 ~ ("[ *]" t " \\(.*\\) \\{$") && !done {
		print "  if ((++gate_inject_calls & 1023) == 0) { unsigned long gate_i;"
		print "    for (gate_i = 0; gate_i < gate_inject_iters; gate_i++) __asm__ volatile(\"\"); }"
		done = 1
	}' "$src/src/$unit" >"$d/$unit"
	grep -q gate_inject_iters "$d/$unit" || die "no injection site in $unit"
	sed -i '0,/^#include "lua.h"/s//#include "lua.h"\nextern unsigned long gate_inject_calls;\nextern const unsigned long gate_inject_iters;/' "$d/$unit"
	cat >"$d/gate_inject.c" <<-'EOF'
	/* bench/gate.sh's injection: how long the target spins (-DGATE_INJECT_ITERS). */
	#include <stdio.h>
	#include <stdlib.h>
	#ifndef GATE_INJECT_ITERS
	#define GATE_INJECT_ITERS 0
	#endif
	unsigned long gate_inject_calls;
	const unsigned long gate_inject_iters = GATE_INJECT_ITERS;
	/*
	 * GATE_INJECT_COUNT=1: print the calls and the iterations spun (counting, not timing).
	 * The constant is read through a volatile pointer, so this code, and with it the
	 * address of every function linked after it, is the same at every N: a head must
	 * differ from the base in the spin alone, not in code placement (16 bytes more here
	 * moved luaM_malloc_ and cost malloc 15% more time).
	 */
	__attribute__((destructor)) static void gate_inject_report(void)
	{
		unsigned long iters = *(const volatile unsigned long *)&gate_inject_iters;

		if (getenv("GATE_INJECT_COUNT"))
			fprintf(stderr, "gate_inject calls=%lu spins=%lu\n", gate_inject_calls,
				(gate_inject_calls >> 10) * iters);
	}
	EOF
	# (printf: a here-document with <<- would strip the recipes' tabs)
	printf '%s\n' 'CC ?= gcc' 'CFLAGS = -O2 -g -I. -DLUA_COMPAT_5_3 -DLUA_USE_LINUX' 'INJECT =' \
		'OBJS = $(patsubst %.c,%.o,$(wildcard *.c))' 'lua: $(OBJS)' '	$(CC) -o $@ $(OBJS) -lm -ldl' \
		'%.o: %.c Makefile' '	$(CC) $(CFLAGS) -c $<' 'gate_inject.o: gate_inject.c Makefile' \
		'	$(CC) $(CFLAGS) $(INJECT) -c $<' >"$d/Makefile"
	printf 'lua\n*.o\n' >"$d/.gitignore"
	(cd "$d" && git init -q -b main && git add -A &&
		git -c user.name=bench -c user.email=bench@localhost commit -q -m "lua5.4 from Debian" &&
		git branch aa && git -C "$d" worktree prune) || die "cannot make the repository"
	(cd "$d" && git checkout -q aa && git -c user.name=bench -c user.email=bench@localhost \
		commit -q --allow-empty -m "A/A: nothing changed" && git checkout -q --detach main) ||
		die "git failed"
}

# worktree NAME [ITERS]: $W/heads/NAME checked out at branch NAME (made from main if new;
# with ITERS, its commit defines GATE_INJECT_ITERS=ITERS in the Makefile), built once.
worktree() {
	local t=$W/heads/$1
	[ -x "$t/lua" ] && return 0
	rm -rf "$t"; git -C "$W/repo" worktree prune
	if git -C "$W/repo" rev-parse -q --verify "refs/heads/$1" >/dev/null; then
		git -C "$W/repo" worktree add -q "$t" "$1" || die "worktree $1"
	else
		git -C "$W/repo" worktree add -q -b "$1" "$t" main || die "worktree $1"
		if [ -n "${2:-}" ]; then
			(cd "$t" && sed -i "s/^INJECT =.*/INJECT = -DGATE_INJECT_ITERS=$2/" Makefile &&
				git -c user.name=bench -c user.email=bench@localhost commit -q -am "inject $2") ||
				die "cannot make branch $1"
		fi
	fi
	(cd "$t" && sh -c "$MAKE_CMD") || die "build of $1 failed"
}

# cpu_pair A B ROUNDS: paired alternating CPU times of ./lua bench.lua N, prints the ratios B/A
cpu_pair() {
	local a=$1 b=$2 i ta tb
	for i in $(seq 1 "$3"); do
		if [ $((i % 2)) = 1 ]; then
			ta=$("$CPUTIME" "$a" "$W/repo/bench.lua" "$N" | cut -d' ' -f1)
			tb=$("$CPUTIME" "$b" "$W/repo/bench.lua" "$N" | cut -d' ' -f1)
		else
			tb=$("$CPUTIME" "$b" "$W/repo/bench.lua" "$N" | cut -d' ' -f1)
			ta=$("$CPUTIME" "$a" "$W/repo/bench.lua" "$N" | cut -d' ' -f1)
		fi
		echo "$ta $tb"
	done
}

if [ ! -d "$W/repo/.git" ]; then
	say "gate bench: making the repository from Debian's lua5.4"
	make_repo
fi
worktree main
worktree aa
BASE_LUA=$W/heads/main/lua
# same_layout BIN: BIN's functions are at the base's addresses (a head differs in its spin
# count alone: placement moves performance by several %, which is not what is injected)
same_layout() {
	cmp -s <(nm "$BASE_LUA" | awk '$2 ~ /^[tT]$/' | sort) <(nm "$1" | awk '$2 ~ /^[tT]$/' | sort) ||
		die "$1: its functions are not at the base's addresses"
}
same_layout "$W/heads/aa/lua"

# ---- calibration, by timing. Counting (calls x iterations x a standalone iteration's time)
# under-estimates the spin in place (the loop's branch can straddle a 32-byte boundary in
# luaH_getshortstr, where it runs at about half the standalone loop's speed), so the cost of
# one iteration in place is timed: a probe head spins ~16x the counted +5% (about +80% of
# total, large against the per-run noise of CPU time on a shared machine), timed in paired
# alternating CPU-time runs against the base (median of ratios); the iterations for +P% are
# P% / (the probe's increase / its iterations). The loop is the same code at every size, so
# the cost is linear in the iterations. The counting estimate is kept for comparison.
mkdir -p "$W/calib"
CAL_ROUNDS=${GATE_CAL_ROUNDS:-15} SIZE_ROUNDS=${GATE_SIZE_ROUNDS:-21}
if [ ! -s "$W/calib/count" ]; then
	say "gate bench: counting the calls of $TARGET"
	calls=$(GATE_INJECT_COUNT=1 "$BASE_LUA" "$W/repo/bench.lua" "$N" 2>&1 >/dev/null |
		sed -n 's/^gate_inject calls=\([0-9]*\).*/\1/p')
	[ -n "$calls" ] || die "no call count from the base build"
	printf '%s\n' '#include <stdlib.h>' 'int main(int c, char **v) { unsigned long i, n = strtoul(v[1], 0, 10);' \
		'for (i = 0; i < n; i++) __asm__ volatile(""); return 0; }' >"$W/calib/spin.c"
	gcc -O2 -o "$W/calib/spin" "$W/calib/spin.c" || die "cannot build the spin loop"
	t_iter=$(for i in 1 2 3 4 5; do "$CPUTIME" "$W/calib/spin" 1000000000 | cut -d' ' -f1; done | sort -g | head -1)
	base_cpu=$(for i in 1 2 3 4 5 6 7 8 9; do "$CPUTIME" "$BASE_LUA" "$W/repo/bench.lua" "$N" | cut -d' ' -f1; done | sort -g | head -1)
	echo "$calls $t_iter $base_cpu" >"$W/calib/count"
fi
read -r calls t_iter base_cpu <"$W/calib/count"
# ratio statistics of a pairs file: "median lo hi" (median of ratios - 1, bootstrap 95%)
ratio_stats() {
	"$PY" - "$1" <<-'EOF'
	import sys, statistics, random
	r = [b / a - 1 for a, b in (map(float, l.split()) for l in open(sys.argv[1]) if l.strip())]
	random.seed(1)
	bs = sorted(statistics.median(random.choices(r, k=len(r))) for _ in range(2000))
	print(statistics.median(r), bs[50], bs[1949])
	EOF
}
if [ ! -s "$W/calib/iters" ]; then
	probe=$("$PY" -c "import sys; c, t, b = int(sys.argv[1]), float(sys.argv[2]) / 1e9, float(sys.argv[3]); print(max(1, round(16 * 0.05 * b / ((c >> 10) * t))))" "$calls" "$t_iter" "$base_cpu")
	say "gate bench: timing a probe injection of $probe iterations ($CAL_ROUNDS paired rounds)"
	worktree probe "$probe"
	cpu_pair "$BASE_LUA" "$W/heads/probe/lua" "$CAL_ROUNDS" >"$W/calib/probe.pairs"
	read -r pm plo phi < <(ratio_stats "$W/calib/probe.pairs")
	echo "$probe $pm $plo $phi" >"$W/calib/probe"
	"$PY" - "$probe" "$pm" >"$W/calib/iters" <<-'EOF' || die "calibration failed"
	import sys
	probe, inc = int(sys.argv[1]), float(sys.argv[2])
	if inc <= 0:
	    sys.exit("the probe injection did not slow the benchmark down (%+.1f%%)" % (100 * inc))
	for pct in (1, 2, 5):
	    print(pct, max(1, round(pct / 100 * probe / inc)))
	EOF
fi
read -r probe pm plo phi <"$W/calib/probe"
while read -r pct iters; do
	case " $CELLS " in *" inj$pct "*) ;; *) continue ;; esac
	if [ ! -x "$W/heads/inj$pct/lua" ]; then
		worktree "inj$pct" "$iters"
	fi
	same_layout "$W/heads/inj$pct/lua"
done <"$W/calib/iters"
# The injected sizes: (a) from the probe's timed cost per iteration, with its interval
# scaled; (b) each head timed on its own against the base (paired CPU time, median of
# ratios, bootstrap 95%): unbiased but wide, the per-run noise of CPU time here being
# several percent; (c) the counting estimate.
if [ ! -s "$W/results/sizes.txt" ]; then
	say "gate bench: measuring the injected sizes (paired CPU time, $SIZE_ROUNDS rounds each)"
	echo "probe: $probe iterations timed at $(printf '%+.1f%% [%+.1f%%, %+.1f%%]' "$(echo "100*$pm" | bc -l)" "$(echo "100*$plo" | bc -l)" "$(echo "100*$phi" | bc -l)") of the base's CPU time ($CAL_ROUNDS paired rounds)" >"$W/results/sizes.tmp"
	for c in inj1 inj2 inj5; do
		iters=$(grep "^${c#inj} " "$W/calib/iters" | cut -d' ' -f2)
		cpu_pair "$BASE_LUA" "$W/heads/$c/lua" "$SIZE_ROUNDS" >"$W/calib/$c.pairs"
		read -r m lo hi < <(ratio_stats "$W/calib/$c.pairs")
		"$PY" - "$c" "$iters" "$probe" "$pm" "$plo" "$phi" "$m" "$lo" "$hi" "$calls" "$t_iter" "$base_cpu" "$SIZE_ROUNDS" <<-'EOF' >>"$W/results/sizes.tmp"
		import sys
		c, it, probe = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
		pm, plo, phi, m, lo, hi = map(float, sys.argv[4:10])
		calls, t_iter, base, rounds = int(sys.argv[10]), float(sys.argv[11]) / 1e9, float(sys.argv[12]), sys.argv[13]
		k = it / probe
		print("%s iters=%d: from the probe %+.2f%% [%+.2f%%, %+.2f%%]; timed alone %+.2f%% [%+.2f%%, %+.2f%%] "
		      "(%s paired rounds); counted %+.2f%%" % (c, it, 100 * k * pm, 100 * k * plo, 100 * k * phi,
		      100 * m, 100 * lo, 100 * hi, rounds, 100 * (calls >> 10) * it * t_iter / base))
		EOF
	done
	mv "$W/results/sizes.tmp" "$W/results/sizes.txt"
fi
cat "$W/results/sizes.txt" >&2

# ---- one check ----
# own function names of the benchmark (a root cause outside them is a library or kernel frame)
[ -s "$W/results/own.txt" ] || nm "$BASE_LUA" | awk '$2 ~ /^[tTwW]$/ { print $3 }' | sort -u >"$W/results/own.txt"

NEIGHBOUR=""
neighbour_start() { sh -c 'while :; do :; done' & NEIGHBOUR=$!; }
neighbour_stop() { [ -n "$NEIGHBOUR" ] && kill "$NEIGHBOUR" 2>/dev/null; wait "$NEIGHBOUR" 2>/dev/null; NEIGHBOUR=""; }
trap 'neighbour_stop' EXIT
trap 'neighbour_stop; exit 130' INT TERM

# record_note VARIANT CELL TRIAL: the notes mode's baseline, on main, under its own ref.
record_note() {
	local ref=refs/notes/gate-$1-$2-$3
	(cd "$W/heads/main" && "$PGO" gate record -r "$RUNS" -F "$HZ" --ref "$ref" -- ./lua bench.lua "$N") \
		>/dev/null 2>"$W/results/err.tmp" || { cat "$W/results/err.tmp" >&2; die "gate record failed"; }
	date +%s.%N >"$W/results/rec-$1-$2-$3.t"
}

# check MODE VARIANT CELL TRIAL: one gate check, one line in checks.tsv
check() {
	local mode=$1 var=$2 cell=$3 trial=$4 rc=0 t0 t1 gap=nan
	local j="$W/results/json/$mode-$var-$cell-$trial.json" e="$W/results/err/$mode-$var-$cell-$trial.txt"
	mkdir -p "$W/results/json" "$W/results/err"
	t0=$(date +%s.%N)
	if [ "$mode" = interleaved ]; then
		(cd "$W/heads/$cell" && "$PGO" gate check --build "$MAKE_CMD" --base main -r "$RUNS" -F "$HZ" \
			$FLAGS --json "$j" -- ./lua bench.lua "$N") >/dev/null 2>"$e" || rc=$?
	else
		(cd "$W/heads/$cell" && "$PGO" gate check --ref "refs/notes/gate-$var-$cell-$trial" --base main \
			-r "$RUNS" -F "$HZ" $FLAGS --json "$j" -- ./lua bench.lua "$N") >/dev/null 2>"$e" || rc=$?
		gap=$(echo "$t0 - $(cat "$W/results/rec-$var-$cell-$trial.t")" | bc -l)
		git -C "$W/repo" update-ref -d "refs/notes/gate-$var-$cell-$trial" 2>/dev/null
	fi
	t1=$(date +%s.%N)
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$mode" "$var" "$cell" "$trial" "$rc" \
		"$(echo "$t1 - $t0" | bc -l)" "$gap" "$(cut -d' ' -f1 /proc/loadavg)" "$(date +%s)" >>"$RES"
	[ "$rc" -ge 2 ] && { say "check $mode $var $cell $trial: exit $rc"; tail -5 "$e" >&2; }
	return 0
}

# done_check MODE VARIANT CELL TRIAL: already in checks.tsv (a resumed run skips it)
done_check() { [ -s "$RES" ] && grep -q "^$1	$2	$3	$4	" "$RES"; }

# ---- the cost of interleaved mode: a check vs the same runs bare ----
cost() {
	local i b0 b1 g0 g1 k
	[ -s "$W/results/cost.tsv" ] && return 0
	say "gate bench: cost of interleaved mode ($COST_ROUNDS paired rounds)"
	for i in $(seq 1 "$COST_ROUNDS"); do
		b0=$(date +%s.%N)
		/usr/bin/time -o "$W/results/bare.time" -f "%U %S" sh -c "
			for k in \$(seq 1 $RUNS); do '$BASE_LUA' '$W/repo/bench.lua' $N; '$W/heads/aa/lua' '$W/repo/bench.lua' $N; done" >/dev/null
		b1=$(date +%s.%N)
		g0=$(date +%s.%N)
		(cd "$W/heads/aa" && /usr/bin/time -o "$W/results/gate.time" -f "%U %S" "$PGO" gate check \
			--build "cp '$BASE_LUA' lua" --base main -r "$RUNS" -F "$HZ" -- ./lua bench.lua "$N") >/dev/null 2>&1
		g1=$(date +%s.%N)
		printf '%s\t%s\t%s\t%s\n' "$(echo "$b1 - $b0" | bc -l)" "$(awk '{ print $1 + $2 }' "$W/results/bare.time")" \
			"$(echo "$g1 - $g0" | bc -l)" "$(awk '{ print $1 + $2 }' "$W/results/gate.time")" >>"$W/results/cost.tsv.tmp"
	done
	mv "$W/results/cost.tsv.tmp" "$W/results/cost.tsv"
}

cat >"$W/results/config.txt" <<EOF
program: Debian lua5.4 $(cat "$W/source" 2>/dev/null || echo "(source version not recorded)"), -O2 -g, bench.lua = bench/inputs/eval.lua $N
gate: $("$PGO" --version 2>/dev/null | head -1) ($(git -C "$PGO_ROOT" rev-parse --short HEAD 2>/dev/null)), -r $RUNS -F $HZ $FLAGS
target: $TARGET; build: $MAKE_CMD; cores: $(nproc)
EOF
cost
trials=$AA; [ "$M" -gt "$trials" ] && trials=$M
# cells_of TRIAL: the cells that trial has in the current variant ($aa_n, $m_n)
cells_of() { local c; for c in $CELLS; do
	if [ "$c" = aa ]; then [ "$1" -le "$aa_n" ] && echo aa; else [ "$1" -le "$m_n" ] && echo "$c"; fi; done; }
for ((b0 = 1; b0 <= trials; b0 += BATCH)); do
	b1=$((b0 + BATCH - 1)); [ "$b1" -gt "$trials" ] && b1=$trials
	for var in $VARIANTS; do
		aa_n=$AA m_n=$M
		[ "$var" = loaded ] && aa_n=$AA_LOADED m_n=$M_LOADED
		[ "$b0" -gt "$aa_n" ] && [ "$b0" -gt "$m_n" ] && continue
		[ "$var" = loaded ] && neighbour_start
		printf '%s\t%s\t%s\t%s\t%s\n' "$(date +%s)" "$b0-$b1" "$var" "$(cut -d' ' -f1-3 /proc/loadavg)" \
			"$(uptime)" >>"$W/results/batches.tsv"
		case " $MODES " in *" notes "*)
			for ((t = b0; t <= b1; t++)); do for c in $(cells_of $t); do
				done_check notes "$var" "$c" "$t" || record_note "$var" "$c" "$t"
			done; done ;;
		esac
		case " $MODES " in *" interleaved "*)
			for ((t = b0; t <= b1; t++)); do for c in $(cells_of $t); do
				done_check interleaved "$var" "$c" "$t" || check interleaved "$var" "$c" "$t"
			done; done ;;
		esac
		case " $MODES " in *" notes "*)
			for ((t = b0; t <= b1; t++)); do for c in $(cells_of $t); do
				done_check notes "$var" "$c" "$t" || check notes "$var" "$c" "$t"
			done; done ;;
		esac
		neighbour_stop
	done
	say "gate bench: trials $b0-$b1 done ($(date +%T), load $(cut -d' ' -f1-3 /proc/loadavg))"
done
summary
