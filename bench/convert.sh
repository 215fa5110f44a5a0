#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Convert speed and peak memory: `pgo convert --to autofdo` against create_gcov (Debian's autofdo)
# on the SAME perf.data. create_gcov only works on a DWARF 4 binary with --use_lbr=false (without
# LBR it otherwise writes an empty profile; DWARF 5 is unsupported: autofdo-verification.md), so
# the profiled program is lua5.4 from Debian source built with -O2 -gdwarf-4. Two recordings:
# -F 999 -g (what the PGO benchmark uses) and -F 20000 -g (20x the samples). Each converter runs
# REPS times per recording; the medians of wall time (/usr/bin/time %e) and peak RSS (%M) are shown.
#   bench/convert.sh [-r REPS]
. "$(dirname "$0")/lib.sh"
REPS=5
[ "${1:-}" = -r ] && REPS=$2
need_pkgs autofdo time linux-perf gcc
W=$BENCH_WORK/convert
mkdir -p "$W/obj" "$BENCH_WORK/include"
src=$(deb_source lua5.4) || exit 2
echo '#define DEB_HOST_MULTIARCH "x86_64-linux-gnu"' >"$BENCH_WORK/include/lua5.4-deb-multiarch.h"
ls "$src"/src/*.c | grep -v '/luac\.c$' | W=$W I=$BENCH_WORK/include xargs -P 2 -I{} sh -c \
	'gcc -O2 -gdwarf-4 -w -I"$I" -DLUA_COMPAT_5_3 -DLUA_USE_LINUX -c "$1" -o "$W/obj/$(basename "$1" .c).o"' _ {} ||
	die "lua5.4: compile failed"
gcc -o "$W/lua" "$W"/obj/*.o -lm -ldl || die "lua5.4: link failed"

# create_gcov 0.19 stops at KSYMBOL/BPF_EVENT records (written whenever BPF programs are loaded):
# give it a copy with those records retyped (bench/perfdata-compat.c); the samples are the same.
COMPAT=$BENCH_WORK/bin/perfdata-compat
gcc -O2 -Wall -o "$COMPAT" "$PGO_ROOT/bench/perfdata-compat.c" || die "cannot build bench/perfdata-compat.c"
have_pgo=1
pgo_works convert || { have_pgo=0; say "pgo convert is not built: only create_gcov is measured"; }
# tmed FILE COLUMN: median of a column of "wall rss" lines.
tmed() { awk -v c="$2" '{ print $c }' "$1" | median; }

for freq in 999 20000; do
	data=$W/lua-F$freq.data
	perf record -q -e task-clock -F "$freq" -g -o "$data" -- "$W/lua" "$PGO_ROOT/bench/inputs/train.lua" 12 \
		>/dev/null 2>"$W/record.log" || { cat "$W/record.log" >&2; die "perf record failed"; }
	samples=$(perf report -i "$data" --stats 2>/dev/null | awk '/SAMPLE events:/ { print $3; exit }')
	"$COMPAT" "$data" "$data.compat" 2>/dev/null || die "perfdata-compat failed on $data"
	: >"$W/cg.times"; : >"$W/pgo.times"
	for i in $(seq 1 "$REPS"); do
		/usr/bin/time -f '%e %M' -o "$W/t" create_gcov --binary="$W/lua" --profile="$data.compat" \
			--gcov="$W/lua.cg.afdo" --use_lbr=false >/dev/null 2>&1 || die "create_gcov failed"
		cat "$W/t" >>"$W/cg.times"
		[ "$(stat -c %s "$W/lua.cg.afdo")" -gt 1600 ] || die "create_gcov wrote an empty profile (1600 bytes)"
		if [ $have_pgo = 1 ]; then
			/usr/bin/time -f '%e %M' -o "$W/t" "$PGO" convert --to autofdo -i "$data" -b "$W/lua" \
				-o "$W/lua.pgo.afdo" >/dev/null 2>&1 || die "pgo convert failed"
			cat "$W/t" >>"$W/pgo.times"
		fi
	done
	cg_t=$(tmed "$W/cg.times" 1) cg_m=$(tmed "$W/cg.times" 2)
	printf 'lua5.4 -F %-5s (%s samples, %s bytes): create_gcov %.2fs %d KB' "$freq" "$samples" \
		"$(stat -c %s "$data")" "$cg_t" "$cg_m"
	if [ $have_pgo = 1 ]; then
		p_t=$(tmed "$W/pgo.times" 1) p_m=$(tmed "$W/pgo.times" 2)
		printf ' | pgo convert %.2fs %d KB | speed %.1fx, memory %.1fx less' "$p_t" "$p_m" \
			"$(awk -v a="$cg_t" -v b="$p_t" 'BEGIN { print (b > 0 ? a / b : 0) }')" \
			"$(awk -v a="$cg_m" -v b="$p_m" 'BEGIN { print (b > 0 ? a / b : 0) }')"
	fi
	printf '\n'
done | tee "$BENCH_WORK/results/convert-summary.txt"
