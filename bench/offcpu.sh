#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Off-CPU recording cost per followed context switch. Workload: tests/helpers/offcpu-pingpong,
# two threads bouncing a byte over two pipes; each round trip is two blocking reads, i.e. two
# followed switch-out/switch-in pairs. Variants, all under pgo collect (on-CPU sampling on):
#   on-cpu   --no-off-cpu                      (the reference: what off-CPU recording adds to)
#   none     --off-cpu --off-cpu-stacks none   (hook, task storage, aggregation)
#   user     --off-cpu --off-cpu-stacks user   (+ frame-pointer user stack + libc caller scan)
#   full     --off-cpu                         (+ kernel stack: the default)
# plus "bare" (no collector at all). Every round runs each variant once, in a shuffled order;
# a variant's cost is the median over rounds of its paired difference to on-cpu in the same
# round, divided by 2 (switches per round trip). Needs root (BPF).
#
#   bench/offcpu.sh [-r ROUNDS] [-n ROUND_TRIPS]      (default 9 rounds of 50000)
#   environment: PGO_BUILD (build dir with bin/pgo and tests/helpers)
set -u
export LC_ALL=C
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${PGO_BUILD:-build}
case "$BUILD" in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
PGO=$BUILD/bin/pgo
PP=$BUILD/tests/helpers/offcpu-pingpong
ROUNDS=9 N=50000
while [ $# -gt 0 ]; do
	case "$1" in
	-r) ROUNDS=$2; shift 2 ;;
	-n) N=$2; shift 2 ;;
	-h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "bench/offcpu.sh: unknown option $1" >&2; exit 64 ;;
	esac
done
[ -x "$PGO" ] && [ -x "$PP" ] || { echo "bench/offcpu.sh: build first (make all build/tests/helpers/offcpu-pingpong)" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "bench/offcpu.sh: needs root for BPF" >&2; exit 2; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/pgo-offcpu-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

VARIANTS="bare on-cpu none user full"
run() { # variant -> ns per round trip on stdout
	local out=$WORK/pp.out
	case "$1" in
	bare)   "$PP" "$N" >"$out" ;;
	on-cpu) "$PGO" collect -q --no-off-cpu -o "$WORK/x.data" -- "$PP" "$N" >"$out" ;;
	none)   "$PGO" collect -q --off-cpu --off-cpu-stacks none -o "$WORK/x.data" -- "$PP" "$N" >"$out" ;;
	user)   "$PGO" collect -q --off-cpu --off-cpu-stacks user -o "$WORK/x.data" -- "$PP" "$N" >"$out" ;;
	full)   "$PGO" collect -q --off-cpu -o "$WORK/x.data" -- "$PP" "$N" >"$out" ;;
	esac || { echo "bench/offcpu.sh: variant $1 failed" >&2; exit 2; }
	awk '/ns per round trip/ { print $1 }' "$out"
}

median() { sort -n | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

echo "# $ROUNDS rounds x $N round trips (2 followed switches each), $(nproc) CPUs, $(uname -r)" >&2
: >"$WORK/data"
for r in $(seq "$ROUNDS"); do
	for v in $(printf '%s\n' $VARIANTS | shuf); do
		echo "$r $v $(run "$v")" >>"$WORK/data"
	done
done
# one line of ns/round trip per round, in VARIANTS order
printf '%-8s %14s %16s %18s\n' variant "ns/round trip" "+ns vs on-cpu" "ns per switch"
for v in $VARIANTS; do
	med=$(awk -v v="$v" '$2 == v { print $3 }' "$WORK/data" | median)
	extra=$(awk -v v="$v" '{ t[$1, $2] = $3 } END { for (r = 1; r <= '"$ROUNDS"'; r++) print t[r, v] - t[r, "on-cpu"] }' \
		"$WORK/data" | median)
	printf '%-8s %14.0f %16.0f %18.0f\n' "$v" "$med" "$extra" "$(echo "$extra / 2" | bc -l)"
done
slow_full=$(awk '{ t[$1, $2] = $3 } END { for (r = 1; r <= '"$ROUNDS"'; r++) print t[r, "full"] / t[r, "on-cpu"] }' "$WORK/data" | median)
echo "switch-heavy slowdown of --off-cpu (full stacks) over on-CPU-only collection: x$slow_full"
