#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# PGO benchmark driver: how much of instrumented PGO's speedup do builds from pgo's sampled
# profiles reach? One recipe per program (bench/pgo/recipes/NAME.sh: source, build, train,
# evaluate, check); the method is in docs/performance.md.
#
#   bench/pgo/run.sh [-r ROUNDS] [-k LINKS] [-n RUNS] [-F HZ] [-s SEED] [PROGRAM...]   (default: every recipe)
#   make bench B=pgo [BENCH_ARGS="OPTIONS PROGRAM..."]
#
# Per program the sources are compiled once per variant:
#   base   -O2 -g
#   pgo    -fprofile-generate, training run, -fprofile-use (the reference)
#   empty  -fauto-profile=<a valid AutoFDO profile with no functions> (control)
#   afdo   -fauto-profile=<pgo collect of base on the training input, pgo convert --to autofdo>
#   gcov   -fprofile-use with the .gcda of pgo convert --to gcov of the same recording, on the
#          notes of a -ftest-coverage -fno-partial-inlining compile (when the pgo under test has
#          --to gcov; skipped with a note otherwise)
# and every variant's objects are linked LINKS times (default 4), each link with its objects in a
# shuffled order after a padding object of random size (code placement). "aa" is base's objects
# linked LINKS more times: the A/A control. A round (default 21) runs every variant once (-n:
# RUNS times, interleaved), in a shuffled order, each from a fresh copy of one of its links;
# ratios base/variant are paired within a round. Results: bench/pgo/results/NAME.tsv (runs) and
# NAME.links.tsv (placements and checks); bench/pgo/table.py makes the table.
#   -r ROUNDS  rounds (default 21)       -k LINKS  links per variant (default 4)
#   -n RUNS    runs of each variant per round, interleaved (default 1); the table takes each
#              round's fastest: interference from other jobs only ever adds CPU time
#   -F HZ      sampling rate of the training recording (default 4999)
#   -s SEED    seed of the placements and run orders (default 1)
#   environment: PGO_BUILD (build dir with bin/pgo), PGO (the pgo binary under test),
#   BENCH_WORK (sources, builds, inputs; default bench/work), PGO_RESULTS (default bench/pgo/results),
#   REUSE=1 (keep the compiled objects and the training recording of an earlier run; relink, measure;
#   a gcov variant the earlier run lacks is built from its recording), REBUILD_GCOV=1 (remake it)
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib.sh"

ROUNDS=21 LINKS=4 RUNS=1 FREQ=4999 SEED=1
while [ $# -gt 0 ]; do
	case "$1" in
	-r) ROUNDS=$2; shift 2 ;;
	-k) LINKS=$2; shift 2 ;;
	-n) RUNS=$2; shift 2 ;;
	-F) FREQ=$2; shift 2 ;;
	-s) SEED=$2; shift 2 ;;
	-h|--help) sed -n '2,32p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) die "unknown option $1" ;;
	*) break ;;
	esac
done
HERE=$PGO_ROOT/bench/pgo
PROGRAMS=${*:-$(cd "$HERE/recipes" && ls *.sh | sed 's/\.sh$//')}
RESULTS=${PGO_RESULTS:-$HERE/results}
BUILD_DIR=$BENCH_WORK/pgo-build
mkdir -p "$RESULTS" "$BUILD_DIR"
need_pkgs gcc make linux-perf binutils
for p in $PROGRAMS; do
	[ -f "$HERE/recipes/$p.sh" ] ||
		die "no recipe bench/pgo/recipes/$p.sh (have: $(cd "$HERE/recipes" && ls *.sh | sed 's/\.sh$//' | tr '\n' ' '))"
done

EMPTY_AFDO=$BENCH_WORK/empty.afdo
# A valid AutoFDO file for gcc 12 with no strings and no functions (autofdo-gcc12-format.md §2).
printf 'adcg\002\0\0\0\0\0\0\0\0\0\0\252\0\0\0\0\0\0\0\0\0\0\0\254\0\0\0\0\0\0\0\0\0\0\0\256\0\0\0\0\0\0\0\0' \
	>"$EMPTY_AFDO"

# ---- build: compile once per variant, link LINKS times with randomised placement

# compile VARIANT FLAGS...: (re)compile VARIANT's objects; keeps profile files (.gcda) there.
compile() {
	local v=$1 o=$D/$1/obj; shift
	mkdir -p "$o"
	rm -f "$o"/*.o
	printf '%s\n' "$*" >"$D/$v/flags"
	build "$o" "$@" || die "$P/$v: compile failed"
}

# link_one VARIANT OUT SEED [LDFLAGS...]: link VARIANT's objects to OUT in an order shuffled by SEED
# after a padding object of SEED-random size: 16-byte steps up to 4 KiB of .text.unlikely (GNU ld
# puts .text.unlikely input sections first in .text, in link order, so everything after it moves,
# hot and cold code alike), and as much .data. Prints the pad size.
link_one() {
	local v=$1 out=$2 seed=$3 pad; shift 3
	local o=$D/$v/obj t=$D/$v/pad-$seed
	pad=$(( (seed * 7919 + 13) % 256 * 16 ))
	mkdir -p "$(dirname "$out")"
	printf '\t.section .text.unlikely,"ax",@progbits\n\t.globl pgo_bench_pad\npgo_bench_pad:\n\t.fill %d,1,0xcc\n\t.data\n\t.fill %d,1,0\n\t.section .note.GNU-stack,"",@progbits\n' \
		"$pad" "$pad" >"$t.s"
	gcc -c "$t.s" -o "$t.o" || die "$P/$v: cannot assemble the padding object"
	mapfile -t objs < <(ls "$o"/*.o | shuf --random-source=<(yes "$seed"))
	gcc -O2 -g "$@" -o "$out" "$t.o" "${objs[@]}" $LDLIBS_P || die "$P/$v: link failed"
	rm -f "$t.s" "$t.o"
	echo "$pad"
}

# link_variant VARIANT [SEED0]: LINKS placements of VARIANT's objects, links/VARIANT-K/prog; one
# line each in the placement table: variant, link, pad, order seed, address of main, .text size.
link_variant() {
	local v=$1 s0=${2:-0} k pad out
	for k in $(seq 1 "$LINKS"); do
		out=$D/links/$v-$k/prog
		pad=$(link_one "$(echo "$v" | sed 's/^aa$/base/')" "$out" $((SEED * 1000 + s0 + k)))
		printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$v" "$k" "$pad" $((SEED * 1000 + s0 + k)) \
			"$(nm "$out" | awk '$3 == "main" { print $1 }')" \
			"$(size -A "$out" | awk '$1 == ".text" { print $2 }')" >>"$D/links.tsv"
	done
}

# ---- profiles

# record BIN OUT: the training run of BIN under pgo collect; sets HOW.
record() {
	local bin=$1 out=$2
	"$PGO" collect -z -F "$FREQ" ${STACK:+--call-graph dwarf,$STACK} -q -o "$out" -- \
		bash -c "$(declare -f); train '$bin'" >/dev/null || die "$P: pgo collect failed"
	HOW="pgo collect -z -F $FREQ${STACK:+ --call-graph dwarf,$STACK}"
}

# gcov_works: the pgo under test converts to gcc's own profile format.
gcov_works() { "$PGO" convert --help 2>&1 | grep -q 'gcov'; }

# The gcov route's flags in one place (docs/gcov.md). The recording is the base build's, as for
# AutoFDO: -O2 -g is what a user deploys and profiles. The notes (the CFG -fprofile-use expects)
# come from a compile of the same sources with -ftest-coverage -fno-partial-inlining into the
# gcov variant's object directory: gcc splits functions early (foo.part.0) without a profile and
# not with one, and pgo refuses the notes of an early-split function. pgo convert maps the base
# binary's sampled lines onto those notes and writes each unit's .gcda beside its .gcno; the
# same compile command with -fprofile-use instead of the notes flags, in the same directory,
# reads it there. No -fprofile-correction: the counts conserve flow at every block.
GCOV_NOTES_FLAGS="-ftest-coverage -fno-partial-inlining"
GCOV_USE_FLAGS="-fprofile-use -Wmissing-profile"
gcov_convert() {	# gcov_convert RECORDING BINARY NOTESDIR
	"$PGO" convert --to gcov -i "$1" -b "$2" --gcno-dir "$3"
}

# build_gcov: the gcov variant from the base recording; false (with a note) when it cannot be made.
# Its -fprofile-use compile keeps gcc's warnings (BUILD_W=''); those about the profile
# (coverage mismatch, missing or corrupted profile, missing counts) are listed, all of them are
# in gcov/diag.
build_gcov() {
	local o=$D/gcov/obj
	compile gcov $GCOV_NOTES_FLAGS
	rm -f "$o"/*.gcda
	gcov_convert "$D/train.data" "$D/base/prog" "$o" 2>"$D/gcov/convert.log" ||
		{ say "   pgo convert --to gcov failed: no gcov variant"; sed 's/^/     /' "$D/gcov/convert.log" >&2; return 1; }
	[ -s "$D/gcov/convert.log" ] && sed 's/^/   convert: /' "$D/gcov/convert.log" | head -20 >&2
	say "   gcov: $(ls "$o"/*.gcda 2>/dev/null | wc -l) .gcda for $(ls "$o"/*.gcno | wc -l) .gcno"
	rm -f "$o"/*.o
	printf '%s\n' "$GCOV_USE_FLAGS" >"$D/gcov/flags"
	BUILD_W='' build "$o" $GCOV_USE_FLAGS 2>"$D/gcov/diag" ||
		{ say "   the gcov variant's -fprofile-use compile failed:"; tail -20 "$D/gcov/diag" >&2; return 1; }
	grep -iE 'profile|coverage|gcda|counts|corrupt|internal compiler error' "$D/gcov/diag" >"$D/gcov/diag-profile"
	if [ -s "$D/gcov/diag-profile" ]; then
		say "   gcc -fprofile-use on the gcov route's profile ($(wc -l <"$D/gcov/diag-profile") lines, gcov/diag-profile):"
		sed 's/^[^ ]*: //' "$D/gcov/diag-profile" | sort | uniq -c | sort -rn | head -8 >&2
	else
		say "   gcc -fprofile-use on the gcov route's profile: no diagnostic"
	fi
}

# ---- one program

bench_one() {
	P=$1 D=$BUILD_DIR/$1
	local res=$RESULTS/$P.tsv v k
	STACK="" CPPFLAGS_P="" LDLIBS_P="" SRCS=()
	unset -f setup train evaluate check build_hook 2>/dev/null
	# shellcheck source=/dev/null
	. "$HERE/recipes/$P.sh"
	setup
	declare -F check >/dev/null || check() { eval "$(evaluate "$1")"; }
	say "== $P: ${#SRCS[@]} source files"
	VARIANTS="base aa pgo empty"
	mkdir -p "$D"
	if [ "${REUSE:-}" = 1 ] && [ -s "$D/train.data" ] && [ -s "$D/variants" ]; then
		VARIANTS=$(cat "$D/variants")
		say "   REUSE=1: the objects and recording of an earlier run"
	else
		rm -rf "$D/links" "$D"/*/obj
		compile base
		link_one base "$D/base/prog" 0 >/dev/null
		compile empty "-fauto-profile=$EMPTY_AFDO"
		compile pgo -fprofile-generate
		rm -f "$D"/pgo/obj/*.gcda
		link_one pgo "$D/pgo/prog-gen" 0 -fprofile-generate >/dev/null
		train "$D/pgo/prog-gen" >/dev/null || die "$P: training run of the instrumented build failed"
		compile pgo -fprofile-use -Wmissing-profile
		record "$D/base/prog" "$D/train.data"
		say "   recorded with $HOW: $(du -h "$D/train.data" | cut -f1)"
		if pgo_works convert; then
			"$PGO" convert --to autofdo -i "$D/train.data" -b "$D/base/prog" -o "$D/train.afdo" ||
				die "$P: pgo convert --to autofdo failed"
			compile afdo "-fauto-profile=$D/train.afdo"
			VARIANTS="$VARIANTS afdo"
		else
			say "   pgo convert not built: no afdo variant"
		fi
		echo "$VARIANTS" >"$D/variants"
	fi
	# The gcov variant, also under REUSE=1 when the earlier run had none (REBUILD_GCOV=1: remake it).
	[ "${REBUILD_GCOV:-}" = 1 ] && VARIANTS=$(echo "$VARIANTS" | sed 's/ gcov//')
	case " $VARIANTS " in
	*" gcov "*) ;;
	*)	if ! gcov_works; then
			say "   $PGO has no convert --to gcov: the gcov variant is skipped"
		elif build_gcov; then
			VARIANTS="$VARIANTS gcov"
		fi
		echo "$VARIANTS" >"$D/variants" ;;
	esac
	# Placements: LINKS links per variant; aa's seeds differ from base's.
	rm -rf "$D/links"
	printf 'variant\tlink\tpad\tseed\tmain\ttext\n' >"$D/links.tsv"
	for v in $VARIANTS; do
		case $v in aa) link_variant aa 500 ;; *) link_variant "$v" ;; esac
	done
	local nmain
	nmain=$(awk -F'\t' 'NR > 1 && $1 == "base" { print $5 }' "$D/links.tsv" | sort -u | wc -l)
	say "   $LINKS links per variant; base's main at $nmain different addresses"
	# Check: every link's evaluation output equals base's first link's.
	local ref=$D/check-ref.out out=$D/check.out ok
	check "$D/links/base-1/prog" >"$ref" 2>/dev/null || die "$P: evaluation of base failed"
	[ -s "$ref" ] || say "   note: the evaluation prints nothing; check compares empty outputs"
	awk -F'\t' 'NR == 1 { print $0 "\tcheck"; next }' "$D/links.tsv" >"$RESULTS/$P.links.tsv"
	while IFS=$'\t' read -r v k rest; do
		check "$D/links/$v-$k/prog" >"$out" 2>/dev/null && cmp -s "$ref" "$out" && ok=ok || ok=DIFFERS
		[ "$ok" = ok ] || say "   $v link $k: evaluation output differs from base's"
		printf '%s\t%s\t%s\t%s\n' "$v" "$k" "$rest" "$ok" >>"$RESULTS/$P.links.tsv"
	done < <(tail -n +2 "$D/links.tsv")
	# Rounds: every variant once per round, in a shuffled order, each from a fresh copy of one of
	# its links (link k = round + offset, so each link runs equally often).
	local -a vs=($VARIANTS)
	local r i j n=${#vs[@]} cmd copy load t
	printf 'program\tround\tvariant\tlink\tcpu\twall\tload1\trun\n' >"$res.tmp"
	for r in $(seq 1 "$ROUNDS"); do
		rm -rf "$D/run"
		for i in $(seq 0 $((n - 1))); do
			v=${vs[$i]}
			k=$(( (r + i) % LINKS + 1 ))
			copy=$D/run/r$r-$v/prog
			mkdir -p "$(dirname "$copy")" && cp "$D/links/$v-$k/prog" "$copy"
			echo "$v $k $copy"
		done >"$D/copies"
		for j in $(seq 1 "$RUNS"); do
			shuf --random-source=<(yes "$SEED.$r.$j") "$D/copies" | sed "s/\$/ $j/"
		done >"$D/order"
		while read -r v k copy j; do
			cmd=$(evaluate "$copy")
			load=$(cut -d' ' -f1 /proc/loadavg)
			eval "\"\$CPUTIME\" -o \"\$D/t\" $cmd" || die "$P/$v: evaluation run failed"
			read -r t <"$D/t"
			printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$P" "$r" "$v" "$k" "$(echo $t | tr ' ' '\t')" "$load" "$j" >>"$res.tmp"
		done <"$D/order"
		printf '\r   round %d/%d' "$r" "$ROUNDS" >&2
	done
	printf '\n' >&2
	rm -rf "$D/run"
	mv "$res.tmp" "$res"
	python3 "$HERE/table.py" "$RESULTS" --only "$P" >&2 || true
}

for p in $PROGRAMS; do
	(bench_one "$p") || exit $?
done
python3 "$HERE/table.py" "$RESULTS"
