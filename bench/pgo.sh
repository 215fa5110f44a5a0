#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# PGO benchmark: how much of an instrumented-PGO build's speedup does an AutoFDO build from our
# sampling profile reach?  For each program, four builds of the same sources:
#   base   -O2 -g                                      (what is deployed and profiled)
#   pgo    -O2 -g -fprofile-generate, train, -fprofile-use   (instrumented PGO, the reference)
#   empty  -O2 -g -fauto-profile=<profile with no functions> (control: -fauto-profile alone turns on
#          unrolling, peeling, vectorisation..., which can win or lose by itself)
#   afdo   -O2 -g -fauto-profile=<pgo collect + pgo convert --to autofdo of base on the TRAINING input>
# Training and evaluation use different inputs. The evaluation runs alternate between the builds
# (the order rotates every round), and each build's speedup is the median over rounds of the
# paired ratio base/build, so slow drifts of the shared machine cancel. The metric is CPU time
# (user + sys of the child, bench/cputime.c): the 2 cores are shared with other jobs, which
# inflates wall time far more than the CPU time a run consumes.
#
#   bench/pgo.sh [-r ROUNDS] [PROGRAM...]      programs: recsort lua5.4 mujs bzip2 (default: all)
#   environment: PGO_BUILD (build dir with bin/pgo), BENCH_WORK (cache, default bench/work)
. "$(dirname "$0")/lib.sh"

ROUNDS=9
while [ $# -gt 0 ]; do
	case "$1" in
	-r) ROUNDS=$2; shift 2 ;;
	-h|--help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) die "unknown option $1" ;;
	*) break ;;
	esac
done
PROGRAMS=${*:-recsort lua5.4 mujs bzip2}
export INPUTS=$PGO_ROOT/bench/inputs BENCH_WORK
need_pkgs gcc make linux-perf time

# ---- programs: <p>_setup sets SRCS (array of .c), CPPFLAGS_P, LDLIBS_P; <p>_train/<p>_eval BIN run it.

recsort_setup() {
	SRCS=("$PGO_ROOT/examples/recsort/recsort.c") CPPFLAGS_P="" LDLIBS_P=""
}
# Training runs are long enough for ~5000 samples at 999 Hz: a sparse profile leaves warm code
# with zero counts, which gcc then optimises for size (bench/NOTES.md).
recsort_train() { "$1" train 1000000 1 && "$1" train 1000000 3 && "$1" train 1000000 5; }
recsort_eval() { echo "$1" eval 400000 2; }

lua5.4_setup() {
	local d
	d=$(deb_source lua5.4) || exit 2
	mapfile -t SRCS < <(ls "$d"/src/*.c | grep -v '/luac\.c$')
	mkdir -p "$BENCH_WORK/include"
	# Debian's luaconf.h includes a header its packaging generates.
	echo '#define DEB_HOST_MULTIARCH "x86_64-linux-gnu"' >"$BENCH_WORK/include/lua5.4-deb-multiarch.h"
	CPPFLAGS_P="-I$BENCH_WORK/include -DLUA_COMPAT_5_3 -DLUA_USE_LINUX" LDLIBS_P="-lm -ldl"
}
lua5.4_train() { "$1" "$INPUTS/train.lua" 24; }
lua5.4_eval() { echo "$1" "$INPUTS/eval.lua" 5; }

mujs_setup() {
	local d
	d=$(deb_source mujs) || exit 2
	SRCS=("$d/one.c" "$d/main.c") CPPFLAGS_P="-I$d" LDLIBS_P="-lm"
}
mujs_train() { local i; for i in 1 2 3 4; do "$1" "$INPUTS/train.js" || return 1; done; }
mujs_eval() { echo "$1" "$INPUTS/eval.js"; }

bzip2_setup() {
	local d f
	d=$(deb_source bzip2) || exit 2
	SRCS=()
	for f in blocksort huffman crctable randtable compress decompress bzlib bzip2; do SRCS+=("$d/$f.c"); done
	CPPFLAGS_P="-D_FILE_OFFSET_BITS=64" LDLIBS_P=""
	# Training input: C headers (text); evaluation input: ELF code and data (binary).
	if [ ! -s "$BENCH_WORK/bzip2-train.tar" ]; then
		tar -cf "$BENCH_WORK/bzip2-train.tar" -C /usr/include stdio.h stdlib.h string.h linux 2>/dev/null
		head -c 12000000 "$BENCH_WORK/bzip2-train.tar" >"$BENCH_WORK/bzip2-train.tmp"
		mv "$BENCH_WORK/bzip2-train.tmp" "$BENCH_WORK/bzip2-train.tar"
	fi
	if [ ! -s "$BENCH_WORK/bzip2-eval.bin" ]; then
		cat "$(gcc -print-prog-name=cc1)" | head -c 6000000 >"$BENCH_WORK/bzip2-eval.bin"
		bzip2 -c "$BENCH_WORK/bzip2-eval.bin" >"$BENCH_WORK/bzip2-eval.bin.bz2" 2>/dev/null ||
			"$BENCH_WORK/build/bzip2/base/prog" -c "$BENCH_WORK/bzip2-eval.bin" >"$BENCH_WORK/bzip2-eval.bin.bz2"
	fi
}
bzip2_train() {
	local i
	for i in 1 2 3 4 5 6; do
		"$1" -c "$BENCH_WORK/bzip2-train.tar" >"$BENCH_WORK/bzip2-train.bz2" &&
			"$1" -dc "$BENCH_WORK/bzip2-train.bz2" >/dev/null || return 1
	done
}
bzip2_eval() {
	# One command for cputime: compress one input, decompress another (redirections inside).
	printf '%s\n' 'set -e; "$1" -c "$2" >/dev/null; "$1" -dc "$2.bz2" >/dev/null' >"$BENCH_WORK/bzip2-eval.sh"
	echo sh "$BENCH_WORK/bzip2-eval.sh" "$1" "$BENCH_WORK/bzip2-eval.bin"
}

# ---- builds

# build P VARIANT FLAGS...: compile every source of P to $BENCH_WORK/build/P/VARIANT/*.o (2 jobs), link prog.
build() {
	local p=$1 v=$2 d; shift 2
	d=$BENCH_WORK/build/$p/$v
	mkdir -p "$d"
	rm -f "$d"/*.o "$d/prog"
	local flags="-O2 -g $* $CPPFLAGS_P"
	printf '%s\n' "${SRCS[@]}" | D=$d FLAGS=$flags xargs -P 2 -I{} sh -c \
		'gcc $FLAGS -w -c "$1" -o "$D/$(basename "$1" .c).o"' _ {} || die "$p/$v: compile failed"
	gcc -O2 -g "$@" -o "$d/prog" "$d"/*.o $LDLIBS_P || die "$p/$v: link failed"
}

EMPTY_AFDO=$BENCH_WORK/empty.afdo
# A valid AutoFDO file for gcc 12 with no strings and no functions (autofdo-gcc12-format.md §2).
printf 'adcg\002\0\0\0\0\0\0\0\0\0\0\252\0\0\0\0\0\0\0\0\0\0\0\254\0\0\0\0\0\0\0\0\0\0\0\256\0\0\0\0\0\0\0\0' \
	>"$EMPTY_AFDO"

# record P BIN OUT: sets HOW; profile BIN on the training input, with pgo collect if it is built, else perf record.
record() {
	local p=$1 bin=$2 out=$3
	if pgo_works collect; then
		"$PGO" collect -F 999 -g -q -o "$out" -- bash -c "$(declare -f "${p}_train"); ${p}_train '$bin'" >/dev/null ||
			die "$p: pgo collect failed"
		HOW="pgo collect -F 999 -g"
	else
		perf record -q -e task-clock -F 999 -g -o "$out" -- bash -c "$(declare -f "${p}_train"); ${p}_train '$bin'" \
			>/dev/null 2>"$out.log" || { cat "$out.log" >&2; die "$p: perf record failed"; }
		HOW="perf record -e task-clock -F 999 -g (pgo collect not built)"
	fi
}

# ---- one program

bench_one() {
	local p=$1 d=$BENCH_WORK/build/$1 res=$BENCH_WORK/results/pgo-$1.tsv
	"${p}_setup"
	say "== $p: ${#SRCS[@]} source files"
	build "$p" base
	[ "$p" = bzip2 ] && bzip2_setup
	build "$p" empty "-fauto-profile=$EMPTY_AFDO"
	rm -f "$d"/pgo/*.gcda
	build "$p" pgo -fprofile-generate
	"${p}_train" "$d/pgo/prog" >/dev/null || die "$p: training run of the instrumented build failed"
	build "$p" pgo -fprofile-use -Wmissing-profile
	local variants="base pgo empty"
	record "$p" "$d/base/prog" "$d/train.data"
	say "   recorded with $HOW"
	if pgo_works convert; then
		/usr/bin/time -f '%e s, %M KB' -o "$d/convert.time" \
			"$PGO" convert --to autofdo -i "$d/train.data" -b "$d/base/prog" -o "$d/train.afdo" ||
			die "$p: pgo convert --to autofdo failed"
		say "   pgo convert --to autofdo: $(cat "$d/convert.time") -> $(stat -c %s "$d/train.afdo") bytes"
		build "$p" afdo "-fauto-profile=$d/train.afdo"
		variants="$variants afdo"
	else
		say "   pgo convert not built: the afdo column is n/a"
	fi
	: >"$res"
	local r v j n cmd
	local -a vs=($variants)
	n=${#vs[@]}
	for r in $(seq 1 "$ROUNDS"); do
		# Rotate the order each round so that no build always runs first (caches, CPU frequency).
		for j in $(seq 0 $((n - 1))); do
			v=${vs[$(( (r + j) % n ))]}
			cmd=$("${p}_eval" "$d/$v/prog")
			eval "\"\$CPUTIME\" -o \"\$d/t\" $cmd" || die "$p/$v: evaluation run failed"
			echo "$r $v $(cat "$d/t")" >>"$res"
		done
	done
	report "$p" "$res" "$variants"
}

# report P FILE VARIANTS: median paired ratios base/v (CPU and wall), and the fraction of PGO's gain.
report() {
	local p=$1 res=$2 v line="" base pgo_cpu
	base=$(awk '$2 == "base" { print $3 }' "$res" | median)
	printf '%-8s base %.3fs CPU' "$p" "$base"
	for v in $3; do
		[ "$v" = base ] && continue
		local s w
		s=$(awk -v v="$v" '{ c[$1, $2] = $3 } $2 == v { r[$1] = 1 } END { for (k in r) print c[k, "base"] / c[k, v] }' "$res" | median)
		w=$(awk -v v="$v" '{ c[$1, $2] = $4 } $2 == v { r[$1] = 1 } END { for (k in r) print c[k, "base"] / c[k, v] }' "$res" | median)
		printf '  %s %.3f (wall %.3f)' "$v" "$s" "$w"
		eval "S_$v=$s"
	done
	if [ -n "${S_afdo:-}" ]; then
		printf '  afdo/pgo gain %.0f%%' "$(awk -v a="$S_afdo" -v g="$S_pgo" 'BEGIN { print (g > 1 ? 100 * (a - 1) / (g - 1) : 0) }')"
	fi
	printf '\n'
	unset S_afdo S_pgo S_empty
}

echo "PGO speedups, median of $ROUNDS paired ratios base/build (CPU time; >1 = faster than -O2 -g)"
for p in $PROGRAMS; do
	declare -F "${p}_setup" >/dev/null || die "unknown program '$p' (have: recsort lua5.4 mujs bzip2)"
	bench_one "$p" | tee -a "$BENCH_WORK/results/pgo-summary.txt"
done
