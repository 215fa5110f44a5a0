#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# pprof merge: many fleet-style profiles into one AutoFDO profile.
#   A real program (lua5.4 from Debian source, -O2 -g) runs bench/inputs/train.lua under pgo
#   collect; its recording is written as pprof (pgo convert --to pprof), then N copies stand
#   for N hosts' profiles (default 1000, each about 10k samples). Measured, in alternating
#   rounds: pgo convert --to autofdo of one file and of all N (CPU time, peak RSS), and
#   go tool pprof -proto merging the same N files (the reference merger).
#   Usage: bench/pprof.sh [-r ROUNDS] [-n FILES]
. "$(dirname "$0")/lib.sh"
rounds=3 nfiles=1000
while getopts r:n: o; do
	case $o in r) rounds=$OPTARG ;; n) nfiles=$OPTARG ;; *) exit 64 ;; esac
done
need_pkgs golang-go linux-perf gcc
pgo_works convert || die "pgo is not built (make)"
W=$BENCH_WORK/pprof
mkdir -p "$W/obj" "$BENCH_WORK/include"
export HOME=$W GOCACHE=$W/.gocache

src=$(deb_source lua5.4) || exit 2
if [ ! -x "$W/lua" ]; then
	echo '#define DEB_HOST_MULTIARCH "x86_64-linux-gnu"' >"$BENCH_WORK/include/lua5.4-deb-multiarch.h"
	ls "$src"/src/*.c | grep -v '/luac\.c$' | W=$W I=$BENCH_WORK/include xargs -P 2 -I{} sh -c \
		'gcc -O2 -g -w -I"$I" -DLUA_COMPAT_5_3 -DLUA_USE_LINUX -c "$1" -o "$W/obj/$(basename "$1" .c).o"' _ {} ||
		die "lua5.4: compile failed"
	gcc -o "$W/lua" "$W"/obj/*.o -lm -ldl || die "lua5.4: link failed"
fi

# one host's profile: about 10k samples at 999 Hz (train.lua, 40 repetitions)
if [ ! -s "$W/one.pb.gz" ]; then
	"$PGO" collect -q -F 999 --no-off-cpu -o "$W/one.data" -- "$W/lua" "$PGO_ROOT/bench/inputs/train.lua" 40 \
		>/dev/null || die "pgo collect failed"
	"$PGO" convert -q --to pprof -i "$W/one.data" -o "$W/one.pb.gz" || die "pgo convert --to pprof failed"
fi
samples=$(go tool pprof -raw "$W/one.pb.gz" 2>/dev/null |
	awk '/^Samples/ { s = 1; next } /^Locations/ { s = 0 } s && /^ +[0-9]+ / { t += $1 } END { print t }')
rm -rf "$W/fleet" && mkdir -p "$W/fleet"
for i in $(seq 1 "$nfiles"); do cp "$W/one.pb.gz" "$W/fleet/host$i.pb.gz"; done
say "pprof: $nfiles files of $samples samples ($(du -sh "$W/fleet" | cut -f1))"

for r in $(seq 1 "$rounds"); do
	"$CPUTIME" -o "$W/t1" -m "$PGO" convert -q --to autofdo -i "$W/one.pb.gz" -b "$W/lua" -o "$W/one.afdo"
	"$CPUTIME" -o "$W/tn" -m "$PGO" convert -q --to autofdo -i "$W/fleet" -b "$W/lua" -o "$W/all.afdo"
	"$CPUTIME" -o "$W/tg" -m go tool pprof -proto "$W"/fleet/*.pb.gz
	echo "$(cat "$W/t1") $(cat "$W/tn") $(cat "$W/tg")"
done >"$W/rounds"
awk -v n="$nfiles" '{ c1[NR] = $1; m1[NR] = $3; cn[NR] = $4; mn[NR] = $6; cg[NR] = $7; mg[NR] = $9 }
	END { for (i = 1; i <= NR; i++) { r = cg[i] / cn[i]; m = mn[i] / m1[i]
		printf "round %d: pgo one file %.2f s CPU %d KB; pgo %d files %.2f s CPU %d KB (%.2fx one file); go tool pprof -proto %.2f s CPU %d KB; go/pgo CPU %.1fx\n", i, c1[i], m1[i], n, cn[i], mn[i], m, cg[i], mg[i], r } }' "$W/rounds"
