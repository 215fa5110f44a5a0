#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# On-CPU call stacks as pgo collect records them by default (make bench B=stacks-oncpu):
#  1. size: bytes per sample at 999 Hz with full stacks on programs without frame pointers
#     (gcc -O2 -g; Debian's libc and libsqlite3), pgo collect's default (auto ->
#     dwarf-unwound: unwound while recording, plain call chains in the file) against
#     --call-graph dwarf (stack copies in the file, as perf record --call-graph dwarf);
#     perf report -g and perf script must read the default file without a word on stderr;
#  2. the frame-pointer repair: tests/helpers/unwind-chain built with frame pointers, share
#     of the chain_c samples that keep main;chain_a;chain_b;chain_c, pgo collect (fp, the
#     auto choice) against perf record -g;
#  3. the wall split: tests/helpers/offcpu-sleep (half compute, which calls clock_gettime,
#     half nanosleep) built with and without frame pointers; the share of the wall view
#     that is not compute's on-CPU time, against the truth of the same run (1 - rusage CPU
#     time / wall time, both as pgo collect measures them around the benchmark);
#  4. cost: pgo collect + pgo convert --to folded against perf record --call-graph dwarf +
#     perf script, same rate (999 Hz), same workload (sqlite, no frame pointers). Each round
#     runs both pipelines, in alternating order; the ratio pgo/perf of CPU time (user+sys of
#     both commands, the workload's own included) and of wall time per round; medians of
#     the paired ratios with a bootstrap 95% interval of the median.
#
#   bench/stacks-oncpu.sh [-r ROUNDS] [-n ROWS]     (default 9 rounds, 100000 rows)
. "$(dirname "$0")/lib.sh"
ROOT=$PGO_ROOT
ROUNDS=9 ROWS=100000
while [ $# -gt 0 ]; do
	case "$1" in
	-r) ROUNDS=$2; shift 2 ;;
	-n) ROWS=$2; shift 2 ;;
	-h|--help) sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "bench/stacks-oncpu.sh: unknown option $1" >&2; exit 64 ;;
	esac
done
[ -x "$PGO" ] || { echo "bench/stacks-oncpu.sh: build first (make)" >&2; exit 2; }
command -v perf >/dev/null || { echo "bench/stacks-oncpu.sh: perf not installed" >&2; exit 2; }
W=$(mktemp -d "${TMPDIR:-/tmp}/pgo-bench-stacks.XXXXXX")
trap 'rm -rf "$W"' EXIT
cd "$W"
gcc -O2 -g -o chain "$ROOT/tests/helpers/unwind-chain.c" || exit 2
gcc -O2 -g -fno-omit-frame-pointer -o chain-fp "$ROOT/tests/helpers/unwind-chain.c" || exit 2
gcc -O2 -g -o sleep-nofp "$ROOT/tests/helpers/offcpu-sleep.c" || exit 2
gcc -O2 -g -fno-omit-frame-pointer -o sleep-fp "$ROOT/tests/helpers/offcpu-sleep.c" || exit 2
gcc -O2 -g -o sqlite "$ROOT/bench/unwind-sqlite.c" -lsqlite3 2>/dev/null ||
	{ echo "bench/stacks-oncpu.sh: needs libsqlite3-dev" >&2; exit 2; }

echo "== 1. bytes per sample at 999 Hz, programs without frame pointers"
printf '  %-10s %-22s %8s %10s %10s %s\n' program mode samples bytes B/sample "perf report -g / perf script stderr"
size_of() { # name mode-args... -- cmd
	local name=$1 mode=$2; shift 2
	"$PGO" collect --no-off-cpu -F 999 $mode -o s.data -- "$@" >/dev/null 2>s.err || return 0
	local n b e
	n=$(sed -n 's/^pgo collect: 1 run, \([0-9]*\) samples.*/\1/p' s.err)
	b=$(stat -c %s s.data)
	perf report -g -i s.data --stdio >/dev/null 2>r.err
	perf script -i s.data >/dev/null 2>>r.err
	e=$(wc -l <r.err)
	printf '  %-10s %-22s %8s %10s %10s %s\n' "$name" "${mode:-(default)}" "$n" "$b" \
		"$(awk -v b="$b" -v n="$n" 'BEGIN { printf "%d", n ? b / n : 0 }')" \
		"$([ "$e" = 0 ] && echo "empty" || echo "$e lines")"
	grep "call stacks\|unwound" s.err | sed 's/^/      /'
}
size_of chain "" ./chain 2000
size_of chain "--call-graph dwarf" ./chain 2000
size_of sqlite "" ./sqlite "$ROWS"
size_of sqlite "--call-graph dwarf" ./sqlite "$ROWS"

echo "== 2. frame pointers: chain_c samples keeping main;chain_a;chain_b;chain_c (unwind-chain -fno-omit-frame-pointer)"
share() { # folded file: % of the chain_c samples (chain_c or below it) with the whole chain
	awk '/chain_c/ { t += $NF; if ($0 ~ /main;chain_a;chain_b;chain_c/) k += $NF }
	     /;chain_b;__memset/ { t += $NF }
	     END { printf "%.1f%% of %d ns\n", t ? 100 * k / t : 0, t }' "$1"
}
"$PGO" collect --no-off-cpu -F 999 -o fp.data -- ./chain-fp 1000 >/dev/null 2>fp.err
grep "call stacks\|fp stacks" fp.err | sed 's/^/      /'
"$PGO" convert --to folded -i fp.data -o fp.folded 2>/dev/null
perf record -q -F 999 -g -o perfg.data -- ./chain-fp 1000 >/dev/null 2>&1
"$PGO" convert --to folded -i perfg.data -o perfg.folded 2>/dev/null
echo "  pgo collect (auto):  $(share fp.folded)"
echo "  perf record -g:      $(share perfg.folded)"

echo "== 3. wall view: share that is not compute's on-CPU time, against 1 - CPU/wall of the same run"
if "$PGO" collect -q -F 99 -o probe.data -- true >/dev/null 2>&1 && "$PGO" convert --to folded --view wall -i probe.data -o /dev/null 2>/dev/null; then
	for b in sleep-fp sleep-nofp; do
		for i in 1 2 3; do
			"$PGO" collect -o w.data -- ./$b 10 50 >/dev/null 2>w.err || continue
			"$PGO" convert --to folded --view wall -i w.data -o w.folded 2>/dev/null
			awk -v name=$b 'FNR == NR { if ($0 ~ /^pgo collect: 1 run,/) { for (i = 1; i <= NF; i++) { if ($i == "CPU") cpu = $(i - 2); if ($(i+1) == "s," && wall == "") wall = $i } } next }
				{ t += $NF; if ($0 ~ /(^|;)compute;.*\[running\] [0-9]+$/) c += $NF }
				END { truth = 1 - cpu / wall; got = 1 - c / t
				      printf "  %-10s wait share %.3f, truth %.3f (CPU %.2f s / wall %.2f s): %+.3f\n", name, got, truth, cpu, wall, got - truth }' w.err w.folded
		done
	done
else
	echo "  (skipped: no off-CPU recording here: needs root and BPF)"
fi

echo "== 4. cost at 999 Hz: pgo collect + convert vs perf record --call-graph dwarf + perf script ($ROUNDS rounds, sqlite $ROWS rows)"
tm() { /usr/bin/time -f "%e %U %S" -o t.one "$@" >/dev/null 2>&1; awk '{ print $1, $2 + $3 }' t.one; }
run_pgo() {
	local a b
	a=$(tm "$PGO" collect -q --no-off-cpu -F 999 -o p.data -- ./sqlite "$ROWS")
	b=$(tm "$PGO" convert --to folded -i p.data -o p.folded)
	echo "$a $b" | awk '{ print $1 + $3, $2 + $4 }'
}
run_perf() {
	local a b
	a=$(tm perf record -q -F 999 --call-graph dwarf -o q.data -- ./sqlite "$ROWS")
	b=$(tm perf script -i q.data)
	echo "$a $b" | awk '{ print $1 + $3, $2 + $4 }'
}
: >pairs
for r in $(seq "$ROUNDS"); do
	if [ $((r % 2)) = 1 ]; then p=$(run_pgo); q=$(run_perf); else q=$(run_perf); p=$(run_pgo); fi
	echo "$r $p $q" >>pairs
done
awk "$AWK_MED"'{ wp[NR] = $2; cp[NR] = $3; wq[NR] = $4; cq[NR] = $5; rw[NR] = $2 / $4; rc[NR] = $3 / $5 }
	function boot(x, n,   b, i, s, m, lo, hi) {
		srand(1)
		for (b = 1; b <= 1000; b++) { for (i = 1; i <= n; i++) s[i] = x[int(rand() * n) + 1]; m[b] = med(s, n) }
		med(m, 1000); lo = m[25]; hi = m[975]
		return sprintf("[%.2f, %.2f]", lo, hi)
	}
	END {
		n = NR
		printf "  pgo collect+convert: median wall %.2f s, CPU %.2f s\n", med(wp, n), med(cp, n)
		printf "  perf record+script:  median wall %.2f s, CPU %.2f s\n", med(wq, n), med(cq, n)
		printf "  ratio pgo/perf (median of %d paired rounds, 95%% bootstrap CI): CPU %.2f %s, wall %.2f %s\n",
			n, med(rc, n), boot(rc, n), med(rw, n), boot(rw, n)
	}' pairs
