#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Attaching to a live service (make bench B=attach): the test server of tests/e2e/attach
# (-O2 -g, no frame pointers, 4 threads) under a load generator (2 connections).
#  1. Its throughput while `pgo collect -p` or `perf record -p` (999 Hz, task-clock,
#     --call-graph dwarf) is attached, in pairs whose order alternates; the median of the
#     per-pair ratios with a bootstrap 95% interval: pgo on-CPU only (--no-off-cpu, the same
#     work as perf record) / perf, pgo with its default off-CPU recording / perf, and an A/A
#     control (perf against perf) that should read 1.00.
#  2. Requests per second of the server rebuilt with the AutoFDO profile of an attached
#     recording against the -O2 build, alternating, median of ratios with its interval.
# ATTACH_ROUNDS (default 7) pairs, ATTACH_SECONDS (default 3) of load per measurement.
. "$(dirname "$0")/lib.sh"

ROUNDS=${ATTACH_ROUNDS:-7}
SECS=${ATTACH_SECONDS:-3}
W=$BENCH_WORK/attach
mkdir -p "$W"
command -v perf >/dev/null || die "perf is needed (apt-get install linux-perf)"
pgo_works collect || die "pgo collect is not built"
[ "$(id -u)" = 0 ] || die "attaching with off-CPU needs root"

SRC=$PGO_ROOT/tests/e2e/attach/server.c
gcc -O2 -g -pthread -o "$W/server" "$SRC" || die "cannot build the server"
cp "$W/server" "$W/loadgen"

# serve BIN: start BIN serving (4 threads); sets SPID and PORT
serve() {
	rm -f "$W/port"
	"$1" serve "$W/port" 4 >/dev/null 2>&1 &
	SPID=$!
	for _ in $(seq 100); do [ -s "$W/port" ] && break; sleep 0.05; done
	PORT=$(cat "$W/port")
}
unserve() { kill "$SPID" 2>/dev/null; wait "$SPID" 2>/dev/null; }
trap 'unserve' EXIT

# rps: requests per second of SECS of load (2 connections)
rps() { "$W/loadgen" load "$PORT" 2 "$SECS" | awk '{ print $4 }'; }

# attached TOOL: the server's rps while TOOL is attached to it for the whole load
attached() {
	local cp r
	case "$1" in
	pgo) "$PGO" collect -q -p "$SPID" --duration $((SECS + 2)) -o "$W/pgo.data" & cp=$! ;;
	pgo-oncpu) "$PGO" collect -q --no-off-cpu -p "$SPID" --duration $((SECS + 2)) -o "$W/pgo.data" &
		cp=$! ;;
	perf) perf record -q -F 999 -e task-clock --call-graph dwarf -p "$SPID" -o "$W/perf.data" \
		-- sleep $((SECS + 2)) 2>/dev/null & cp=$! ;;
	esac
	sleep 1.5  # both have attached (BPF loaded, events enabled) before the load starts
	r=$(rps)
	wait "$cp" 2>/dev/null
	echo "$r"
}

# ratio_ci FILE: "median (95% CI lo-hi)" of the ratios a/b of the lines "a b"
ratio_ci() {
	awk "$AWK_MED"'
	$2 > 0 { R[++m] = $1 / $2 }
	END {
		if (m < 3) { print "n/a"; exit }
		for (j = 1; j <= m; j++) x[j] = R[j]
		mid = med(x, m)
		srand(1)
		for (b = 1; b <= 1000; b++) {
			for (j = 1; j <= m; j++) x[j] = R[int(rand() * m) + 1]
			S[b] = med(x, m)
		}
		med(S, 1000)
		printf "%.3f (95%% CI %.3f-%.3f, %d pairs)", mid, S[25], S[976], m
	}' "$1"
}

# pairs A B OUT: ROUNDS pairs of `attached A` and `attached B`, the order alternating; "a b" lines
pairs() {
	local i a b
	: >"$3"
	for i in $(seq "$ROUNDS"); do
		if [ $((i % 2)) = 1 ]; then a=$(attached "$1"); b=$(attached "$2")
		else b=$(attached "$2"); a=$(attached "$1"); fi
		say "  pair $i: $1 $a rps, $2 $b rps"
		echo "$a $b" >>"$3"
	done
}

say "== throughput while attached ($ROUNDS pairs of $SECS s; the server alone: $(serve "$W/server"; rps; unserve) rps)"
serve "$W/server"
pairs pgo-oncpu perf "$W/oncpu-perf"
pairs pgo perf "$W/pgo-perf"
pairs perf perf "$W/aa"
unserve
echo "attach: server throughput with pgo collect -p --no-off-cpu / with perf record -p (999 Hz, task-clock, dwarf): $(ratio_ci "$W/oncpu-perf")"
echo "attach: server throughput with pgo collect -p (on- and off-CPU) / with perf record -p (on-CPU): $(ratio_ci "$W/pgo-perf")"
echo "attach: A/A control, perf record -p / perf record -p: $(ratio_ci "$W/aa")"

say "== AutoFDO from an attached recording"
serve "$W/server"
"$W/loadgen" load "$PORT" 2 $((SECS + 4)) >/dev/null &
lp=$!
sleep 0.5
"$PGO" collect -q -p "$SPID" --duration "$SECS" -o "$W/train.data" || die "pgo collect -p failed"
wait "$lp"
unserve
"$PGO" convert -q --to autofdo -i "$W/train.data" -b "$W/server" -o "$W/server.afdo" || die "pgo convert failed"
gcc -O2 -g -pthread -fauto-profile="$W/server.afdo" -o "$W/server-afdo" "$SRC" || die "the AutoFDO build failed"
: >"$W/afdo"
for i in $(seq "$ROUNDS"); do
	for b in $([ $((i % 2)) = 1 ] && echo "server-afdo server" || echo "server server-afdo"); do
		serve "$W/$b"
		eval "r_${b//-/_}=\$(rps)"
		unserve
	done
	say "  round $i: -O2 $r_server rps, AutoFDO $r_server_afdo rps"
	echo "$r_server_afdo $r_server" >>"$W/afdo"
done
echo "attach: requests/s of the AutoFDO build (profile attached for ${SECS} s) / -O2: $(ratio_ci "$W/afdo")"
