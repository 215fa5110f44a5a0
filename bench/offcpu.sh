#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Off-CPU recording cost per followed context switch. Workload: tests/helpers/offcpu-pingpong,
# two threads bouncing a byte over two pipes; each round trip is two blocking reads, i.e. two
# followed switch-out/switch-in pairs. Variants, all under pgo collect (on-CPU sampling on):
#   on-cpu   --no-off-cpu                      (the reference: what off-CPU recording adds to)
#   none     --off-cpu --off-cpu-stacks none   (hook, task storage, aggregation)
#   user-fp  --off-cpu --off-cpu-unwind fp --off-cpu-stacks user --no-off-cpu-callers  (+ fp user stack)
#   user     --off-cpu --off-cpu-unwind fp --off-cpu-stacks user   (+ the scan for the libc caller)
#   full     --off-cpu                         (+ kernel stack; user stack by DWARF: the default)
# plus "bare" (no collector at all). Every round runs each variant once, in a shuffled order;
# a variant's cost is the median over rounds of its paired difference to on-cpu in the same
# round, divided by 2 (switches per round trip). Three metrics:
#  - the sched_switch program's own run time per followed switch, from the kernel's BPF
#    statistics (sysctl kernel.bpf_stats_enabled, turned on for the bench and restored after):
#    exact, immune to the machine's load, but blind to indirect costs (cache misses);
#  - CPU time of the benchmark (user + sys: the program runs in the switching task's context
#    and is charged to it);
#  - wall time per round trip (what the benchmark feels; noisy when the CPUs are shared).
# Needs root (BPF).
#
#   bench/offcpu.sh [-r ROUNDS] [-n ROUND_TRIPS]      (default 9 rounds of 50000)
#   environment: PGO_BUILD (build dir with bin/pgo and tests/helpers)
. "$(dirname "$0")/lib.sh"
ROOT=$PGO_ROOT BUILD=$PGO_BUILD
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
STATS=$(cat /proc/sys/kernel/bpf_stats_enabled 2>/dev/null || echo 0)
trap 'echo "$STATS" >/proc/sys/kernel/bpf_stats_enabled 2>/dev/null; rm -rf "$WORK"' EXIT
echo 1 >/proc/sys/kernel/bpf_stats_enabled 2>/dev/null || echo "bench/offcpu.sh: no BPF statistics (kernel.bpf_stats_enabled)" >&2

VARIANTS=${VARIANTS:-"bare on-cpu none user-fp user full"}
run() { # variant -> ns per round trip on stdout
	local out=$WORK/pp.out err=$WORK/pgo.err
	case "$1" in
	bare)   "$PP" "$N" >"$out"; : >"$err" ;;
	on-cpu) "$PGO" collect --no-off-cpu -o "$WORK/x.data" -- "$PP" "$N" >"$out" 2>"$err" ;;
	none)   "$PGO" collect --off-cpu --off-cpu-stacks none -o "$WORK/x.data" -- "$PP" "$N" >"$out" 2>"$err" ;;
	user-fp) "$PGO" collect --off-cpu --off-cpu-unwind fp --off-cpu-stacks user --no-off-cpu-callers -o "$WORK/x.data" -- "$PP" "$N" >"$out" 2>"$err" ;;
	user)   "$PGO" collect --off-cpu --off-cpu-unwind fp --off-cpu-stacks user -o "$WORK/x.data" -- "$PP" "$N" >"$out" 2>"$err" ;;
	full)   "$PGO" collect --off-cpu -o "$WORK/x.data" -- "$PP" "$N" >"$out" 2>"$err" ;;
	esac || { echo "bench/offcpu.sh: variant $1 failed" >&2; exit 2; }
	# BPF program time / followed switches (the ping-pong's switches are nearly all followed)
	p=$(awk '/off-CPU cost:/ { for (i = 1; i <= NF; i++) { if ($i == "ms" && $(i + 1) == "of") ms = $(i - 1);
		if ($i == "of" && $(i + 1) == "them") n = $(i - 1) } if (n > 0) printf "%.0f\n", ms * 1e6 / n }' "$err")
	awk -v p="${p:-0}" '/^[0-9]+ ns per round trip/ { w = $1 } /cpu ns per round trip/ { c = $1 } END { print w, c, p }' "$out"
}


echo "# $ROUNDS rounds x $N round trips (2 followed switches each), $(nproc) CPUs, $(uname -r)" >&2
: >"$WORK/data"
for r in $(seq "$ROUNDS"); do
	for v in $(printf '%s\n' $VARIANTS | shuf); do
		echo "$r $v $(run "$v")" >>"$WORK/data"
	done
done
# data lines: round variant wall_ns cpu_ns (per round trip)
report() { # column title
	local col=$1
	echo "$2"
	printf '  %-8s %14s %16s %16s\n' variant "ns/round trip" "+ns vs on-cpu" "+ns per switch"
	for v in $VARIANTS; do
		med=$(awk -v v="$v" -v c="$col" '$2 == v { print $c }' "$WORK/data" | median)
		extra=$(awk -v v="$v" -v c="$col" '{ t[$1, $2] = $c } END { for (r = 1; r <= '"$ROUNDS"'; r++) print t[r, v] - t[r, "on-cpu"] }' \
			"$WORK/data" | median)
		printf '  %-8s %14.0f %16.0f %16.0f\n' "$v" "$med" "$extra" "$(echo "$extra / 2" | bc -l)"
	done
	slow=$(awk -v c="$col" '{ t[$1, $2] = $c } END { for (r = 1; r <= '"$ROUNDS"'; r++) print t[r, "full"] / t[r, "on-cpu"] }' "$WORK/data" | median)
	echo "  slowdown of the switch-heavy workload, --off-cpu (full stacks) vs on-CPU only: x$slow"
}
echo "sched_switch BPF program, ns per followed switch (median over rounds):"
for v in $VARIANTS; do
	case "$v" in bare|on-cpu) continue ;; esac
	printf '  %-8s %8.0f\n' "$v" "$(awk -v v="$v" '$2 == v { print $5 }' "$WORK/data" | median)"
done
report 4 "CPU time (user + sys) per round trip:"
report 3 "wall time per round trip:"
