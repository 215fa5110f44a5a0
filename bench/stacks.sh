#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Off-CPU user stacks on programs built without frame pointers: DWARF unwinding in the BPF
# program (--off-cpu-unwind dwarf, the default) against the frame-pointer walk (fp).
#  1. completeness: tests/helpers/nofp-waits (-O2 -g, waits through libc in the main thread,
#     threads, a child process and a signal handler): the share of the time waited through
#     libc whose user stack reaches _start (processes) or clone3 (threads);
#  2. wall view: tests/helpers/nofp-sleep (half compute, half nanosleep in wait_for_io):
#     the share of the [sleep] time pgo convert --view wall files under main;wait_for_io;
#  3. cost per followed context switch: tests/helpers/nofp-pingpong (two threads bouncing a
#     byte over pipes, 2 followed switches per round trip), variants on-cpu (no off-CPU),
#     fp (kernel + fp user stacks + caller scan), dwarf (kernel + dwarf user stacks) and
#     dwarf-user (dwarf user stacks only), run in a shuffled order each round. Reported: the
#     sched_switch program's run time per followed switch (kernel BPF statistics), as a
#     distribution over rounds, and the benchmark's extra CPU time per switch against the
#     on-cpu run of the same round (median of the paired differences);
#  4. a real program: Debian's pbzip2 built -O2 -g from apt-get source, compressing 20 MB with
#     two threads: the share of its libc waits with the whole user stack, its longest waits.
# Needs root (BPF).
#
#   bench/stacks.sh [-r ROUNDS] [-n ROUND_TRIPS]      (default 7 rounds, 20000 round trips)
#   environment: PGO_BUILD (build dir with bin/pgo and tests/helpers)
. "$(dirname "$0")/lib.sh"
BUILD=$PGO_BUILD
ROUNDS=7 N=20000
while [ $# -gt 0 ]; do
	case "$1" in
	-r) ROUNDS=$2; shift 2 ;;
	-n) N=$2; shift 2 ;;
	-h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "bench/stacks.sh: unknown option $1" >&2; exit 64 ;;
	esac
done
H=$BUILD/tests/helpers
for h in nofp-waits nofp-sleep nofp-pingpong; do
	[ -x "$H/$h" ] || { echo "bench/stacks.sh: build first (make all $H/$h)" >&2; exit 2; }
done
[ "$(id -u)" = 0 ] || { echo "bench/stacks.sh: needs root for BPF" >&2; exit 2; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/pgo-stacks-bench.XXXXXX")
STATS=$(cat /proc/sys/kernel/bpf_stats_enabled 2>/dev/null || echo 0)
trap 'echo "$STATS" >/proc/sys/kernel/bpf_stats_enabled 2>/dev/null; rm -rf "$WORK"' EXIT
echo 1 >/proc/sys/kernel/bpf_stats_enabled 2>/dev/null || echo "bench/stacks.sh: no BPF statistics" >&2
. "$PGO_ROOT/tests/e2e/offcpu-lib.sh"
cd "$WORK" || exit 2  # perf_stacks leaves perf-script.err in the current directory

# quartiles < numbers: "min q1 median q3 max"
quartiles() {
	sort -g | awk '{ v[NR] = $1 } END { if (!NR) { print "nan"; exit }
		printf "%.0f %.0f %.0f %.0f %.0f\n", v[1], v[int((NR + 3) / 4)],
		(NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2), v[int((3 * NR + 3) / 4)], v[NR] }'
}

echo "# $(nproc) CPUs, $(uname -r); $ROUNDS rounds"
echo "1. share of the time waited through libc with the whole user stack (nofp-waits 6 20):"
for mode in dwarf fp; do
	for r in $(seq "$ROUNDS"); do
		"$PGO" collect -q --off-cpu-unwind "$mode" -o "$WORK/w.data" -- "$H/nofp-waits" 6 20 >/dev/null 2>&1 ||
			{ echo "bench/stacks.sh: collect failed" >&2; exit 2; }
		perf_stacks "$WORK/w.data" offcpu-time 2>/dev/null | awk '
			$2 ~ /(clock_nanosleep|__nanosleep|libc_read|__read|lll_lock_wait|futex_abstimed_wait|futex_wait)/ {
				w += $1; if ($2 ~ /;(_start|clone3|clone)$/) c += $1 }
			END { printf "%.1f\n", w ? 100 * c / w : 0 }'
	done >"$WORK/complete.$mode"
	printf '  %-6s %% whole, min q1 median q3 max: %s\n' "$mode" "$(quartiles <"$WORK/complete.$mode")"
done

echo "2. wall view: share of nofp-sleep's [sleep] time under main;wait_for_io (nofp-sleep 8 50):"
for mode in dwarf fp; do
	"$PGO" collect -q --off-cpu-unwind "$mode" -o "$WORK/s.data" -- "$H/nofp-sleep" 8 50 >/dev/null 2>&1 &&
	"$PGO" convert --to folded --view wall -i "$WORK/s.data" -o "$WORK/s.folded" 2>/dev/null ||
		{ echo "bench/stacks.sh: collect/convert failed" >&2; exit 2; }
	awk -v m="$mode" '/\[sleep\] [0-9]+$/ { s += $NF; if ($0 ~ /;main;wait_for_io;/) w += $NF }
		/ [0-9]+$/ { t += $NF }
		END { printf "  %-6s %.3f s of %.3f s sleeping (%.1f%%); sleep share of the wall view %.3f\n",
			m, w / 1e9, s / 1e9, s ? 100 * w / s : 0, t ? s / t : 0 }' "$WORK/s.folded"
done

echo "3. cost per followed switch (nofp-pingpong $N round trips):"
VARIANTS="on-cpu fp dwarf dwarf-user"
run() { # variant -> "wall_ns cpu_ns bpf_ns_per_switch" per round trip
	local out=$WORK/pp.out err=$WORK/pgo.err
	case "$1" in
	on-cpu)     "$PGO" collect --no-off-cpu -o "$WORK/x.data" -- "$H/nofp-pingpong" "$N" ;;
	fp)         "$PGO" collect --off-cpu --off-cpu-unwind fp -o "$WORK/x.data" -- "$H/nofp-pingpong" "$N" ;;
	dwarf)      "$PGO" collect --off-cpu -o "$WORK/x.data" -- "$H/nofp-pingpong" "$N" ;;
	dwarf-user) "$PGO" collect --off-cpu --off-cpu-stacks user -o "$WORK/x.data" -- "$H/nofp-pingpong" "$N" ;;
	esac >"$out" 2>"$err" || { echo "bench/stacks.sh: variant $1 failed" >&2; exit 2; }
	p=$(awk '/off-CPU cost:/ { for (i = 1; i <= NF; i++) { if ($i == "ms" && $(i + 1) == "of") ms = $(i - 1);
		if ($i == "of" && $(i + 1) == "them") n = $(i - 1) } if (n > 0) printf "%.0f\n", ms * 1e6 / n }' "$err")
	awk -v p="${p:-0}" '/^[0-9]+ ns per round trip/ { w = $1 } /cpu ns per round trip/ { c = $1 } END { print w, c, p }' "$out"
	grep "user stacks: dwarf" "$err" >>"$WORK/ends.$1" || true
}
: >"$WORK/data"
for r in $(seq "$ROUNDS"); do
	for v in $(printf '%s\n' $VARIANTS | shuf); do
		echo "$r $v $(run "$v")" >>"$WORK/data"
	done
done
echo "  sched_switch BPF program, ns per followed switch over rounds (min q1 median q3 max):"
for v in fp dwarf dwarf-user; do
	printf '    %-10s %s\n' "$v" "$(awk -v v="$v" '$2 == v { print $5 }' "$WORK/data" | quartiles)"
done
echo "  benchmark CPU time, extra ns per switch vs on-cpu in the same round (median of pairs):"
for v in fp dwarf dwarf-user; do
	extra=$(awk -v v="$v" '{ t[$1, $2] = $4 } END { for (r = 1; r <= '"$ROUNDS"'; r++) print (t[r, v] - t[r, "on-cpu"]) / 2 }' \
		"$WORK/data" | median)
	printf '    %-10s %8.0f\n' "$v" "$extra"
done
echo "  how the dwarf stacks ended (last round):"
tail -1 "$WORK/ends.dwarf" | sed 's/^pgo collect: /    /'

echo "4. a real program: Debian's pbzip2 (threaded bzip2), built -O2 -g from apt-get source (bench/work/src):"
src=$(deb_source pbzip2) || exit 2
if [ ! -x "$src/pbzip2" ]; then
	make -s -C "$src" CXXFLAGS="-O2 -g" >"$WORK/pbzip2-build.log" 2>&1 ||
		{ echo "bench/stacks.sh: pbzip2 did not build" >&2; exit 2; }
fi
head -c 20000000 /dev/urandom >"$WORK/rand.bin"
for mode in dwarf fp; do
	"$PGO" collect --off-cpu-unwind "$mode" -o "$WORK/pb.data" -- "$src/pbzip2" -p2 -k -c "$WORK/rand.bin" \
		>/dev/null 2>"$WORK/pb.err" || { echo "bench/stacks.sh: pbzip2 run failed" >&2; exit 2; }
	perf_stacks "$WORK/pb.data" offcpu-time 2>/dev/null >"$WORK/pb.stacks"
	awk -v m="$mode" '$2 ~ /(clock_nanosleep|__nanosleep|libc_read|__read|lll_lock_wait|futex_abstimed_wait|futex_wait|sigtimedwait)/ {
			w += $1; if ($2 ~ /;(_start|clone3|clone)$/) c += $1 }
		END { printf "  %-6s %.1f s waited through libc, %.1f%% with the whole user stack\n", m, w / 1e9, w ? 100 * c / w : 0 }' \
		"$WORK/pb.stacks"
	[ "$mode" = dwarf ] || continue
	grep "user stacks: dwarf" "$WORK/pb.err" | sed 's/^pgo collect: /    /'
	echo "    its longest waits (user frames, leaf first):"
	sort -rn "$WORK/pb.stacks" | head -4 |
		awk '{ sub(/^.*entry_SYSCALL_64_after_hwframe;/, "", $2); printf "    %8.3f s %s\n", $1 / 1e9, $2 }'
done
