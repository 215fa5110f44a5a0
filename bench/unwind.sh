#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# DWARF call stacks, pgo against perf, on code without frame pointers (gcc -O2 -g, and
# Debian's libsqlite3/libc):
#  1. stack depth: the bytes of user stack that complete unwinds needed (recorded with
#     --call-graph dwarf,65528), the measurement behind the default copy size;
#  2. recording cost at 999 Hz: `pgo collect --call-graph dwarf` (default 8192 bytes, and
#     4096) against `perf record --call-graph dwarf` (8192) and no collector, on the sqlite
#     workload. Rounds run every config once in a shuffled order; a config's workload
#     overhead is the median over rounds of its CPU time divided by the bare run's of the
#     same round. Also the collector's own CPU (command user+sys minus the workload's),
#     command wall time, samples, lost samples and file size;
#  3. unwinding throughput: two recordings at 4999 Hz (pgo's and perf's) turned into
#     symbolized stacks by `pgo convert --to folded` and by `perf script`; samples per CPU
#     second and wall time, median of 3; and the unwinding alone (pgo convert -v).
# CPU times are the metric of record: the machine is shared, wall times are noisy.
#
#   bench/unwind.sh [-r ROUNDS] [-n ROWS]        (default 7 rounds, 100000 rows)
#   environment: PGO_BUILD (build dir with bin/pgo)
. "$(dirname "$0")/lib.sh"
ROOT=$PGO_ROOT BUILD=$PGO_BUILD
ROUNDS=7 ROWS=100000
while [ $# -gt 0 ]; do
	case "$1" in
	-r) ROUNDS=$2; shift 2 ;;
	-n) ROWS=$2; shift 2 ;;
	-h|--help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "bench/unwind.sh: unknown option $1" >&2; exit 64 ;;
	esac
done
[ -x "$PGO" ] || { echo "bench/unwind.sh: build first (make)" >&2; exit 2; }
command -v perf >/dev/null || { echo "bench/unwind.sh: perf not installed" >&2; exit 2; }
W=$(mktemp -d "${TMPDIR:-/tmp}/pgo-bench-unwind.XXXXXX")
trap 'rm -rf "$W"' EXIT
cd "$W"

gcc -O2 -g -o chain "$ROOT/tests/helpers/unwind-chain.c" || exit 2
if ! gcc -O2 -g -o sqlite "$ROOT/bench/unwind-sqlite.c" -lsqlite3 2>/dev/null; then
	echo "bench/unwind.sh: needs libsqlite3-dev (apt-get install libsqlite3-dev)" >&2
	exit 2
fi


echo "== 1. stack bytes complete unwinds need (recorded with --call-graph dwarf,65528)"
measure_depth() { # name command...
	local name=$1; shift
	"$PGO" collect -q --no-off-cpu -F 999 --call-graph dwarf,65528 -o deep.data -- "$@" >/dev/null 2>&1 || return 0
	"$PGO" convert --to folded -v -i deep.data -o - 2>&1 >/dev/null | sed -n 's|.*unwound \([0-9]*\) user stacks: \([0-9]*\) complete.*needed \(.*\)|  '"$name"': \2 of \1 complete; bytes needed \3|p; s|.*complete unwinds that a copy of|  '"$name"': complete unwinds a copy of|p'
}
measure_depth chain ./chain 300
measure_depth sqlite ./sqlite "$ROWS"
[ -x "$BUILD/examples/forks" ] && measure_depth examples/forks "$BUILD/examples/forks"
[ -x "$BUILD/examples/threads" ] && measure_depth examples/threads "$BUILD/examples/threads"
measure_depth "gcc -O2 (cc1)" gcc -O2 -g -I"$ROOT" -D_GNU_SOURCE -c "$ROOT/convert/profile.c" -o /dev/null
command -v python3 >/dev/null && measure_depth python3 python3 -c \
	"import json; d = [{'a': i, 'b': str(i) * 3} for i in range(200000)]; json.loads(json.dumps(d)); sorted(d, key=lambda x: x['b'])"

echo "== 2. recording cost at 999 Hz: sqlite $ROWS rows, $ROUNDS rounds, shuffled order"
configs="base pgo pgo4k perf"
run_config() { # config -> "workload_cpu_ms command_cpu_s wall_s"
	local c=$1 t out
	case $c in
	base) cmd=(./sqlite "$ROWS") ;;
	pgo) cmd=("$PGO" collect -q --no-off-cpu -F 999 --call-graph dwarf -o pgo.data -- ./sqlite "$ROWS") ;;
	pgo4k) cmd=("$PGO" collect -q --no-off-cpu -F 999 --call-graph dwarf,4096 -o pgo4k.data -- ./sqlite "$ROWS") ;;
	perf) cmd=(perf record -q -F 999 --call-graph dwarf -o perf.data -- ./sqlite "$ROWS") ;;
	esac
	out=$( { /usr/bin/time -f "TIME %e %U %S" "${cmd[@]}"; } 2>&1 )
	t=$(echo "$out" | awk '/^TIME/ { print $2, $3 + $4 }')
	echo "$(echo "$out" | sed -n 's/^cpu_ms=//p') $t"
}
for r in $(seq "$ROUNDS"); do
	for c in $(printf '%s\n' $configs | shuf); do
		echo "$r $c $(run_config "$c")" >>rounds
	done
done
awk '$2 == "base" { b[$1] = $3 } END { for (r in b) print r, b[r] }' rounds >base
printf '  %-6s %12s %12s %14s %10s %9s %6s %10s %9s\n' config "workload ms" overhead "collector cpu" "wall s" samples lost "file MB" "B/sample"
for c in $configs; do
	ms=$(awk -v c=$c '$2 == c { print $3 }' rounds | median)
	ovh=$(awk -v c=$c 'NR == FNR { b[$1] = $2; next } $2 == c && b[$1] > 0 { printf "%.4f\n", $3 / b[$1] - 1 }' base rounds | median)
	coll=$(awk -v c=$c '$2 == c { x = $5 - $3 / 1000; if (c == "base") x = 0; print x }' rounds | median)
	wall=$(awk -v c=$c '$2 == c { print $4 }' rounds | median)
	samples=- lost=- mb=- bps=-
	if [ "$c" != base ]; then
		f=$c.data
		perf report -i "$f" --stats 2>/dev/null >stats.$c
		samples=$(awk '/SAMPLE events:/ { print $3; exit }' stats.$c)
		lost=$(awk '/LOST(_SAMPLES)? events:/ { s += $3 } END { print s + 0 }' stats.$c)
		bytes=$(stat -c %s "$f")
		mb=$(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1048576 }')
		bps=$(awk -v b="$bytes" -v s="${samples:-0}" 'BEGIN { if (s > 0) printf "%d", b / s; else print "-" }')
	fi
	printf '  %-6s %12.1f %11.1f%% %13.3fs %10.2f %9s %6s %10s %9s\n' "$c" "$ms" "$(awk -v o="$ovh" 'BEGIN { print 100 * o }')" "$coll" "$wall" "$samples" "$lost" "$mb" "$bps"
done

echo "== 3. unwinding + symbolizing the same files: pgo (convert loader) vs perf script, median of 3"
# bigger files than section 2's, so fixed start-up costs do not hide the per-sample cost
"$PGO" collect -q --no-off-cpu -F 4999 --call-graph dwarf -o pgo.data -- ./sqlite "$ROWS" >/dev/null
perf record -q -F 4999 --call-graph dwarf -o perf.data -- ./sqlite "$ROWS" >/dev/null 2>&1
printf '  %-28s %9s %10s %10s %14s\n' "file / tool" samples "cpu s" "wall s" "samples/cpu s"
for f in pgo.data perf.data; do
	n=$("$PGO" convert --to folded -i "$f" -o - 2>&1 >/dev/null | sed -n 's/.*unwound \([0-9]*\) user stacks.*/\1/p' | head -1)
	for tool in pgo perf; do
		rm -f times
		for i in 1 2 3; do
			if [ $tool = pgo ]; then
				/usr/bin/time -f "%e %U %S" -o t1 "$PGO" convert --to folded -i "$f" -o - >/dev/null 2>&1
			else
				/usr/bin/time -f "%e %U %S" -o t1 perf script -i "$f" >/dev/null 2>&1
			fi
			tail -1 t1 >>times
		done
		cpu=$(awk '{ print $2 + $3 }' times | median)
		wall=$(awk '{ print $1 }' times | median)
		printf '  %-28s %9s %10.2f %10.2f %14.0f\n' "$f / $tool" "$n" "$cpu" "$wall" \
			"$(awk -v n="$n" -v c="$cpu" 'BEGIN { print (c > 0 ? n / c : 0) }')"
	done
done
for f in pgo.data perf.data; do
	"$PGO" convert --to folded -v -i "$f" -o - 2>&1 >/dev/null | sed -n 's/.*\(unwound .* complete, [0-9]* truncated\).*/  '"$f"': \1/p; s/.*unwinding took \([^(]*\)(\([0-9]*\) samples\/s).*/  '"$f"': unwinding alone (libdwfl, cached Dwfl): \1, \2 samples\/s/p'
done
