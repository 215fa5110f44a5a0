#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make demo: profile a program, turn the samples into a gcc AutoFDO profile, rebuild with it and
# show what it bought, next to what instrumented PGO gets on the same program.
#   1. build examples/recsort with -O2 -g (what you would ship)
#   2. pgo collect: sample it on a training input
#   3. pgo convert --to autofdo, then gcc -O2 -fauto-profile=recsort.afdo
#   4. references: instrumented PGO (-fprofile-generate, train, -fprofile-use) and the control,
#      -fauto-profile with an empty profile (the flag alone changes many optimisations)
#   5. time all builds on a DIFFERENT input, alternating, CPU time, median of paired ratios
#   6. pgo convert --to svg: a flamegraph of the training run
. "$(dirname "$0")/../bench/lib.sh"
OUT=$PGO_ROOT/examples/out
SRC=$PGO_ROOT/examples/recsort/recsort.c
ROUNDS=${ROUNDS:-5}
TRAIN=(train 1000000 1)
EVAL=(eval 300000 2)
mkdir -p "$OUT" && cd "$OUT" || exit 2
[ -x "$PGO" ] || die "no $PGO: run make first"
step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
run() { printf '$ %s\n' "$*"; "$@"; }

step "1. build with -O2 -g"
run gcc -O2 -g -o recsort "$SRC" || exit 2

step "2. collect samples on the training input"
if pgo_works collect; then
	# Three runs at 4999 Hz: ~40000 samples in recsort; sparser profiles leave warm code cold (docs/decisions-convert.md).
	# The default --call-graph auto: DWARF unwinding for this -O2 binary (no frame pointers).
	run "$PGO" collect -F 4999 -r 3 -o train.data -- ./recsort "${TRAIN[@]}" || die "pgo collect failed"
else
	echo "(pgo collect is not built yet: recording with perf record instead)"
	run perf record -q -e task-clock -F 4999 --call-graph dwarf -o train.data -- ./recsort "${TRAIN[@]}" || die "perf record failed"
fi

step "3. convert to an AutoFDO profile and rebuild"
variants="base pgo empty"
cp recsort recsort.base
if pgo_works convert; then
	run "$PGO" convert --to autofdo -i train.data -b recsort -o recsort.afdo || die "pgo convert failed"
	run gcc -O2 -g -fauto-profile=recsort.afdo -o recsort.afdo.bin "$SRC" || exit 2
	variants="base pgo empty afdo"
else
	echo "(pgo convert is not built yet: no AutoFDO build; showing the references only)"
fi

step "4. references: instrumented PGO and the empty-profile control"
rm -rf pgo && mkdir -p pgo
# Same object path for both compiles: the .gcda is found next to pgo/recsort.o.
run gcc -O2 -g -fprofile-generate -c -o pgo/recsort.o "$SRC" && run gcc -fprofile-generate -o recsort.gen pgo/recsort.o || exit 2
run ./recsort.gen "${TRAIN[@]}" >/dev/null || exit 2
run gcc -O2 -g -fprofile-use -Wmissing-profile -c -o pgo/recsort.o "$SRC" && run gcc -o recsort.pgo pgo/recsort.o || exit 2
printf 'adcg\002\0\0\0\0\0\0\0\0\0\0\252\0\0\0\0\0\0\0\0\0\0\0\254\0\0\0\0\0\0\0\0\0\0\0\256\0\0\0\0\0\0\0\0' >empty.afdo
run gcc -O2 -g -fauto-profile=empty.afdo -o recsort.empty "$SRC" || exit 2

step "5. time the builds on a different input (${EVAL[*]}), $ROUNDS alternating rounds, CPU time"
bin() { case $1 in base) echo ./recsort.base ;; pgo) echo ./recsort.pgo ;; empty) echo ./recsort.empty ;; afdo) echo ./recsort.afdo.bin ;; esac; }
: >times.tsv
vs=($variants)
for r in $(seq 1 "$ROUNDS"); do
	for j in $(seq 0 $((${#vs[@]} - 1))); do
		v=${vs[$(( (r + j) % ${#vs[@]} ))]}
		"$CPUTIME" -o t.out "$(bin "$v")" "${EVAL[@]}" || die "$v: run failed"
		echo "$r $v $(cat t.out)" >>times.tsv
	done
	printf '.'
done
echo
printf '%-34s %9s %9s\n' build "CPU s" speedup
for v in $variants; do
	t=$(awk -v v="$v" '$2 == v { print $3 }' times.tsv | median)
	s=$(awk -v v="$v" '{ c[$1, $2] = $3 } $2 == v { r[$1] = 1 } END { for (k in r) print c[k, "base"] / c[k, v] }' times.tsv | median)
	case $v in
	base) label="-O2 -g" ;;
	pgo) label="instrumented PGO" ;;
	empty) label="-fauto-profile, empty (control)" ;;
	afdo) label="-fauto-profile, pgo profile" ;;
	esac
	printf '%-34s %9.3f %8.3fx\n' "$label" "$t" "$s"
	eval "S_$v=$s"
done
if [ -n "${S_afdo:-}" ]; then
	awk -v a="$S_afdo" -v g="$S_pgo" -v e="$S_empty" 'BEGIN {
		if (g > 1) printf "AutoFDO reaches %.0f%% of the instrumented-PGO speedup, with no instrumented build;\n", 100 * (a - 1) / (g - 1)
		printf "against the empty-profile control (same flags, no data) the profile is worth %.3fx.\n", a / e
		if (g > 1 && a < g) print "(where AutoFDO falls short of instrumented PGO on gcc 12, and why: docs/decisions-convert.md)" }'
fi

step "6. flamegraph of the training run"
if "$PGO" convert --to svg -i train.data -b recsort -o recsort.svg 2>svg.err; then
	echo "flamegraph: $OUT/recsort.svg"
else
	echo "(no flamegraph: pgo convert --to svg is not available yet: $(head -1 svg.err))"
fi
