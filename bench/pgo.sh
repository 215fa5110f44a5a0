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
#   bench/pgo.sh [-r ROUNDS] [-F HZ] [PROGRAM...]
#   programs where instrumented PGO gains >= 10% (the default): recsort mujs graphviz sigscheme gawk jq jimtcl;
#   by name (PGO < 10% here, borderline, or slower; docs/decisions-bench.md): lua5.4 bzip2 sqlite3
#   expat tcc duktape mawk original-awk bc cmark lz4 zstd xz lua5.3 lua5.2 pcre2 nasm libxml2 m4
#   flex dash zlib cjson phalanx gnugo fairymax indent tinyscheme hugs98 elk clips mksh pforth
#   python3.11 picosat tidy-html5 glpk perl zopfli gifsicle cscope bison;
#   by name, PGO >= 10% but not in the default set: lua5.1 (borderline), libyaml, bash and tcl8.6
#   (most or all of PGO's gain is hot/cold splitting), tre (half of it), yajl (memcpy from a value
#   profile), calc newlisp (AutoFDO well below PGO), algol68g (the empty control gains as much)
#   -F: sampling rate of the training recording (default 4999)
#   COMPILER=clang: the same four builds with clang 14 (builds in BENCH_WORK/build-clang): pgo is
#   -fprofile-instr-generate / llvm-profdata / -fprofile-instr-use, afdo is -fprofile-sample-use of
#   `pgo convert --to llvm` (the same recording method), empty a sample profile of one absent function
#   environment: PGO_BUILD (build dir with bin/pgo), BENCH_WORK (cache, default bench/work),
#   PGO_ALT (another pgo binary: its conversion of the same recording is built and measured
#   as the extra variant "alt", for A/B comparisons of converter changes),
#   GAWK_REPS=N (gawk's training repetitions, default 3),
#   TRAIN_RUNS=N (pgo collect -r N: the AutoFDO training recording holds N runs of the training
#   input; instrumented PGO's counts from N identical runs would only scale),
#   NOSPLIT=1 (also measure "pgons": the PGO build with -fno-reorder-blocks-and-partition),
#   LTO=1 (gcc: all builds with -flto; builds in BENCH_WORK/build-lto),
#   REUSE=1 (keep the base, pgo and empty builds and the training recording of an earlier run:
#   re-converts, rebuilds afdo/alt and measures again),
#   COLLECT_Z= (empty: record uncompressed; default 1, pgo collect -z)
. "$(dirname "$0")/lib.sh"

ROUNDS=9 FREQ=4999
COLLECT_Z=${COLLECT_Z-1}
while [ $# -gt 0 ]; do
	case "$1" in
	-r) ROUNDS=$2; shift 2 ;;
	-F) FREQ=$2; shift 2 ;;
	-h|--help) sed -n '2,39p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) die "unknown option $1" ;;
	*) break ;;
	esac
done
PROGRAMS=${*:-recsort mujs graphviz sigscheme gawk jq jimtcl}
COMPILER=${COMPILER:-gcc}
case $COMPILER in
gcc) BUILD_DIR=$BENCH_WORK/build TAG="" CC_FLAGS=""
	# LTO=1: every build (base, pgo, empty, afdo) compiled and linked with -flto
	[ "${LTO:-}" = 1 ] && BUILD_DIR=$BENCH_WORK/build-lto TAG=-lto CC_FLAGS=-flto=2 ;;
# clang: every build with -fdebug-info-for-profiling, as clang's manual advises for sample profiles:
# the profiled binary then carries the discriminators that -fprofile-sample-use looks lines up by.
clang) BUILD_DIR=$BENCH_WORK/build-clang TAG=-clang CC_FLAGS=${CLANG_FLAGS--fdebug-info-for-profiling}
	need_pkgs clang llvm ;;
*) die "COMPILER must be gcc or clang, not '$COMPILER'" ;;
esac
export INPUTS=$PGO_ROOT/bench/inputs BENCH_WORK
need_pkgs gcc make linux-perf time

# gen_input FILE GENERATOR VAR=VALUE...: FILE from bench/inputs/GENERATOR (awk -v VAR=VALUE ...),
# once: kept across runs, written whole or not at all.
gen_input() {
	local f=$1 g=$2 a=() v
	shift 2
	[ -s "$f" ] && return 0
	for v in "$@"; do a+=(-v "$v"); done
	awk "${a[@]}" -f "$INPUTS/$g" >"$f.tmp" && mv "$f.tmp" "$f" || { rm -f "$f.tmp"; die "$g failed (for $f)"; }
}

# ---- programs: <p>_setup sets SRCS (array of .c), CPPFLAGS_P, LDLIBS_P, and STACK_P (bytes of user
# stack per sample, when the default 8 KB copy truncates its stacks); <p>_train/<p>_eval BIN run it;
# an optional <p>_data runs after the base build (inputs made by the program itself).

recsort_setup() {
	SRCS=("$PGO_ROOT/examples/recsort/recsort.c") CPPFLAGS_P="" LDLIBS_P=""
}
# Training runs are long enough for ~5000 samples at 999 Hz: a sparse profile leaves warm code
# with zero counts, which gcc then optimises for size (docs/decisions-convert.md).
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

# lua5.3, lua5.2 and lua5.1: the interpreter (lua.c, no readline) and its library, the same two scripts as
# lua5.4 (train.lua vs eval.lua: different programs, both plain Lua 5.1).
# lua_old_setup VERSION: Debian's luaconf.h includes a header its packaging generates.
lua_old_setup() {
	local d
	d=$(deb_source "lua$1") || exit 2
	mapfile -t SRCS < <(ls "$d"/src/*.c | grep -v '/luac\.c$' | grep -v '/print\.c$')
	mkdir -p "$BENCH_WORK/include"
	echo '#define DEB_HOST_MULTIARCH "x86_64-linux-gnu"' >"$BENCH_WORK/include/lua$1-deb-multiarch.h"
	CPPFLAGS_P="-I$BENCH_WORK/include -DLUA_USE_POSIX -DLUA_USE_DLOPEN" LDLIBS_P="-lm -ldl"
}
lua5.3_setup() { lua_old_setup 5.3; CPPFLAGS_P="$CPPFLAGS_P -DLUA_COMPAT_5_2"; }
lua5.3_train() { "$1" "$INPUTS/train.lua" 24; }
lua5.3_eval() { echo "$1" "$INPUTS/eval.lua" 5; }
lua5.2_setup() { lua_old_setup 5.2; CPPFLAGS_P="$CPPFLAGS_P -DLUA_COMPAT_ALL"; }
lua5.2_train() { "$1" "$INPUTS/train.lua" 12; }
lua5.2_eval() { echo "$1" "$INPUTS/eval.lua" 4; }
lua5.1_setup() { lua_old_setup 5.1; }
lua5.1_train() { "$1" "$INPUTS/train.lua" 16; }
lua5.1_eval() { echo "$1" "$INPUTS/eval.lua" 4; }

mujs_setup() {
	local d
	d=$(deb_source mujs) || exit 2
	SRCS=("$d/one.c" "$d/main.c") CPPFLAGS_P="-I$d" LDLIBS_P="-lm"
}
mujs_train() { local i; for i in 1 2 3 4; do "$1" "$INPUTS/train.js" || return 1; done; }
mujs_eval() { echo "$1" "$INPUTS/eval.js"; }

duktape_setup() {
	local d
	d=$(deb_source duktape) || exit 2
	# The distributed single-file engine and its example command line (Makefile.cmdline) with print().
	SRCS=("$d/src/duktape.c" "$d/examples/cmdline/duk_cmdline.c" "$d/extras/print-alert/duk_print_alert.c")
	CPPFLAGS_P="-I$d/src -I$d/examples/cmdline -I$d/extras/print-alert -DDUK_CMDLINE_PRINTALERT_SUPPORT"
	LDLIBS_P="-lm"
}
# The same two JavaScript programs as mujs (train.js once: ~4 s CPU, duktape is slower than mujs).
duktape_train() { "$1" "$INPUTS/train.js"; }
duktape_eval() { echo "$1" "$INPUTS/eval.js"; }

sqlite3_setup() {
	local d a=$BENCH_WORK/sqlite3-amalg
	d=$(deb_source sqlite3) || exit 2
	# The amalgamation (one sqlite3.c) is generated by the upstream build (needs tclsh).
	if [ ! -s "$a/sqlite3.c" ]; then
		need_pkgs tcl
		mkdir -p "$a"
		(cd "$a" && "$d/configure" --disable-tcl >configure.log 2>&1 && make sqlite3.c >make.log 2>&1) ||
			die "sqlite3: cannot generate the amalgamation (see $a/*.log)"
	fi
	SRCS=("$a/sqlite3.c" "$d/test/speedtest1.c") CPPFLAGS_P="-I$a -DSQLITE_THREADSAFE=0 -DSQLITE_OMIT_LOAD_EXTENSION"
	LDLIBS_P="-lm"
}
# speedtest1 (SQLite's own benchmark program, in the source package): training on the ORM-style
# key/value test set and small runs of the main and recursive-CTE sets; evaluation on the main
# and CTE sets at other sizes (other rows, other query ranges). A training run without the CTE
# set made the instrumented build 14% slower on it (that code was optimised for size).
sqlite3_train() {
	"$1" --testset orm --memdb && "$1" --testset main --size 15 --memdb && "$1" --testset cte --size 10 --memdb
}
sqlite3_eval() {
	printf '%s\n' 'set -e; "$1" --testset main --size 35 --memdb >/dev/null; "$1" --testset cte --size 30 --memdb >/dev/null' \
		>"$BENCH_WORK/sqlite3-eval.sh"
	echo sh "$BENCH_WORK/sqlite3-eval.sh" "$1"
}

gawk_setup() {
	local d c=$BENCH_WORK/gawk-cfg f
	d=$(deb_source gawk) || exit 2
	# config.h from gawk's configure; no readline, MPFR, NLS or persistent memory.
	if [ ! -s "$c/config.h" ]; then
		mkdir -p "$c"
		(cd "$c" && "$d/configure" --disable-nls --without-readline --without-mpfr --disable-pma \
			>configure.log 2>&1) || die "gawk: configure failed (see $c/configure.log)"
	fi
	SRCS=()
	for f in array awkgram builtin cint_array command debug eval ext field floatcomp gawkapi gawkmisc \
		int_array io main mpfr msg node profile re replace str_array symbol version; do SRCS+=("$d/$f.c"); done
	for f in dfa getopt getopt1 localeinfo random regex; do SRCS+=("$d/support/$f.c"); done
	CPPFLAGS_P="-DHAVE_CONFIG_H -DGAWK -DNDEBUG -I$c -I$d -I$d/support -DDEFPATH=\".\" -DDEFLIBPATH=\".\" -DSHLIBEXT=\"so\""
	LDLIBS_P="-lm -ldl"
}
# train.awk splits sprintf-built records into fields, counts keys, regex filters and gsub;
# eval.awk builds sentences, match/sub/toupper, a user function, asorti. The training also runs
# eval.awk on another word list: a training run without it made the instrumented build 15%
# slower on eval.awk (the builtins it did not reach were optimised for size).
gawk_train() {
	local i
	# about 15000 samples in gawk at 4999 Hz (4600 with a third of this gave afdo 3% of PGO)
	for i in $(seq 1 "${GAWK_REPS:-3}"); do
		"$1" -v N=200000 -f "$INPUTS/train.awk" >/dev/null &&
			"$1" -v N=60000 -v W="pack my box with five dozen liquor jugs when zebras quietly wander" \
				-f "$INPUTS/eval.awk" >/dev/null || return 1
	done
}
gawk_eval() { echo "$1" -v N=150000 -f "$INPUTS/eval.awk"; }

# Access logs for the POSIX awks (mawk, original-awk), generated once by the system's awk with a
# deterministic generator: the training log and the evaluation log differ in seed and size.
# awklog_data P NTRAIN NEVAL: sets AWKLOG_TRAIN and AWKLOG_EVAL (line counts per program: the
# one-true-awk is ~2.5x slower than mawk).
awklog_data() {
	AWKLOG_TRAIN=$BENCH_WORK/awklog-train-$2.log AWKLOG_EVAL=$BENCH_WORK/awklog-eval-$3.log
	gen_input "$AWKLOG_TRAIN" awklog-gen.awk N="$2" S=1
	gen_input "$AWKLOG_EVAL" awklog-gen.awk N="$3" S=2
	export AWKLOG_TRAIN AWKLOG_EVAL
}
# Training: the traffic report (awklog-train.awk) and, as for gawk, the evaluation's script on the
# training log (other data); evaluation: awklog-eval.awk on the evaluation log.
awklog_train() {
	"$1" -f "$INPUTS/awklog-train.awk" "$AWKLOG_TRAIN" >/dev/null &&
		"$1" -f "$INPUTS/awklog-eval.awk" "$AWKLOG_TRAIN" >/dev/null
}
awklog_eval() { echo "$1" -f "$INPUTS/awklog-eval.awk" "$AWKLOG_EVAL"; }

mawk_setup() {
	local d c=$BENCH_WORK/mawk-cfg f
	d=$(deb_source mawk) || exit 2
	# config.h from mawk's configure, scancode.c from its generator (makescan.c).
	if [ ! -s "$c/scancode.c" ]; then
		mkdir -p "$c"
		(cd "$c" && "$d/configure" >configure.log 2>&1 && make scancode.c >make.log 2>&1) ||
			die "mawk: configure failed (see $c/*.log)"
	fi
	SRCS=("$c/scancode.c")
	for f in parse scan memory main hash execute code da error init bi_vars cast print bi_funct kw jmp array \
		field split re_cmpl regexp zmalloc fin files matherr fcall version; do SRCS+=("$d/$f.c"); done
	CPPFLAGS_P="-I$c -I$d -DHAVE_CONFIG_H -DLOCAL_REGEXP -D_DEFAULT_SOURCE -D_XOPEN_SOURCE=500" LDLIBS_P="-lm"
	awklog_data mawk 400000 160000
}
mawk_train() { awklog_train "$1"; }
mawk_eval() { awklog_eval "$1"; }

original-awk_setup() {
	local d g=$BENCH_WORK/original-awk-gen f
	d=$(deb_source original-awk) || exit 2
	# The grammar (bison) and the table of operators generated from it (maketab.c), as its makefile does.
	if [ ! -s "$g/proctab.c" ]; then
		need_pkgs bison
		mkdir -p "$g"
		(cd "$g" && bison -d -o awkgram.tab.c "$d/awkgram.y" >bison.log 2>&1 &&
			gcc -I"$d" -I. -o maketab "$d/maketab.c" && ./maketab awkgram.tab.h >proctab.c) ||
			die "original-awk: cannot generate the parser (see $g)"
	fi
	SRCS=("$g/awkgram.tab.c" "$g/proctab.c")
	for f in b main parse tran lib run lex; do SRCS+=("$d/$f.c"); done
	CPPFLAGS_P="-I$d -I$g" LDLIBS_P="-lm"
	awklog_data original-awk 150000 60000
}
original-awk_train() { awklog_train "$1"; }
original-awk_eval() { awklog_eval "$1"; }

jimtcl_setup() {
	local d c=$BENCH_WORK/jimtcl-cfg f
	d=$(deb_source jimtcl) || exit 2
	# jim-config.h and the extensions written in Tcl (_*.c) from its configure and make; the
	# default static extensions minus the ones that need other libraries.
	if [ ! -s "$c/_initjimsh.c" ]; then
		mkdir -p "$c"
		(cd "$c" && "$d/configure" --disable-docs --without-ext=ssl,zlib,sqlite3,redis,readline >configure.log 2>&1 &&
			make jimsh >make.log 2>&1) || die "jimtcl: configure failed (see $c/*.log)"
	fi
	SRCS=()
	for f in jim-subcmd jim-interactive jim-format jim utf8 jimregexp jimiocompat linenoise jim-tty jim-aio \
		jim-array jim-clock jim-eventloop jim-exec jim-file jim-history jim-interp jim-load jim-namespace \
		jim-pack jim-package jim-posix jim-readdir jim-regexp jim-signal jim-syslog jimsh; do SRCS+=("$d/$f.c"); done
	for f in _load-static-exts _glob _nshelper _oo _stdlib _tclcompat _tree _initjimsh; do SRCS+=("$c/$f.c"); done
	CPPFLAGS_P="-I$c -I$d" LDLIBS_P="-lm"
}
# train.tcl, and eval.tcl with another size factor (as for gawk: the evaluation's commands must be
# reached by the training); evaluation: eval.tcl with larger sizes.
jimtcl_train() { "$1" "$INPUTS/train.tcl" 30 && "$1" "$INPUTS/eval.tcl" 30 1; }
jimtcl_eval() { echo "$1" "$INPUTS/eval.tcl" 10 4; }

tcl8.6_setup() {
	local d c=$BENCH_WORK/tcl8.6-cfg l a f
	d=$(deb_source tcl8.6) || exit 2
	# tclsh as its unix/Makefile builds it (static, no threads): configure once, then the compile
	# lines of `make -n tclsh` give the source list and the -D flags, written as a header (some
	# values have spaces and quotes); the two files with their own -D flags (install paths) get a
	# wrapper source that defines them, with the script library (init.tcl: TCL_LIBRARY, and the
	# pkgconfig scriptdir tclsh looks at first) at the source's library/.
	if [ ! -s "$c/defs.h" ]; then
		mkdir -p "$c"
		(cd "$c" && "$d/unix/configure" --disable-shared --disable-threads >configure.log 2>&1 &&
			make -n tclsh 2>/dev/null | sed -e ':a' -e '/\\$/N; s/\\\n//; ta' | grep ' -c ' >cc.txt) ||
			die "tcl8.6: configure failed (see $c/configure.log)"
		l=$(head -1 "$c/cc.txt")
		eval "set -- $l"
		for a in "$@"; do
			case "$a" in -D*=*) a=${a#-D}; echo "#define ${a%%=*} ${a#*=}" ;; -D*) echo "#define ${a#-D} 1" ;; esac
		done >"$c/defs.h.tmp"
		mkdir -p "$c/wrap"
		printf '#define TCL_LIBRARY "%s/library"\n#define TCL_PACKAGE_PATH "%s/library"\n#include "%s/unix/tclUnixInit.c"\n' \
			"$d" "$d" "$d" >"$c/wrap/tclUnixInit.c"
		{ for a in BINDIR DOCDIR INCDIR LIBDIR; do
			printf '#define CFG_INSTALL_%s "/usr/local"\n#define CFG_RUNTIME_%s "/usr/local"\n' "$a" "$a"; done
		  printf '#define CFG_INSTALL_SCRDIR "%s/library"\n#define CFG_RUNTIME_SCRDIR "%s/library"\n' "$d" "$d"
		  printf '#define CFG_RUNTIME_DLLFILE "libtcl8.6.a"\n#include "%s/generic/tclPkgConfig.c"\n' "$d"; } \
			>"$c/wrap/tclPkgConfig.c"
		mv "$c/defs.h.tmp" "$c/defs.h"
	fi
	SRCS=("$c/wrap/tclUnixInit.c" "$c/wrap/tclPkgConfig.c")
	for f in $(grep -o '[^ ]*\.c$' "$c/cc.txt"); do
		case "$f" in */tclUnixInit.c|*/tclPkgConfig.c) ;; *) SRCS+=("$f") ;; esac
	done
	CPPFLAGS_P="-include $c/defs.h -DMP_FIXED_CUTOFFS -DMP_NO_STDINT -I$c -I$d/unix -I$d/generic -I$d/libtommath"
	LDLIBS_P="-lz -lm"
}
# jimtcl's two scripts (plain Tcl, also 8.6): train.tcl, and eval.tcl with another size factor;
# evaluation: eval.tcl with larger sizes. Tcl 8.6 compiles to bytecode and is ~10x faster than
# jimtcl on them, hence the larger counts.
tcl8.6_train() { "$1" "$INPUTS/train.tcl" 100 && "$1" "$INPUTS/eval.tcl" 30 1; }
tcl8.6_eval() { echo "$1" "$INPUTS/eval.tcl" 20 4; }

phalanx_setup() {
	# phalanx's search recursion, 2.6 KB a frame: deeper than the default 8 KB copy
	STACK_P=32768
	local d
	d=$(deb_source phalanx) || exit 2
	# The sources of its makefile, with its DEFINES (Debian's) and CFLAGS' -std=gnu89 -D_GNU_SOURCE;
	# -fno-tree-loop-vectorize in all four builds: gcc 12.2's vectoriser divides by zero in
	# static.c's score_position on one of our profiles, as on flex's (docs/decisions-convert.md).
	SRCS=("$d"/{phalanx,bcreate,search,io,data,evaluate,genmoves,moving,hash,static,levels,book,killers,endgame,learn,easy}.c)
	CPPFLAGS_P="-std=gnu89 -D_GNU_SOURCE -DGNUFUN -fno-tree-loop-vectorize" LDLIBS_P=""
	# Its ASCII interface on stdin: `depth N`, then each position (FEN: pieces and side to move) is
	# searched to depth N.
	local n
	for n in 7 8 9; do
		[ -s "$BENCH_WORK/phalanx-train$n.in" ] ||
			{ echo "depth $n"; grep -v '^#' "$INPUTS/phalanx-train.epd"; echo quit; } >"$BENCH_WORK/phalanx-train$n.in"
	done
	[ -s "$BENCH_WORK/phalanx-eval.in" ] ||
		{ echo "depth 8"; grep -v '^#' "$INPUTS/phalanx-eval.epd"; echo quit; } >"$BENCH_WORK/phalanx-eval.in"
}
# Fixed-depth searches, no book, no learning, no input polling, a 16 MB hash table: training on 12
# positions of bench/inputs/phalanx-train.epd (perft test positions, openings, endgames) at depths
# 9, 8 and 7; evaluation: the 10 positions of phalanx's own `bench` at depth 8.
phalanx_train() {
	local n
	for n in 9 8 7; do
		"$1" -x- -o- -b- -l- -t 16000 <"$BENCH_WORK/phalanx-train$n.in" >/dev/null || return 1
	done
}
phalanx_eval() { echo "$1" -x- -o- -b- -l- -t 16000 "<$BENCH_WORK/phalanx-eval.in" ">/dev/null"; }

gnugo_setup() {
	# gnugo's reading recursion: deeper than the default 8 KB copy
	STACK_P=32768
	local d c=$BENCH_WORK/gnugo-cfg s=$BENCH_WORK/src f o
	# The debian.tar of gnugo 3.8-11 is not on the source mirror here (404), its orig tarball is:
	# upstream 3.8 without Debian's patches (which fix packaging and -fno-common, not the engine).
	if ! d=$(deb_source gnugo 2>/dev/null); then
		d=$s/gnugo-3.8
		if [ ! -d "$d" ]; then
			(cd "$s" && apt-get source -q --download-only gnugo >/dev/null 2>&1)
			[ -s "$s/gnugo_3.8.orig.tar.gz" ] && tar -C "$s" -xzf "$s/gnugo_3.8.orig.tar.gz" ||
				die "gnugo: cannot fetch or unpack gnugo_3.8.orig.tar.gz"
		fi
	fi
	# config.h and the pattern databases its build compiles to C (mkpat, mkeyes, joseki, mkmcpat:
	# patterns/*.c) from its configure and make, with -fcommon (3.8 predates gcc 10's -fno-common:
	# liberty.h defines variables); then the sources of the engine, patterns, sgf and utils
	# libraries and the interface, as its make links gnugo. The pattern sources go through
	# wrappers named pat_*.c, since engine/ and patterns/ both have an influence.c and endgame.c.
	if [ ! -x "$c/interface/gnugo" ]; then
		mkdir -p "$c"
		(cd "$c" && "$d/configure" --without-readline --disable-color CFLAGS="-g -O2 -fcommon" >configure.log 2>&1 &&
			make >make.log 2>&1) || die "gnugo: configure or make failed (see $c/*.log)"
	fi
	mkdir -p "$c/pat"
	SRCS=()
	for o in $(ar t "$c/engine/libengine.a"); do SRCS+=("$d/engine/${o%.o}.c"); done
	for o in $(ar t "$c/patterns/libpatterns.a"); do
		f=$d/patterns/${o%.o}.c
		[ -s "$c/patterns/${o%.o}.c" ] && f=$c/patterns/${o%.o}.c
		[ -s "$c/pat/pat_${o%.o}.c" ] || printf '#include "%s"\n' "$f" >"$c/pat/pat_${o%.o}.c"
		SRCS+=("$c/pat/pat_${o%.o}.c")
	done
	for o in $(ar t "$c/sgf/libsgf.a"); do SRCS+=("$d/sgf/${o%.o}.c"); done
	for o in $(ar t "$c/utils/libutils.a"); do SRCS+=("$d/utils/${o%.o}.c"); done
	for f in main play_ascii play_gmp play_gtp play_solo play_test gmp gtp; do SRCS+=("$d/interface/$f.c"); done
	CPPFLAGS_P="-DHAVE_CONFIG_H -fcommon -I$c -I$c/patterns -I$d/engine -I$d/patterns -I$d/sgf -I$d/utils -I$d/interface"
	LDLIBS_P="-lm"
}
# Its benchmark mode (--benchmark N: a few random stones, then N moves against itself at the
# default level 10; the moves go to stderr) with other seeds and board sizes: training 19x19
# seed 1 and 13x13 seed 3; evaluation 19x19 seed 2.
gnugo_train() {
	"$1" --quiet --boardsize 19 --benchmark 8 --seed 1 >/dev/null 2>&1 &&
		"$1" --quiet --boardsize 13 --benchmark 8 --seed 3 >/dev/null 2>&1
}
gnugo_eval() { echo "$1" --quiet --boardsize 19 --benchmark 6 --seed 2 ">/dev/null" "2>&1"; }

fairymax_setup() {
	local d
	d=$(deb_source fairymax) || exit 2
	# fairymax of its Makefile (one source), its variant definitions (fmax.ini) read from the source's data/.
	SRCS=("$d/fairymax.c") CPPFLAGS_P="-DFAIRYDIR=\"$d/data\"" LDLIBS_P=""
	# xboard commands on stdin: a variant, a fixed depth (sd) with 1000 s per move (st) so the
	# depth, not the clock, ends each search, moves typed in force mode, then `go` N times: the
	# engine plays one move per `go`, both sides in turn.
	fairymax_input "$BENCH_WORK/fairymax-train1.in" knightmate 6 12
	fairymax_input "$BENCH_WORK/fairymax-train2.in" capablanca 5 12
	fairymax_input "$BENCH_WORK/fairymax-train3.in" normal 6 8 e2e4 e7e5 g1f3 b8c6
	fairymax_input "$BENCH_WORK/fairymax-eval.in" normal 6 10
}
# fairymax_input FILE VARIANT DEPTH MOVES [OPENING MOVE...]
fairymax_input() {
	local f=$1 v=$2 sd=$3 n=$4 i
	shift 4
	[ -s "$f" ] && return 0
	{ printf 'xboard\nnew\nvariant %s\nsd %s\nst 1000\nforce\n' "$v" "$sd"; for i in "$@"; do echo "$i"; done
	  for i in $(seq 1 "$n"); do echo go; done; echo quit; } >"$f"
}
# Self-play at a fixed depth: training on two other variants (knightmate; capablanca, 10x8) and
# normal chess after 1. e4 e5 2. Nf3 Nc6; evaluation: normal chess from the start, 10 moves.
fairymax_train() {
	local i
	for i in 1 2 3; do "$1" <"$BENCH_WORK/fairymax-train$i.in" >/dev/null || return 1; done
}
fairymax_eval() { echo "$1" "<$BENCH_WORK/fairymax-eval.in" ">/dev/null"; }

indent_setup() {
	local d c=$BENCH_WORK/indent-cfg i
	d=$(deb_source indent) || exit 2
	# config.h from its configure (no NLS); the sources of src/Makefile.am's indent_SOURCES.
	if [ ! -s "$c/config.h" ]; then
		mkdir -p "$c"
		(cd "$c" && "$d/configure" --disable-nls >configure.log 2>&1) || die "indent: configure failed (see $c/configure.log)"
	fi
	SRCS=("$d"/src/{indent,args,backup,comments,lexi,parse,globs,code_io,output,utils,handletoken}.c)
	CPPFLAGS_P="-DHAVE_CONFIG_H -DHAVE_LOCALE_H=1 -DLOCALEDIR=\"/usr/share/locale\" -I$c -I$d/src" LDLIBS_P=""
	# C sources to reformat: training Tcl 8.6's generic/*.c (6.4 MB, bench's tcl8.6 source) twice
	# and its unix/*.c 10 times; evaluation other programs' sources: LAME's libmp3lame/ and phalanx (1 MB),
	# 20 times (not LAME's frontend/get_audio.c or fairymax.c: indent stops on them with status 2,
	# and concatenated they leave it in a state that slows what follows ~4x).
	if [ ! -s "$BENCH_WORK/indent-eval.c" ]; then
		local t l p
		t=$(deb_source tcl8.6) && l=$(deb_source lame) && p=$(deb_source phalanx) || exit 2
		cat "$t"/generic/*.c "$t"/generic/*.c >"$BENCH_WORK/indent-train.c"
		for i in $(seq 1 10); do cat "$t"/unix/*.c; done >"$BENCH_WORK/indent-train-unix.c"
		for i in $(seq 1 20); do cat "$l"/libmp3lame/*.c "$p"/*.c; done \
			>"$BENCH_WORK/indent-eval.c.tmp" && mv "$BENCH_WORK/indent-eval.c.tmp" "$BENCH_WORK/indent-eval.c"
	fi
}
# GNU indent to stdout (-st) in three styles: training -gnu and -linux on Tcl's generic/ sources
# and -kr on its unix/ sources (x4); evaluation -kr on other programs' sources. Its warnings
# (old-style assignment ambiguities) go to stderr.
indent_train() {
	local i
	for i in 1 2 3 4; do
		"$1" -gnu -st "$BENCH_WORK/indent-train.c" >/dev/null 2>&1 && "$1" -linux -st "$BENCH_WORK/indent-train.c" >/dev/null 2>&1 &&
			"$1" -kr -st "$BENCH_WORK/indent-train-unix.c" >/dev/null 2>&1 || return 1
	done
}
indent_eval() { echo "$1" -kr -st "$BENCH_WORK/indent-eval.c" ">/dev/null" "2>&1"; }

calc_setup() {
	# calc's `calculate` recurses through user functions: 18 KB of stack at the median sample: deeper than the default 8 KB copy
	STACK_P=32768
	local d c=$BENCH_WORK/calc-cfg f
	# Source package apcalc unpacks as calc-VERSION (deb_source looks for apcalc-*).
	d=$(ls -d "$BENCH_WORK"/src/calc-[0-9]*/ 2>/dev/null | head -1)
	if [ -z "$d" ]; then
		(deb_source apcalc >/dev/null 2>&1)
		d=$(ls -d "$BENCH_WORK"/src/calc-[0-9]*/ 2>/dev/null | head -1)
		[ -n "$d" ] || die "calc: apt-get source apcalc left no $BENCH_WORK/src/calc-*/"
	fi
	d=${d%/}
	# calc (apcalc 2.12.7.2) has no configure: its Makefile probes the system with small programs
	# (have_*.h, conf.h ...) and generates calcerr.c; built once in a copy of the source
	# (calc-static-only); then its library sources and calc.c are compiled here, and its custom
	# function library (libcustcalc.a, not used by the scripts) is linked as it built it.
	if [ ! -x "$c/calc-static" ]; then
		mkdir -p "$c" && cp -r "$d"/. "$c"/ &&
			(cd "$c" && make calc-static-only BLD_TYPE=calc-static-only >make.log 2>&1) ||
			die "calc: make failed (see $c/make.log)"
	fi
	SRCS=("$c/calc.c")
	for f in addop assocfunc blkcpy block byteswap calcerr codegen comfunc commath config const custom file func \
		hash help hist input jump label lib_calc lib_util listfunc matfunc math_error obj opcodes pix poly prime \
		qfunc qio qmath qmod qtrans quickhash seed sha1 size str symbol token value version zfunc zio zmath zmod \
		zmul zprime zrand zrandom; do SRCS+=("$c/$f.c"); done
	CPPFLAGS_P="-DCALC_SRC -DCUSTOM -I$c" LDLIBS_P="$c/libcustcalc.a"
	export CALCPATH=$c/cal CALCHELP=$c/help CALCRC=/dev/null
	[ -s "$BENCH_WORK/calc-eval.in" ] && return 0
	{ echo "R = 500;"; cat "$INPUTS/train.cal"; } >"$BENCH_WORK/calc-train.in"
	{ echo "R = 6;"; cat "$INPUTS/eval.cal"; } >"$BENCH_WORK/calc-train-eval.in"
	{ echo "R = 30;"; cat "$INPUTS/eval.cal"; } >"$BENCH_WORK/calc-eval.in"
}
# calc scripts on stdin (-p: pipe mode, no tty): training bench/inputs/train.cal (recursion,
# gcd, rationals, strings, lists) 500 rounds and eval.cal 6 rounds; evaluation eval.cal (a
# sieve in a matrix, factorials, pmod, sqrt/exp to 1e-30, insertion sort) 30 rounds.
calc_train() { "$1" -p -q <"$BENCH_WORK/calc-train.in" >/dev/null && "$1" -p -q <"$BENCH_WORK/calc-train-eval.in" >/dev/null; }
calc_eval() { echo "$1" -p -q "<$BENCH_WORK/calc-eval.in" ">/dev/null"; }

newlisp_setup() {
	local d
	d=$(deb_source newlisp) || exit 2
	# The objects of its makefile_linuxLP64_utf8 with its defines, without readline (-DREADLINE).
	SRCS=("$d"/{newlisp,nl-symbol,nl-math,nl-list,nl-liststr,nl-string,nl-filesys,nl-sock,nl-import,nl-xml-json,nl-web,nl-matrix,nl-debug,nl-utf8,pcre}.c)
	CPPFLAGS_P="-DSUPPORT_UTF8 -DNEWLISP64 -DLINUX -I$d" LDLIBS_P="-lm -ldl"
}
# bench/inputs/train.lsp (recursion, association lists, strings, sort, regex replace) 300 rounds
# and eval.lsp with another size factor; evaluation eval.lsp (a sieve in an array, a heapsort of
# a global array, format/extend, float loops) 16 rounds at size 4.
newlisp_train() { "$1" "$INPUTS/train.lsp" 300 >/dev/null && "$1" "$INPUTS/eval.lsp" 20 1 >/dev/null; }
newlisp_eval() { echo "$1" "$INPUTS/eval.lsp" 16 4 ">/dev/null"; }

# ---- more interpreters (Scheme, Haskell, Algol 68)

tinyscheme_setup() {
	local d
	d=$(deb_source tinyscheme) || exit 2
	# scheme.c + dynload.c with the defines of Debian's debian/Makefile; its init.scm from the source.
	SRCS=("$d/scheme.c" "$d/dynload.c")
	CPPFLAGS_P="-DSUN_DL=1 -DUSE_DL=1 -DUSE_MATH=1 -DUSE_ASCII_NAMES=0 -DUSE_PLIST=1 -DINLINE=inline -DInitFile=\"$d/init.scm\" -I$d"
	LDLIBS_P="-ldl -lm"
}
# Debian's 1.42 snapshot rejects every exact index (string-ref, vector-ref, vector-set!, and so
# string=?, equal? on strings and string->list of its init.scm): the scripts use lists, symbols,
# substring and string-append only. bench/inputs/train.scm (tak, fib, merge sort, association lists,
# string building, closures, Newton's method) 40 rounds + eval.scm at size 2; evaluation eval.scm
# (n-queens, a list sieve, quicksort, a mutable search tree, an expression evaluator, integration) at size 4.
tinyscheme_train() { "$1" -1 "$INPUTS/train.scm" 40 >/dev/null && "$1" -1 "$INPUTS/eval.scm" 4 2 >/dev/null; }
tinyscheme_eval() { echo "$1" -1 "$INPUTS/eval.scm" 1 4 ">/dev/null"; }

# deb_orig PKG VERSION TARBALL DIR: the Debian source if the mirror has all of it, else (its
# debian.tar is 404 here) the orig tarball unpacked by orig_source (upstream, without Debian's
# patches); prints the source directory.
deb_orig() { (deb_source "$1") 2>/dev/null || orig_source "$1" "$3" "$4"; }

elk_setup() {
	# its evaluator recurses deeper than the default 8 KB copy (92% of the stacks truncated at 8 KB)
	STACK_P=32768
	local d c=$BENCH_WORK/elk-cfg f
	# elk 3.99.8-4.2: its debian.tar is 404 on the mirror here, the orig tarball is not.
	d=$(deb_orig elk 3.99.8-4.2 elk_3.99.8.orig.tar.gz elk-3.99.8) || exit 2
	# config.h (generational GC, libelf) from its configure, static; libelk's sources of
	# src/Makefile.am (stab-elf, no dynamic loading of extensions) + main.c; its Scheme runtime
	# (toplevel.scm, initscheme.scm) from the source's scm/.
	if [ ! -s "$c/config.h" ]; then
		mkdir -p "$c"
		(cd "$c" && "$d/configure" --disable-shared >configure.log 2>&1) || die "elk: configure failed (see $c/configure.log)"
	fi
	SRCS=()
	for f in autoload bignum bool char cont cstring debug dump env error exception feature heap io libelk list \
		load loadlib malloc math onfork prim print proc promise read special stab stab-elf stkmem string \
		symbol terminate type vector main; do SRCS+=("$d/src/$f.c"); done
	CPPFLAGS_P="-DHAVE_CONFIG_H -I$c -I$c/include -I$d/src -I$d/include -DSCM_DIR=\"$d/scm\" -DLIB_DIR=\"$c/lib\""
	LDLIBS_P="-lm -lelf -ldl"
	# The scripts read their arguments from *args*: a loader per script.
	for f in train eval; do
		[ -s "$BENCH_WORK/elk-$f.scm" ] ||
			printf '(define *args* (command-line-args))\n(load "%s/%s-r4.scm")\n' "$INPUTS" "$f" >"$BENCH_WORK/elk-$f.scm"
	done
}
# bench/inputs/train-r4.scm (tak, fib, merge sort, association lists of strings, string-set!,
# vector sums, closures, integer Newton's method) 1000 rounds + eval-r4.scm at size 2; evaluation
# eval-r4.scm (a vector sieve, heapsort, n-queens, string reversal and splitting, a search tree,
# an expression evaluator, integration) at size 4.
elk_train() { "$1" -l "$BENCH_WORK/elk-train.scm" 1000 >/dev/null && "$1" -l "$BENCH_WORK/elk-eval.scm" 30 2 >/dev/null; }
elk_eval() { echo "$1" -l "$BENCH_WORK/elk-eval.scm" 20 4 ">/dev/null"; }

hugs98_setup() {
	# 16% of its stacks are truncated at the default 8 KB copy
	STACK_P=16384
	local d c=$BENCH_WORK/hugs98-cfg f
	# hugs98 98.200609.21-6: its debian.tar is 404 on the mirror here, the orig tarball is not.
	d=$(deb_orig hugs98 98.200609.21-6 hugs98_98.200609.21.orig.tar.gz hugs98-plus-Sep2006) || exit 2
	# Hugs builds in its source tree: a copy, configured once (src/config.h, options.h, platform.h),
	# and the boot libraries its make preprocesses from packages/ (base, haskell98, Cabal: the
	# Prelude, Data.List, Data.Map, Data.Array...) with cpp: enough for runhugs, without the FFI
	# packages and Cabal-built libraries, whose build fails with gcc 12 without Debian's patches.
	if [ ! -s "$c/libraries/bootlib/.stamp" ]; then
		rm -rf "$c" && mkdir -p "$(dirname "$c")" && cp -a "$d" "$c.tmp" && mv "$c.tmp" "$c"
		(cd "$c" && ./configure >configure.log 2>&1 && make -C libraries bootlib/.stamp >make.log 2>&1) ||
			die "hugs98: configure or bootlib failed (see $c/*.log)"
	fi
	# runhugs (the batch interpreter: load a script, run main) as src/Makefile links it.
	SRCS=()
	for f in runhugs server builtin char compiler errors evaluator ffi goal input machdep machine module opts \
		output plugin script static storage strutil subst type version; do SRCS+=("$c/src/$f.c"); done
	CPPFLAGS_P="-DNDEBUG=1 -I$c/src"
	LDLIBS_P=$(sed -n 's/^LIBS[[:space:]]*=//p' "$c/src/Makefile")
	export HUGSFLAGS="-P$c/libraries/bootlib" HUGSDIR=$c/hugsdir
}
# bench/inputs/train.hs (nfib, merge sort, Data.Map word counts, show/read, accumArray, a type
# class, rot13) 200 rounds + eval.hs at size 2; evaluation eval.hs (n-queens, a sieve, an LCS table
# in a lazy array, Integer factorials, a search tree, a Data.Map index, a float series) at size 4.
hugs98_train() { "$1" "$INPUTS/train.hs" 200 >/dev/null && "$1" "$INPUTS/eval.hs" 8 2 >/dev/null; }
hugs98_eval() { echo "$1" "$INPUTS/eval.hs" 6 4 ">/dev/null"; }

algol68g_setup() {
	# its tree-walking interpreter recurses deeper than the default 8 KB copy (38% truncated at 8 KB)
	STACK_P=32768
	local d c=$BENCH_WORK/algol68g-cfg
	# algol68g 3.1.2-1: its debian.tar is 404 on the mirror here, the orig tarball is not.
	d=$(deb_orig algol68g 3.1.2-1 algol68g_3.1.2.orig.tar.gz algol68g-3.1.2) || exit 2
	# a68g-config.h from its configure, interpreter only (no unit compiler, which would run gcc at
	# run time) and none of the optional libraries; a68g_SOURCES of its Makefile.am: src/a68g/*.c.
	if [ ! -s "$c/a68g-config.h" ]; then
		mkdir -p "$c"
		(cd "$c" && "$d/configure" --disable-compiler --disable-curses --disable-gsl --disable-mpfr \
			--disable-postgresql --disable-plotutils --disable-readline --disable-parallel --disable-mathlib \
			--disable-quadmath >configure.log 2>&1) || die "algol68g: configure failed (see $c/configure.log)"
	fi
	SRCS=("$d"/src/a68g/*.c)
	CPPFLAGS_P="-DHAVE_CONFIG_H -I$c -I$d -I$d/src/include -DBINDIR=\"/usr/local/bin\" -DINCLUDEDIR=\"/usr/local/include\""
	LDLIBS_P="-lm"
	echo 2000 >"$BENCH_WORK/a68g-train.in"
	echo 20 2 >"$BENCH_WORK/a68g-train-eval.in"
	echo 32 4 >"$BENCH_WORK/a68g-eval.in"
}
# bench/inputs/train.a68 (tak, fib, an insertion sort, a linked list of structs, strings, Newton's
# method, procedure values) 2000 rounds + eval.a68 at size 2; evaluation eval.a68 (a sieve,
# quicksort, n-queens, string reversal, a search tree on the heap, a matrix product, Collatz) 32
# rounds at size 4 (1.1 s; the first screen ran 16: 0.54 s). The sizes come on standard input.
# a68g saves its random state as .Random.seed in the working directory: run it in BENCH_WORK.
algol68g_train() {
	env -C "$BENCH_WORK" "$1" --nowarnings "$INPUTS/train.a68" <"$BENCH_WORK/a68g-train.in" >/dev/null &&
		env -C "$BENCH_WORK" "$1" --nowarnings "$INPUTS/eval.a68" <"$BENCH_WORK/a68g-train-eval.in" >/dev/null
}
algol68g_eval() { echo env -C "$BENCH_WORK" "$1" --nowarnings "$INPUTS/eval.a68" "<$BENCH_WORK/a68g-eval.in" ">/dev/null"; }

sigscheme_setup() {
	# 15% of its stacks are truncated at the default 8 KB copy
	STACK_P=16384
	local d c=$BENCH_WORK/sigscheme-cfg f a
	d=$(deb_source sigscheme) || exit 2
	# src/config.h from its configure (static); the headers its include/ make links as
	# sigscheme/*.h; its bundled libgcroots (the stack-scanning part of the Boehm GC) built once by
	# its make: the same -O2 object code in all builds, as m4's gnulib. Then libsscm's sources (the
	# list of `make -n libsscm.la` in src/ for this configuration, function tables shipped) + main.c.
	if [ ! -s "$c/libgcroots/.libs/libgcroots.a" ]; then
		mkdir -p "$c"
		(cd "$c" && "$d/configure" --disable-shared >configure.log 2>&1 && make -C include >make.log 2>&1 &&
			make -C libgcroots >>make.log 2>&1) || die "sigscheme: configure or make failed (see $c/*.log)"
	fi
	SRCS=()
	for f in alloc char continuation deep-cadrs encoding env error eval format legacy-macro list load \
		module-srfi1 module-srfi2 module-srfi23 module-srfi28 module-srfi34 module-srfi38 module-srfi43 \
		module-srfi48 module-srfi55 module-srfi6 module-srfi60 module-srfi8 module-srfi9 module-sscm-ext \
		module number-io number port procedure promise qquote read scmport-basechar scmport-file \
		scmport-mbchar scmport-str sigscheme storage-gc storage string-procedure string symbol syntax \
		vector write main; do SRCS+=("$d/src/$f.c"); done
	CPPFLAGS_P="-DHAVE_CONFIG_H -I$c/src -I$d/src -I$c/include -I$d/include -I$d/libgcroots/include"
	CPPFLAGS_P="$CPPFLAGS_P -DSCM_COMPILING_LIBSSCM=1 -DPKGDATADIR=\"$d/lib\" -DSCMLIBDIR=\"$d/lib\""
	LDLIBS_P="$c/libgcroots/.libs/libgcroots.a"
	# sscm gives a script no arguments: a loader per run that defines them.
	for a in "train 600" "train-eval 20 2" "eval 6 4"; do
		set -- $a
		f=${1%-eval}; [ "$1" = train-eval ] && f=eval
		printf '(define *args* (quote (%s)))\n(load "%s/%s-r4.scm")\n' \
			"$(shift; for x in "$@"; do printf '"%s" ' "$x"; done)" "$INPUTS" "$f" >"$BENCH_WORK/sscm-$1.scm"
	done
}
# elk's scripts (integers only): train-r4.scm 600 rounds + eval-r4.scm at size 2; evaluation
# eval-r4.scm at size 4.
sigscheme_train() { "$1" "$BENCH_WORK/sscm-train.scm" >/dev/null && "$1" "$BENCH_WORK/sscm-train-eval.scm" >/dev/null; }
sigscheme_eval() { echo "$1" "$BENCH_WORK/sscm-eval.scm" ">/dev/null"; }

bc_setup() {
	local d c=$BENCH_WORK/bc-cfg
	d=$(deb_source bc) || exit 2
	# config.h from bc's configure; libmath.h (the math library, bc -l, compiled to bc's byte code)
	# bootstrapped as its Makefile does: a bc without it compiles libmath.b, fix-libmath_h's edit
	# in awk (no ed).
	if [ ! -s "$c/gen/libmath.h" ]; then
		mkdir -p "$c/gen"
		(cd "$c" && "$d/configure" >configure.log 2>&1) || die "bc: configure failed (see $c/configure.log)"
		(cd "$c/gen" && echo '{0}' >libmath.h &&
			gcc -O1 -w -I. -I"$c" -I"$d/h" -I"$d/bc" -DHAVE_CONFIG_H -o fbc "$d"/bc/{main,bc,scan,execute,load,storage,util,warranty,global}.c \
				"$d"/lib/{number,getopt,getopt1}.c && ./fbc -c "$d/bc/libmath.b" </dev/null >libmath.raw &&
			awk '{ l[NR] = $0 } END { for (i = 1; i < NR; i++) printf "%s\"%s\",%s\n", i == 1 ? "{" : "", l[i], i == NR - 1 ? "0}" : "" }' \
				libmath.raw >libmath.tmp && mv libmath.tmp libmath.h) || die "bc: cannot generate libmath.h (see $c/gen)"
	fi
	SRCS=("$d"/bc/{main,bc,scan,execute,load,storage,util,warranty,global}.c "$d"/lib/{number,getopt,getopt1}.c)
	CPPFLAGS_P="-I$c/gen -I$c -I$d/h -I$d/bc -DHAVE_CONFIG_H" LDLIBS_P=""
	local n
	for n in 4 7; do echo "n = $n" >"$BENCH_WORK/bc-n$n.bc"; done
}
# train.bc three times, and eval.bc at a smaller size (as for gawk: the training must reach the
# evaluation's functions); evaluation: eval.bc at size 7.
bc_train() {
	local i
	for i in 1 2 3; do "$1" -lq "$INPUTS/train.bc" || return 1; done
	for i in 1 2; do "$1" -lq "$BENCH_WORK/bc-n4.bc" "$INPUTS/eval.bc" || return 1; done
}
bc_eval() { echo "$1" -lq "$BENCH_WORK/bc-n7.bc" "$INPUTS/eval.bc"; }

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

jq_setup() {
	local d g=$BENCH_WORK/jq-gen f m=""
	# The security update of bookworm is not on the source mirror here; the point release is.
	d=$(deb_source jq 1.6-2.1+deb12u2) || exit 2
	need_pkgs libonig-dev
	# jq 1.6's Debian source has no configure: the two generated headers as its Makefile.am makes
	# them, and the HAVE_ macros its configure would find with glibc.
	if [ ! -s "$g/src/builtin.inc" ]; then
		mkdir -p "$g/src"
		sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$/\\n"/' "$d/src/builtin.jq" >"$g/src/builtin.inc" &&
			echo '#define JQ_VERSION "1.6"' >"$g/src/version.h" || die "jq: cannot generate $g/src"
	fi
	for f in acos acosh asin asinh atan2 atan atanh cbrt ceil copysign cos cosh drem erf erfc exp10 exp2 exp \
		expm1 fabs fdim floor fma fmax fmin fmod frexp gamma hypot j0 j1 jn ldexp lgamma log10 log1p log2 log \
		logb modf lgamma_r nearbyint nextafter nexttoward pow remainder rint round scalb scalbln significand \
		sin sinh sqrt tan tanh tgamma trunc y0 y1 yn alloca_h alloca timegm tm_tm_gmt_off strptime gmtime_r \
		gmtime localtime_r strftime gettimeofday libonig; do m="$m -DHAVE_${f^^}"; done
	SRCS=()
	for f in builtin bytecode compile execute jq_test jv jv_alloc jv_aux jv_dtoa jv_file jv_parse jv_print \
		jv_unicode linker locfile util lexer parser main; do SRCS+=("$d/src/$f.c"); done
	CPPFLAGS_P="-I$g -I$d -I$d/src -D_GNU_SOURCE -DIEEE_8087$m" LDLIBS_P="-lonig -lm"
	gen_input "$BENCH_WORK/orders-train.json" orders-gen.awk N=40000 S=1
	gen_input "$BENCH_WORK/orders-eval.json" orders-gen.awk N=25000 S=2
}
# Orders as JSON lines (orders-gen.awk): training on train.jq (slurped, grouped) and, as for gawk,
# on eval.jq over the training orders; evaluation: eval.jq (a CSV row per order) on other orders.
jq_train() {
	"$1" -s -c -f "$INPUTS/train.jq" "$BENCH_WORK/orders-train.json" >/dev/null &&
		"$1" -r -f "$INPUTS/eval.jq" "$BENCH_WORK/orders-train.json" >/dev/null
}
jq_eval() { echo "$1" -r -f "$INPUTS/eval.jq" "$BENCH_WORK/orders-eval.json"; }

expat_setup() {
	local d c=$BENCH_WORK/expat-cfg
	# The security update of bookworm is not on the source mirror here; the point release is.
	d=$(deb_source expat 2.5.0-1+deb12u2) || exit 2
	d=$d/expat
	# Debian's source is upstream's git tree (no configure): expat_config.h with what configure
	# finds on glibc and expat's defaults (DTD and namespace support, 1024 context bytes).
	if [ ! -s "$c/expat_config.h" ]; then
		mkdir -p "$c"
		printf '#define %s\n' 'BYTEORDER 1234' 'HAVE_GETRANDOM 1' 'HAVE_SYSCALL_GETRANDOM 1' 'HAVE_MMAP 1' \
			'HAVE_UNISTD_H 1' 'HAVE_FCNTL_H 1' 'HAVE_GETPAGESIZE 1' 'HAVE_STDINT_H 1' 'HAVE_STDLIB_H 1' \
			'HAVE_STRING_H 1' 'HAVE_INTTYPES_H 1' 'STDC_HEADERS 1' 'XML_CONTEXT_BYTES 1024' 'XML_DEV_URANDOM 1' \
			'XML_DTD 1' 'XML_NS 1' 'PACKAGE "expat"' 'PACKAGE_VERSION "2.5.0"' >"$c/expat_config.h"
	fi
	SRCS=("$d"/lib/{xmlparse,xmlrole,xmltok}.c "$d"/xmlwf/{codepage,readfilemap,xmlfile,xmlwf}.c)
	CPPFLAGS_P="-I$c -I$d/lib" LDLIBS_P=""
	# xmlwf checks the documents and writes them in canonical form to -d DIR.
	xml_docs expat
}
# Training: a catalog document and, as for gawk, a smaller feed document of another seed (the
# evaluation's shape); evaluation: a larger feed document.
expat_train() {
	local i
	for i in 1 2; do
		"$1" -d "$BENCH_WORK/xml-out" "$BENCH_WORK/xml-train-catalog.xml" "$BENCH_WORK/xml-train-feed.xml" || return 1
	done
}
expat_eval() { echo "$1" -d "$BENCH_WORK/xml-out" "$BENCH_WORK/xml-eval-feed.xml"; }

tcc_setup() {
	local t c=$BENCH_WORK/tcc-cfg mujs bz lz duk
	t=$(deb_source tcc) || exit 2
	mujs=$(deb_source mujs) && bz=$(deb_source bzip2) && lz=$(deb_source lz4) && duk=$(deb_source duktape) || exit 2
	if [ ! -s "$c/config.h" ]; then
		mkdir -p "$c"
		(cd "$c" && "$t/configure" --prefix=/usr --libdir=/usr/lib/x86_64-linux-gnu >configure.log 2>&1) ||
			die "tcc: configure failed (see $c/configure.log)"
	fi
	# The compiler as one translation unit (its Makefile's ONE_SOURCE build), x86-64 target.
	SRCS=("$t/tcc.c") CPPFLAGS_P="-DONE_SOURCE=1 -DTCC_TARGET_X86_64 -I$c -I$t" LDLIBS_P="-ldl -lm -lpthread"
	# tcc compiles C files to objects (-c) with its own headers (-B) and the system's.
	local tcc='"$1" -B'"$t -I$t/include -I/usr/include/x86_64-linux-gnu -I/usr/include"
	# Training: compile tcc itself, mujs (one.c), bzip2 and lz4's library, 15 times (~2 s CPU);
	# evaluation: build duktape from its 103 separate sources (src-separate/, another code base).
	{
		echo 'set -e; for i in $(seq 1 15); do'
		echo "$tcc -DONE_SOURCE=1 -DTCC_TARGET_X86_64 -I$c -I$t -c $t/tcc.c -o $BENCH_WORK/tcc-out.o"
		echo "$tcc -c $mujs/one.c -o $BENCH_WORK/tcc-out.o"
		echo "for f in $bz/blocksort.c $bz/huffman.c $bz/crctable.c $bz/randtable.c $bz/compress.c $bz/decompress.c $bz/bzlib.c $bz/bzip2.c $lz/lib/*.c; do"
		echo "$tcc -c \"\$f\" -o $BENCH_WORK/tcc-out.o; done; done"
	} >"$BENCH_WORK/tcc-train.sh"
	echo "set -e; for f in $duk/src-separate/*.c; do $tcc -I$duk/src-separate -c \"\$f\" -o $BENCH_WORK/tcc-out.o; done" \
		>"$BENCH_WORK/tcc-eval.sh"
}
tcc_train() { sh "$BENCH_WORK/tcc-train.sh" "$1" 2>/dev/null; }
tcc_eval() { echo sh "$BENCH_WORK/tcc-eval.sh" "$1" "2>/dev/null"; }

cmark_setup() {
	local d c=$BENCH_WORK/cmark-cfg f i
	d=$(deb_source cmark) || exit 2
	# The three headers its CMake build generates: config.h (every check true with gcc/glibc),
	# cmark_version.h and an empty-attribute cmark_export.h (static build).
	if [ ! -s "$c/cmark_export.h" ]; then
		mkdir -p "$c"
		sed 's/^#cmakedefine \(.*\)/#define \1 1/' "$d/src/config.h.in" >"$c/config.h" &&
			sed 's/@PROJECT_VERSION_MAJOR@/0/g; s/@PROJECT_VERSION_MINOR@/30/g; s/@PROJECT_VERSION_PATCH@/2/g' \
				"$d/src/cmark_version.h.in" >"$c/cmark_version.h" &&
			printf '#ifndef CMARK_EXPORT_H\n#define CMARK_EXPORT_H\n#define CMARK_EXPORT\n#endif\n' >"$c/cmark_export.h" ||
			die "cmark: cannot write $c"
	fi
	SRCS=()
	for f in blocks buffer cmark cmark_ctype commonmark houdini_href_e houdini_html_e houdini_html_u html inlines \
		iterator latex main man node references render scanners utf8 xml; do SRCS+=("$d/src/$f.c"); done
	CPPFLAGS_P="-I$c -I$d/src" LDLIBS_P=""
	# Training: the CommonMark spec (test/spec.txt) 400 times (~80 MB); evaluation: upstream's
	# benchmark samples (bench/samples/*.md, one per construct) 1600 times (~17 MB).
	if [ ! -s "$BENCH_WORK/cmark-eval.md" ]; then
		for i in $(seq 1 400); do cat "$d/test/spec.txt"; done >"$BENCH_WORK/cmark-train.md"
		for i in $(seq 1 1600); do cat "$d"/bench/samples/*.md; done >"$BENCH_WORK/cmark-eval.md"
	fi
}
cmark_train() { "$1" "$BENCH_WORK/cmark-train.md" >/dev/null; }
cmark_eval() { echo "$1" "$BENCH_WORK/cmark-eval.md"; }

# Compressors (lz4, zstd, xz), like bzip2: training on text (C headers, the first 12 MB of a tar),
# evaluation on ELF code and data (a prefix of cc1), compressed at the same level and decompressed.
# comp_files P N: sets COMP_TRAIN and COMP_EVAL (the first N bytes of cc1).
comp_files() {
	COMP_TRAIN=$BENCH_WORK/comp-train.tar COMP_EVAL=$BENCH_WORK/comp-eval-$2.bin
	if [ ! -s "$COMP_TRAIN" ]; then
		tar -cf "$COMP_TRAIN.tmp" -C /usr/include stdio.h stdlib.h string.h linux 2>/dev/null
		head -c 12000000 "$COMP_TRAIN.tmp" >"$COMP_TRAIN" && rm -f "$COMP_TRAIN.tmp"
	fi
	[ -s "$COMP_EVAL" ] || head -c "$2" "$(gcc -print-prog-name=cc1)" >"$COMP_EVAL" || die "$1: no cc1"
	export COMP_TRAIN COMP_EVAL
}
# comp_data P LEVEL EXT: the evaluation input compressed by P's base build (for the decompression).
comp_data() {
	"$BENCH_WORK/build/$1/base/prog" -q "$2" -c "$COMP_EVAL" >"$COMP_EVAL.$3" || die "$1: cannot compress $COMP_EVAL"
}
# comp_train BIN LEVEL EXT REPS: compress the training tar at LEVEL and decompress it, REPS times.
comp_train() {
	local i
	for i in $(seq 1 "$4"); do
		"$1" -q "$2" -c "$COMP_TRAIN" >"$COMP_TRAIN.$3" && "$1" -q -dc "$COMP_TRAIN.$3" >/dev/null || return 1
	done
}
# comp_eval BIN LEVEL EXT: one command for cputime (redirections inside a script).
comp_eval() {
	printf '%s\n' 'set -e; "$1" -q "$2" -c "$3" >/dev/null; "$1" -q -dc "$3.$4" >/dev/null' >"$BENCH_WORK/comp-eval.sh"
	echo sh "$BENCH_WORK/comp-eval.sh" "$1" "$2" "$COMP_EVAL" "$3"
}

lz4_setup() {
	local d
	d=$(deb_source lz4) || exit 2
	SRCS=("$d"/lib/{lz4,lz4frame,lz4hc,xxhash}.c "$d"/programs/{bench,datagen,lz4cli,lz4io}.c)
	CPPFLAGS_P="-I$d/lib" LDLIBS_P=""
	comp_files lz4 15000000
}
# lz4 -9 (the high-compression mode; the default -1 runs ~200 MB/s, too fast to time on these inputs)
lz4_data() { comp_data lz4 -9 lz4; }
lz4_train() { comp_train "$1" -9 lz4 4; }
lz4_eval() { comp_eval "$1" -9 lz4; }

zstd_setup() {
	local d
	d=$(deb_source libzstd) || exit 2
	# Library and command line as upstream's programs/Makefile, single-threaded, no assembly
	# decoder loop (huf_decompress_amd64.S: the builds here compile .c files only).
	SRCS=("$d"/lib/{common,compress,decompress,dictBuilder}/*.c)
	SRCS+=("$d"/programs/{benchfn,benchzstd,datagen,dibio,fileio,fileio_asyncio,timefn,util,zstdcli,zstdcli_trace}.c)
	CPPFLAGS_P="-I$d/lib -I$d/lib/common -DZSTD_DISABLE_ASM" LDLIBS_P=""
	comp_files zstd 2000000
}
# zstd -19 (the strongest regular level, compress once and decompress often)
zstd_data() { comp_data zstd -19 zst; }
zstd_train() { comp_train "$1" -19 zst 1; }
zstd_eval() { comp_eval "$1" -19 zst; }

xz_setup() {
	local d c=$BENCH_WORK/xz-cfg n x
	d=$(deb_source xz-utils) || exit 2
	# config.h from its configure (single-threaded, static, no NLS); the sources of liblzma and xz
	# that its Makefiles build with these options.
	if [ ! -s "$c/config.h" ]; then
		mkdir -p "$c"
		(cd "$c" && "$d/configure" --disable-nls --disable-threads --disable-shared --disable-doc --disable-xzdec \
			--disable-lzmadec --disable-lzmainfo --disable-scripts --disable-lzma-links >configure.log 2>&1) ||
			die "xz: configure failed (see $c/configure.log)"
	fi
	SRCS=()
	for n in alone_decoder alone_encoder arm arm64 armthumb auto_decoder block_buffer_decoder block_buffer_encoder \
		block_decoder block_encoder block_header_decoder block_header_encoder block_util check common crc32_fast \
		crc32_table crc64_fast crc64_table delta_common delta_decoder delta_encoder easy_buffer_encoder \
		easy_decoder_memusage easy_encoder easy_encoder_memusage easy_preset fastpos_table file_info \
		filter_buffer_decoder filter_buffer_encoder filter_common filter_decoder filter_encoder filter_flags_decoder \
		filter_flags_encoder hardware_physmem ia64 index index_decoder index_encoder index_hash lz_decoder \
		lz_encoder lz_encoder_mf lzip_decoder lzma2_decoder lzma2_encoder lzma_decoder lzma_encoder \
		lzma_encoder_optimum_fast lzma_encoder_optimum_normal lzma_encoder_presets microlzma_decoder \
		microlzma_encoder powerpc price_table sha256 simple_coder simple_decoder simple_encoder sparc \
		stream_buffer_decoder stream_buffer_encoder stream_decoder stream_encoder stream_flags_common \
		stream_flags_decoder stream_flags_encoder string_conversion tuklib_physmem vli_decoder vli_encoder \
		vli_size x86 args coder file_io hardware list main message mytime options signals suffix util tuklib_exit \
		tuklib_mbstr_fw tuklib_mbstr_width tuklib_open_stdxxx tuklib_progname; do
		SRCS+=($(ls "$d"/src/liblzma/*/"$n".c "$d/src/common/$n.c" "$d/src/xz/$n.c" 2>/dev/null))
	done
	CPPFLAGS_P="-DHAVE_CONFIG_H -DTUKLIB_SYMBOL_PREFIX=lzma_ -I$c -I$d/src/common -I$d/src/liblzma/api"
	for x in common check lz rangecoder lzma delta simple; do CPPFLAGS_P="$CPPFLAGS_P -I$d/src/liblzma/$x"; done
	LDLIBS_P=""
	comp_files xz 1400000
}
# xz's default level, -6
xz_data() { comp_data xz -6 xz; }
xz_train() { comp_train "$1" -6 xz 1; }
xz_eval() { comp_eval "$1" -6 xz; }

pcre2_setup() {
	# pcre2grep's 6 KB and 2 KB frames under pcre2_match: deeper than the default 8 KB copy
	STACK_P=16384
	local d c=$BENCH_WORK/pcre2-cfg f i
	d=$(deb_source pcre2 10.42-1) || exit 2
	# config.h and pcre2.h from its configure (8-bit library, Unicode, no JIT: the interpreter
	# pcre2_match is what the builds differ in), the default character tables, and pcre2grep.
	if [ ! -s "$c/src/pcre2.h" ]; then
		mkdir -p "$c"
		(cd "$c" && "$d/configure" --disable-jit --disable-shared --disable-pcre2grep-libz \
			--disable-pcre2grep-libbz2 >configure.log 2>&1) || die "pcre2: configure failed (see $c/configure.log)"
		cp "$d/src/pcre2_chartables.c.dist" "$c/src/pcre2_chartables.c"
	fi
	SRCS=("$c/src/pcre2_chartables.c" "$d/src/pcre2grep.c")
	for f in auto_possess compile config context convert dfa_match error extuni find_bracket maketables match \
		match_data newline ord2utf pattern_info script_run serialize string_utils study substitute substring \
		tables ucd valid_utf xclass; do SRCS+=("$d/src/pcre2_$f.c"); done
	CPPFLAGS_P="-DHAVE_CONFIG_H -DPCRE2_CODE_UNIT_WIDTH=8 -DPCRE2_STATIC -I$c/src -I$d/src" LDLIBS_P=""
	# Training text: C headers (/usr/include/linux, 3.6 MB, twice); evaluation text: English prose,
	# PCRE2's own manual pages (doc/*.txt, 0.7 MB) 20 times.
	if [ ! -s "$BENCH_WORK/pcre2-eval.txt" ]; then
		cat /usr/include/linux/*.h /usr/include/linux/*.h >"$BENCH_WORK/pcre2-train.txt"
		for i in $(seq 1 20); do cat "$d"/doc/*.txt; done >"$BENCH_WORK/pcre2-eval.txt"
	fi
}
# pcre2grep -c with several patterns per run (each line is tried against each pattern): training
# patterns for code (declarations, hex defines, identifiers, a backreference, caseless words);
# evaluation patterns for prose (names, doubled words, quoted strings, numbers, option lists),
# other constructs and other text.
pcre2_train() {
	local t=$BENCH_WORK/pcre2-train.txt i
	for i in 1 2 3 4 5; do pcre2_train1 "$1" "$t" || return 1; done
}
pcre2_train1() {
	local t=$2
	"$1" -c -e '\b(struct|union|enum)\s+\w+\s*\{' -e '#define\s+[A-Z_][A-Z0-9_]*\s+\(?0x[0-9a-fA-F]+' \
		-e '^\s*/\*.*\*/\s*$' -e '(\w+)\s*=\s*\1\b' "$t" >/dev/null &&
		"$1" -c -i -e 'error|fail(ed|ure)?|invalid' -e '[a-z]+_[a-z]+_[a-z]+\(' -e '\b__u(8|16|32|64)\s+\w+;' "$t" >/dev/null &&
		"$1" -o -e '\b[A-Z][A-Z0-9_]{3,}\b' "$t" >/dev/null
}
pcre2_eval() {
	echo "$1" -c -e "'\b[A-Z][a-z]+ [A-Z][a-z]+\b'" -e "'(?i)\bpattern(s|ed)?\b'" -e "'\b(\w+) \1\b'" \
		-e "'\"[^\"]*\"'" -e "'\d+(\.\d+)+'" -e "'^\s+-[a-zA-Z-]+'" -e "'the\s+\w+\s+of'" "$BENCH_WORK/pcre2-eval.txt"
}

nasm_setup() {
	local d c=$BENCH_WORK/nasm-cfg f
	d=$(deb_source nasm) || exit 2
	# config/config.h from its configure; nasm and the library objects of its Makefile (the
	# generated x86/ tables and macros.c are in the source), with the code-generation flags its
	# configure picks that change semantics (-fwrapv, -fno-common); not nasmlib/errfile.c (ndisasm's
	# error_file, which nasm.c defines: the library archive leaves it out of nasm).
	if [ ! -s "$c/config/config.h" ]; then
		mkdir -p "$c"
		(cd "$c" && "$d/configure" >configure.log 2>&1) || die "nasm: configure failed (see $c/configure.log)"
	fi
	SRCS=("$d/asm/nasm.c")
	for f in stdlib/snprintf stdlib/vsnprintf stdlib/strlcpy stdlib/strnlen stdlib/strrchrnul nasmlib/ver \
		nasmlib/alloc nasmlib/asprintf nasmlib/crc32 nasmlib/crc64 nasmlib/md5c nasmlib/string \
		nasmlib/nctype nasmlib/file nasmlib/mmap nasmlib/ilog2 nasmlib/realpath nasmlib/path nasmlib/filename \
		nasmlib/rlimit nasmlib/zerobuf nasmlib/readnum nasmlib/bsi nasmlib/rbtree nasmlib/hashtbl nasmlib/raa \
		nasmlib/saa nasmlib/strlist nasmlib/perfhash nasmlib/badenum common/common x86/insnsa x86/insnsb \
		x86/insnsd x86/insnsn x86/regs x86/regvals x86/regflags x86/regdis x86/disp8 x86/iflag asm/error \
		asm/floats asm/directiv asm/directbl asm/pragma asm/assemble asm/labels asm/parser asm/preproc asm/quote \
		asm/pptok asm/listing asm/eval asm/exprlib asm/exprdump asm/stdscan asm/strfunc asm/tokhash \
		asm/segalloc asm/rdstrnum asm/srcfile macros/macros output/outform output/outlib output/legacy \
		output/nulldbg output/nullout output/outbin output/outaout output/outcoff output/outelf output/outobj \
		output/outas86 output/outdbg output/outieee output/outmacho output/codeview disasm/disasm disasm/sync \
		asm/warnings; do SRCS+=("$d/$f.c"); done
	CPPFLAGS_P="-DHAVE_CONFIG_H -fwrapv -fno-common -U__STRICT_ANSI__ -I$c -I$d -I$d/include -I$d/x86 -I$d/asm"
	CPPFLAGS_P="$CPPFLAGS_P -I$d/disasm -I$d/output" LDLIBS_P=""
	export NASM_T=$d/test
	# Evaluation input: other test files, 10 copies in one source (the repeated macro definitions
	# only warn).
	if [ ! -s "$BENCH_WORK/nasm-eval.asm" ]; then
		for f in $(seq 1 10); do
			cat "$NASM_T"/{avx2,avx005,testnos3,lwp,avx512cd,avx512er,floatexp}.asm
		done >"$BENCH_WORK/nasm-eval.asm"
	fi
}
# nasm's instruction-set test files (test/*.asm; -DSRC makes their testcase macro emit the
# instructions), assembled to ELF64 objects: training on the AVX-512 foundation set (1 MB),
# RIP-relative addressing and x87/SSE float constants, 5 times; evaluation on other files: AVX2,
# AVX (avx005), 3DNow/SSE (testnos3), LWP, the AVX-512 CD and ER sets and float expressions.
nasm_train() {
	local i f
	for i in 1 2 3 4 5; do
		for f in avx512f riprel floatx; do
			"$1" -DSRC -f elf64 -o "$BENCH_WORK/nasm-out.o" "$NASM_T/$f.asm" 2>/dev/null || return 1
		done
	done
}
nasm_eval() { echo "$1" -DSRC -f elf64 -o "$BENCH_WORK/nasm-out.o" "$BENCH_WORK/nasm-eval.asm" "2>/dev/null"; }

libyaml_setup() {
	local d
	d=$(deb_source libyaml) || exit 2
	# The library and its test suite's parse/emit driver (tests/example-reformatter.c: stdin ->
	# events -> stdout); the version macros its CMake build writes to config.h.
	SRCS=("$d"/src/{api,dumper,emitter,loader,parser,reader,scanner,writer}.c "$d/tests/example-reformatter.c")
	CPPFLAGS_P="-I$d/include -DYAML_DECLARE_STATIC -DYAML_VERSION_MAJOR=0 -DYAML_VERSION_MINOR=2"
	CPPFLAGS_P="$CPPFLAGS_P -DYAML_VERSION_PATCH=5 -DYAML_VERSION_STRING=\"0.2.5\"" LDLIBS_P=""
	gen_input "$BENCH_WORK/yaml-train-config.yaml" yaml-gen.awk N=60000 S=1 M=config
	gen_input "$BENCH_WORK/yaml-train-records.yaml" yaml-gen.awk N=15000 S=3 M=records
	gen_input "$BENCH_WORK/yaml-eval-records.yaml" yaml-gen.awk N=40000 S=2 M=records
}
# Training: a block-style configuration (yaml-gen.awk config, seed 1) and, as for expat, a smaller
# file of the evaluation's shape with another seed; evaluation: records (flow collections,
# anchors, tags, folded scalars), seed 2.
libyaml_train() {
	local i
	for i in 1 2; do
		"$1" <"$BENCH_WORK/yaml-train-config.yaml" >/dev/null && "$1" <"$BENCH_WORK/yaml-train-records.yaml" >/dev/null ||
			return 1
	done
}
libyaml_eval() { echo "$1" "<$BENCH_WORK/yaml-eval-records.yaml" ">/dev/null"; }

m4_setup() {
	local d c=$BENCH_WORK/m4-cfg f
	d=$(deb_source m4) || exit 2
	need_pkgs autoconf
	# lib/config.h from its configure and its gnulib library (lib/libm4.a, built once by its
	# Makefile with its own -O2: the same in every build; regex, obstack and hash are there), src/*.c
	# compiled by the bench.
	if [ ! -s "$c/lib/libm4.a" ]; then
		mkdir -p "$c"
		# (Debian's patches leave configure.ac newer than Makefile.in: without the tool overrides
		# make would rerun automake and autoconf in the source tree.)
		(cd "$c" && "$d/configure" --disable-nls >configure.log 2>&1 &&
			make -C lib ACLOCAL=true AUTOCONF=true AUTOMAKE=true AUTOHEADER=true >make.log 2>&1) ||
			die "m4: configure failed (see $c/*.log)"
	fi
	SRCS=()
	for f in m4 builtin debug eval format freeze input macro output path symtab; do SRCS+=("$d/src/$f.c"); done
	CPPFLAGS_P="-I$c/lib -I$d/lib" LDLIBS_P="$c/lib/libm4.a"
	M4_TRAIN="$d $(deb_source flex)" M4_EVAL="$(deb_source pcre2 10.42-1) $(deb_source libxml2)" || exit 2
	export M4_TRAIN M4_EVAL
}
# m4 as autoconf runs it (autom4te's command line: autoconf's frozen state, traces into a debug
# file) on the configure.ac of Debian sources: training on m4's own (gnulib, 1.6 s) and flex's,
# twice; evaluation on pcre2's and libxml2's.
m4_autoconf() {
	(cd "$2" && "$1" --nesting-limit=1024 --gnu --include=/usr/share/autoconf --debug=aflq \
		--debugfile="$BENCH_WORK/m4-traces" --trace=AC_CONFIG_FILES --trace=AC_CONFIG_HEADERS \
		--trace=AC_DEFINE_TRACE_LITERAL --trace=AC_INIT --trace=AC_SUBST --trace=AC_SUBST_TRACE --trace=AH_OUTPUT \
		--trace=AM_CONDITIONAL --trace=AM_INIT_AUTOMAKE --trace=LT_INIT --trace=_m4_warn --trace=include \
		--trace=m4_include --trace=m4_pattern_allow --trace=m4_pattern_forbid --trace=sinclude \
		--reload-state=/usr/share/autoconf/autoconf/autoconf.m4f --undefine=__m4_version__ aclocal.m4 \
		/usr/share/autoconf/autoconf/trailer.m4 configure.ac >/dev/null 2>&1)
}
m4_train() {
	local i s
	for i in 1 2; do
		for s in $M4_TRAIN; do m4_autoconf "$1" "$s" || return 1; done
	done
}
m4_eval() {
	printf '%s\n' "$(declare -f m4_autoconf)" 'set -e; BENCH_WORK=$2; m4_autoconf "$1" "$3"; m4_autoconf "$1" "$4"' \
		>"$BENCH_WORK/m4-eval.sh"
	echo bash "$BENCH_WORK/m4-eval.sh" "$1" "$BENCH_WORK" $M4_EVAL
}

# xml_docs: the generated XML documents of expat's benchmark (xml-gen.awk), shared with libxml2.
xml_docs() {
	mkdir -p "$BENCH_WORK/xml-out"
	gen_input "$BENCH_WORK/xml-train-catalog.xml" xml-gen.awk N=150000 S=1 M=catalog
	gen_input "$BENCH_WORK/xml-train-feed.xml" xml-gen.awk N=40000 S=3 M=feed
	gen_input "$BENCH_WORK/xml-eval-feed.xml" xml-gen.awk N=90000 S=2 M=feed
}

libxml2_setup() {
	local d c=$BENCH_WORK/libxml2-cfg f
	d=$(deb_source libxml2) || exit 2
	# config.h and include/libxml/xmlversion.h from its configure (no threads, zlib, lzma, ICU,
	# HTTP, FTP, readline, Python), the library's sources of its Makefile, and xmllint.
	if [ ! -s "$c/include/libxml/xmlversion.h" ]; then
		mkdir -p "$c"
		(cd "$c" && "$d/configure" --without-python --without-zlib --without-lzma --without-icu --without-threads \
			--without-http --without-ftp --without-readline --without-history --disable-shared >configure.log 2>&1) ||
			die "libxml2: configure failed (see $c/configure.log)"
	fi
	SRCS=("$d/xmllint.c")
	for f in SAX entities encoding error parserInternals parser tree hash list xmlIO xmlmemory uri valid xlink \
		HTMLparser HTMLtree debugXML xpath xpointer xinclude nanohttp nanoftp catalog globals threads c14n \
		xmlstring buf xmlregexp xmlschemas xmlschemastypes xmlunicode xmlreader relaxng dict SAX2 xmlwriter \
		legacy chvalid pattern xmlsave xmlmodule schematron xzlib; do SRCS+=("$d/$f.c"); done
	CPPFLAGS_P="-DHAVE_CONFIG_H -I$c -I$c/include -I$d/include" LDLIBS_P="-lm"
	xml_docs libxml2
}
# The documents of expat's benchmark. Training: xmllint parses the catalog document (internal
# DTD subset, entities), evaluates an XPath sum over it and re-indents (--format) the smaller feed
# document of another seed; evaluation: --format of the larger feed document (seed 2).
libxml2_train() {
	"$1" --noout "$BENCH_WORK/xml-train-catalog.xml" &&
		"$1" --xpath 'sum(//price)' "$BENCH_WORK/xml-train-catalog.xml" >/dev/null &&
		"$1" --format "$BENCH_WORK/xml-train-feed.xml" >/dev/null
}
libxml2_eval() { echo "$1" --format "$BENCH_WORK/xml-eval-feed.xml" ">/dev/null"; }

flex_setup() {
	local d c=$BENCH_WORK/flex-cfg f
	d=$(deb_source flex) || exit 2
	# src/config.h from its configure; the flex program's sources (parse.c, scan.c and skel.c are
	# generated in the source package). flex pipes its output through m4 (a child process, in
	# the CPU time of every build alike).
	if [ ! -s "$c/src/config.h" ]; then
		mkdir -p "$c"
		(cd "$c" && "$d/configure" --disable-nls --disable-shared >configure.log 2>&1) ||
			die "flex: configure failed (see $c/configure.log)"
	fi
	SRCS=()
	for f in buf ccl dfa ecs filter gen main misc nfa options parse regex scan scanflags scanopt skel sym tables \
		tables_shared tblcmp yylex; do SRCS+=("$d/src/$f.c"); done
	# -fno-tree-loop-vectorize in all four builds: gcc 12.2 stops with an internal compiler error
	# (SIGFPE in the vect pass, tblcmp.c mktemplate) on one of our AutoFDO profiles (docs/decisions-convert.md).
	CPPFLAGS_P="-DHAVE_CONFIG_H -DLOCALEDIR=\"/usr/share/locale\" -I$c/src -I$d/src -fno-tree-loop-vectorize" LDLIBS_P="-lm"
	gen_input "$BENCH_WORK/flex-train-keywords.l" flex-gen.awk N=3000 S=1 M=keywords
	gen_input "$BENCH_WORK/flex-train-patterns.l" flex-gen.awk N=300 S=3 M=patterns
	gen_input "$BENCH_WORK/flex-eval-patterns.l" flex-gen.awk N=280 S=2 M=patterns
}
# Scanner specifications (flex-gen.awk; flex's time grows faster than linearly with the pattern
# rules): training on a keyword-heavy language lexer (3000 rules, seed 1) with the default table
# compression and full tables (-Cf), and, as for expat, a pattern-rule spec of another seed (300
# rules, seed 3) with the default and with -Cem; evaluation: 280 pattern rules, seed 2, default.
flex_train() {
	"$1" -o "$BENCH_WORK/flex-out.c" "$BENCH_WORK/flex-train-keywords.l" &&
		"$1" -Cf -o "$BENCH_WORK/flex-out.c" "$BENCH_WORK/flex-train-keywords.l" &&
		"$1" -o "$BENCH_WORK/flex-out.c" "$BENCH_WORK/flex-train-patterns.l" &&
		"$1" -Cem -o "$BENCH_WORK/flex-out.c" "$BENCH_WORK/flex-train-patterns.l"
}
flex_eval() { echo "$1" -o "$BENCH_WORK/flex-out.c" "$BENCH_WORK/flex-eval-patterns.l"; }

cjson_setup() {
	local d
	d=$(deb_source cjson) || exit 2
	# The library and its fuzzing driver (fuzzing/afl.c: reads one file, parses it, prints it back
	# as the file's first two characters say).
	SRCS=("$d/cJSON.c" "$d/fuzzing/afl.c") CPPFLAGS_P="-I$d" LDLIBS_P="-lm"
	# Training: jq's orders (orders-gen.awk, seed 1) as one array, printed buffered and formatted,
	# and a GeoJSON-like collection (json-gen.awk, seed 3) printed unformatted; evaluation: a
	# larger collection of seed 2.
	[ -s "$BENCH_WORK/cjson-train-orders.json" ] || awk -v N=40000 -v S=1 -f "$INPUTS/orders-gen.awk" |
		awk 'BEGIN { printf "bf[" } { printf "%s%s", (NR > 1 ? "," : ""), $0 } END { print "]" }' \
		>"$BENCH_WORK/cjson-train-orders.json" || die "cjson: orders-gen.awk failed"
	gen_input "$BENCH_WORK/cjson-train-geo.json" json-gen.awk N=30000 S=3 F=uu
	gen_input "$BENCH_WORK/cjson-eval-geo.json" json-gen.awk N=25000 S=2 F=uu
}
cjson_train() {
	local i
	for i in 1 2; do
		"$1" "$BENCH_WORK/cjson-train-orders.json" yes >/dev/null &&
			"$1" "$BENCH_WORK/cjson-train-geo.json" yes >/dev/null || return 1
	done
}
cjson_eval() { echo "$1" "$BENCH_WORK/cjson-eval-geo.json" yes ">/dev/null"; }

zlib_setup() {
	local d
	d=$(deb_source zlib) || exit 2
	# The library and its test/minigzip.c (gzip-like command line: -1..-9, -d, -c).
	SRCS=("$d"/{adler32,compress,crc32,deflate,gzclose,gzlib,gzread,gzwrite,infback,inffast,inflate,inftrees,trees,uncompr,zutil}.c
		"$d/test/minigzip.c")
	CPPFLAGS_P="-I$d -D_LARGEFILE64_SOURCE=1 -DHAVE_HIDDEN" LDLIBS_P=""
	comp_files zlib 10000000
}
# As for the other compressors: level 6 (gzip's default) on the headers tar, compress and
# decompress 8 times; evaluation: the first 10 MB of cc1 (minigzip has no -q: own commands).
zlib_data() { "$BENCH_WORK/build/zlib/base/prog" -6 -c "$COMP_EVAL" >"$COMP_EVAL.gz" || die "zlib: cannot compress $COMP_EVAL"; }
zlib_train() {
	local i
	for i in $(seq 1 8); do
		"$1" -6 -c "$COMP_TRAIN" >"$COMP_TRAIN.gz" && "$1" -d -c "$COMP_TRAIN.gz" >/dev/null || return 1
	done
}
zlib_eval() {
	printf '%s\n' 'set -e; "$1" -6 -c "$2" >/dev/null; "$1" -d -c "$2.gz" >/dev/null' >"$BENCH_WORK/zlib-eval.sh"
	echo sh "$BENCH_WORK/zlib-eval.sh" "$1" "$COMP_EVAL"
}

dash_setup() {
	local d c=$BENCH_WORK/dash-cfg f
	d=$(deb_source dash) || exit 2
	# config.h from its configure and the sources its Makefile generates with its own helper
	# programs (builtins, init, nodes, signames, syntax, tokens); Debian's priv.c is in the list
	# (its Makefile.in predates the patch that adds it).
	if [ ! -s "$c/src/syntax.c" ]; then
		mkdir -p "$c"
		(cd "$c" && "$d/configure" >configure.log 2>&1 &&
			make -C src ACLOCAL=true AUTOCONF=true AUTOMAKE=true AUTOHEADER=true builtins.h builtins.c init.c nodes.h \
				nodes.c signames.c syntax.h syntax.c token.h token_vars.h >make.log 2>&1) ||
			die "dash: cannot generate its sources (see $c/*.log)"
	fi
	SRCS=()
	for f in alias arith_yacc arith_yylex cd error eval exec expand histedit input jobs mail main memalloc miscbltin \
		mystring options parser priv redir show trap output bltin/printf system bltin/test bltin/times var; do
		SRCS+=("$d/src/$f.c")
	done
	for f in builtins init nodes signames syntax; do SRCS+=("$c/src/$f.c"); done
	CPPFLAGS_P="-include $c/config.h -DBSD=1 -DSHELL -I$c/src -I$d/src" LDLIBS_P=""
}
# Shell scripts of builtins only (no fork in the loops): train.dash 24 (arithmetic loops, a
# recursive function, ${x%%pat} expansions, case, printf, test); evaluation: eval.dash 14 (a
# sieve through eval, string reversal, a read loop over a here-document, getopts, shift).
dash_train() { "$1" "$INPUTS/train.dash" 24 >/dev/null; }
dash_eval() { echo "$1" "$INPUTS/eval.dash" 14 ">/dev/null"; }

yajl_setup() {
	local d c=$BENCH_WORK/yajl-cfg
	d=$(deb_source yajl) || exit 2
	# The library and its json_reformat tool (stdin -> stdout); the public headers where its CMake
	# build puts them (include/yajl/) with the yajl_version.h it generates.
	if [ ! -s "$c/include/yajl/yajl_version.h" ]; then
		mkdir -p "$c/include/yajl"
		cp "$d"/src/api/*.h "$c/include/yajl/" &&
			sed 's/${YAJL_MAJOR}/2/; s/${YAJL_MINOR}/1/; s/${YAJL_MICRO}/0/' "$d/src/api/yajl_version.h.cmake" \
				>"$c/include/yajl/yajl_version.h" || die "yajl: cannot write $c/include"
	fi
	SRCS=("$d"/src/{yajl,yajl_alloc,yajl_buf,yajl_encode,yajl_gen,yajl_lex,yajl_parser,yajl_tree,yajl_version}.c
		"$d/reformatter/json_reformat.c")
	CPPFLAGS_P="-I$c/include -I$d/src" LDLIBS_P=""
	# Training: jq's orders as a stream of documents (-s), beautified, and a GeoJSON-like
	# collection (json-gen.awk, seed 3) minimised (-m); evaluation: a collection of seed 2, beautified.
	gen_input "$BENCH_WORK/yajl-train-orders.json" orders-gen.awk N=60000 S=1
	gen_input "$BENCH_WORK/yajl-train-geo.json" json-gen.awk N=30000 S=3 F=
	gen_input "$BENCH_WORK/yajl-eval-geo.json" json-gen.awk N=100000 S=2 F=
}
yajl_train() {
	local i
	for i in 1 2 3 4 5; do
		"$1" -s <"$BENCH_WORK/yajl-train-orders.json" >/dev/null &&
			"$1" -m <"$BENCH_WORK/yajl-train-geo.json" >/dev/null || return 1
	done
}
yajl_eval() { echo "$1" "<$BENCH_WORK/yajl-eval-geo.json" ">/dev/null"; }

# orig_source PKG TARBALL DIR: the upstream tarball of PKG when its Debian source is incomplete on
# the mirror here (the debian.tar is 404, the orig tarball is not): unpacked once under
# $BENCH_WORK/src; prints the directory (DIR, as the tarball names it).
orig_source() {
	local pkg=$1 tb=$2 d=$BENCH_WORK/src/$3 s=$BENCH_WORK/src
	if [ ! -d "$d" ]; then
		need_pkgs dpkg-dev
		enable_deb_src
		[ -s "$s/$tb" ] || (cd "$s" && apt-get source -q --download-only "$pkg" >/dev/null 2>&1)
		[ -s "$s/$tb" ] && tar -C "$s" -xf "$s/$tb" || die "$pkg: cannot fetch or unpack $tb"
	fi
	printf '%s\n' "$d"
}

clips_setup() {
	local d
	# clips 6.30-4.1: the debian.tar is 404 on the mirror here, the orig tarball (CLIPS 6.30 core) is
	# not; Debian's patches (shared library, packaging) are not applied. Its makefile.gcc's objects
	# are all of core/*.c; -DLINUX=1 selects the Unix system layer (setup.h).
	d=$(orig_source clips clips_6.30.orig.tar.gz clips_core_source_630) || exit 2
	SRCS=("$d"/core/*.c) CPPFLAGS_P="-DLINUX=1 -I$d/core" LDLIBS_P="-lm"
}
# bench/inputs/train.clp 5 times (a rule chain with modify, a three-way join over number facts,
# recursive deffunctions, strings and multifields, COOL instances with a message handler);
# evaluation: eval.clp, another program (a sieve by retraction, towers of Hanoi on a goal stack, a
# bubble sort by rules, a float loop, polymorphic handlers).
clips_train() { local i; for i in 1 2 3 4 5; do "$1" -f2 "$INPUTS/train.clp" >/dev/null || return 1; done; }
clips_eval() { echo "$1" -f2 "$INPUTS/eval.clp" ">/dev/null"; }

mksh_setup() {
	local d c=$BENCH_WORK/mksh-cfg f
	d=$(deb_source mksh) || exit 2
	# Its Build.sh probes the system and generates rlimits.gen, sh_flags.gen and ulimits.gen; its
	# own compile then stops at sh.h's "Use the documented way to build this" (Debian's rules define
	# MKSH_BUILDMEAT), which does not matter: the probed -D flags are taken from the Rebuild.sh it
	# writes, with MKSH_BUILDMEAT and its semantic flags (-fwrapv -fno-strict-aliasing), not its
	# -fno-asynchronous-unwind-tables (which would leave the profile without CFI to unwind).
	if [ ! -s "$c/cppflags" ]; then
		mkdir -p "$c"
		(cd "$c" && CC=gcc CFLAGS="-O2 -g" sh "$d/Build.sh" -r >build.log 2>&1)
		[ -s "$c/sh_flags.gen" ] && [ -s "$c/Rebuild.sh" ] || die "mksh: Build.sh generated nothing (see $c/build.log)"
		grep -m1 ' -c .*/lalloc\.c' "$c/Rebuild.sh" | grep -o -- ' -D[^ ]*' | tr -d '\n' >"$c/cppflags.tmp" &&
			mv "$c/cppflags.tmp" "$c/cppflags" || die "mksh: no compile line in $c/Rebuild.sh"
	fi
	SRCS=()
	for f in lalloc edit eval exec expr funcs histrap jobs lex main misc shf syn tree var strlcpy ulimit; do
		SRCS+=("$d/$f.c")
	done
	CPPFLAGS_P="$(cat "$c/cppflags") -DMKSH_BUILDMEAT -fwrapv -fno-strict-aliasing -I$c -I$d" LDLIBS_P=""
}
# The same scripts as dash (POSIX sh, builtins only, different programs): train.dash 24, eval.dash 14.
mksh_train() { "$1" "$INPUTS/train.dash" 24 >/dev/null; }
mksh_eval() { echo "$1" "$INPUTS/eval.dash" 14 ">/dev/null"; }

pforth_setup() {
	local d c=$BENCH_WORK/pforth-cfg f
	# pforth 2.0.1-1: the debian.tar is 404 on the mirror here, the orig tarball is not (Debian's
	# patches, packaging only, not applied). The interpreter (platforms/unix/Makefile's PFSOURCE,
	# its -D flags) runs with a dictionary (pforth.dic) that its make builds once in a copy of the
	# source from fth/system.fth; the dictionary holds Forth code only, the same for every build.
	d=$(orig_source pforth pforth_2.0.1.orig.tar.gz pforth-2.0.1) || exit 2
	if [ ! -s "$c/pforth.dic" ]; then
		rm -rf "$c" && mkdir -p "$c" && cp -r "$d" "$c/src" &&
			make -C "$c/src/platforms/unix" pforth.dic >"$c/make.log" 2>&1 &&
			cp "$c/src/platforms/unix/pforth.dic" "$c/pforth.dic" || die "pforth: cannot build its dictionary (see $c/make.log)"
	fi
	SRCS=()
	for f in pf_cglue pf_clib pf_core pf_inner pf_io pf_io_none pf_main pf_mem pf_save pf_text pf_words pfcompil \
		pfcustom posix/pf_io_posix stdio/pf_fileio_stdio; do
		SRCS+=("$d/csrc/$f.c")
	done
	CPPFLAGS_P="-DPF_SUPPORT_FP -D_DEFAULT_SOURCE -D_GNU_SOURCE -I$d/csrc" LDLIBS_P="-lm"
}
# bench/inputs/train.fth (recursion, nested DO loops, an LCG, gcd, Collatz, MOVE/COMPARE, float
# sums) 4 rounds; evaluation: eval.fth, another program (a sieve, an insertion sort, Ackermann,
# a CASE dispatcher, a Mandelbrot set in floats) 3 rounds.
pforth_train() { "$1" -q -d "$BENCH_WORK/pforth-cfg/pforth.dic" "$INPUTS/train.fth" >/dev/null; }
pforth_eval() { echo "$1" -q -d "$BENCH_WORK/pforth-cfg/pforth.dic" "$INPUTS/eval.fth" ">/dev/null"; }

bash_setup() {
	local d c=$BENCH_WORK/bash-cfg f b
	local defs="alias bind break builtin caller cd colon command declare echo enable eval exec exit fc fg_bg hash help
		history jobs kill let mapfile pushd read return set setattr shift source suspend test times trap type ulimit umask
		wait getopts shopt printf complete"
	d=$(deb_source bash) || exit 2
	# configure (no bash malloc, no NLS, termcap) and make once: config.h, the generated sources
	# (syntax.c, builtins.c, version.h, pathnames.h) and the libraries its make builds (glob, sh,
	# readline, history, tilde: the same -g -O2 object code in all builds). Then the builtins'
	# .c files from their .def (mkbuiltins; make deletes them as intermediates), compiled through
	# wrappers bi_*.c since eval, test, jobs, alias and trap are also names of the shell's own files.
	if [ ! -s "$c/bi/bi_complete.c" ]; then
		rm -rf "$c" && mkdir -p "$c/bi"
		(cd "$c" && "$d/configure" --without-bash-malloc --disable-nls --without-curses >configure.log 2>&1 &&
			make >make.log 2>&1 && make -C builtins $(for b in $defs; do printf '%s.c ' "$b"; done) >gen.log 2>&1) ||
			die "bash: cannot configure or make it (see $c/*.log)"
		for b in $defs; do printf '#include "%s"\n' "$c/builtins/$b.c" >"$c/bi/bi_$b.c"; done
	fi
	SRCS=()
	for f in shell eval y.tab general make_cmd print_cmd dispose_cmd execute_cmd variables copy_cmd error expr flags jobs \
		subst hashcmd hashlib mailcheck trap input unwind_prot pathexp sig test version alias array arrayfunc assoc braces \
		bracecomp bashhist bashline list stringlib locale findcmd redir pcomplete pcomplib xmalloc; do
		SRCS+=("$d/$f.c")
	done
	SRCS+=("$c/syntax.c" "$c/builtins/builtins.c")
	for f in common evalfile evalstring getopt bashgetopt; do SRCS+=("$d/builtins/$f.c"); done
	for b in $defs; do SRCS+=("$c/bi/bi_$b.c"); done
	CPPFLAGS_P="-DPROGRAM=\"bash\" -DCONF_HOSTTYPE=\"x86_64\" -DCONF_OSTYPE=\"linux-gnu\" -DCONF_MACHTYPE=\"x86_64-pc-linux-gnu\"
		-DCONF_VENDOR=\"pc\" -DLOCALEDIR=\"/usr/local/share/locale\" -DPACKAGE=\"bash\" -DSHELL -DHAVE_CONFIG_H
		-I$c -I$c/builtins -I$d -I$d/include -I$d/lib -I$d/builtins"
	LDLIBS_P="-rdynamic -L$c/lib/glob -L$c/lib/sh -L$c/lib/readline -L$c/lib/tilde -lglob -lsh -lreadline -lhistory
		-ltermcap -ltilde -ldl"
}
# The same scripts as dash and mksh (POSIX sh, builtins only, different programs): train.dash 24,
# eval.dash 12 (bash is slower than dash).
bash_train() { "$1" "$INPUTS/train.dash" 24 >/dev/null; }
bash_eval() { echo "$1" "$INPUTS/eval.dash" 12 ">/dev/null"; }

python3.11_setup() {
	local d c=$BENCH_WORK/py-cfg
	# python3.11 3.11.2-6+deb12u8: the dsc and debian.tar of the security update are 404 on the mirror
	# here, the orig tarball is not (Debian's patches not applied). configure (no ensurepip, no
	# docstrings) and `make python` once at -O0 (that build only generates sources: the frozen and
	# deep-frozen modules, Modules/config.c from Modules/Setup.bootstrap's core modules). Then the
	# objects `make python` links (LIBRARY_OBJS + Programs/python.o), each compiled through a wrapper
	# that #defines the -D flags of its compile line in make.log (Py_BUILD_CORE or
	# Py_BUILD_CORE_BUILTIN, install paths) and #includes it: one set of flags for all builds, as
	# build() wants. The interpreter finds its Lib/ through PYTHONHOME ($c/home/lib/python3.11).
	d=$(orig_source python3.11 python3.11_3.11.2.orig.tar.gz Python-3.11.2) || exit 2
	if [ ! -x "$c/python" ]; then
		rm -rf "$c" && mkdir -p "$c"
		(cd "$c" && "$d/configure" --without-ensurepip --without-doc-strings >configure.log 2>&1 &&
			make -j2 OPT="-DNDEBUG -fwrapv -O0" python >make.log 2>&1) || die "python3.11: cannot configure or make it (see $c/*.log)"
	fi
	if [ ! -s "$c/w/list" ]; then
		need_pkgs python3
		rm -rf "$c/w" "$c/home" && mkdir -p "$c/w" "$c/home/lib/python3.11/lib-dynload"
		cp -r "$d"/Lib/. "$c/home/lib/python3.11/"
		(cd "$c" && printf 'show:\n\t@echo $(LIBRARY_OBJS) Programs/python.o\n' | make -s -f Makefile -f - show) >"$c/w/objs" &&
		python3 "$INPUTS/py-wrappers.py" "$c" "$d" || die "python3.11: cannot write the wrappers (see $c/make.log)"
	fi
	mapfile -t SRCS <"$c/w/list"
	CPPFLAGS_P="-fwrapv -std=c11 -fvisibility=hidden $(cat "$c/w/incs")"
	LDLIBS_P="-Xlinker -export-dynamic -ldl -lm"
}
# Pure-Python programs, builtins only, without site (-S): bench/inputs/train.py 80 rounds (recursion,
# dicts, strings, classes with inheritance and properties, generators, exceptions, sorting);
# evaluation: eval.py 10 rounds, another program (an n-body simulation, a richards-style task
# scheduler, a tokenizer and recursive-descent evaluator, a sieve with slices and sets).
python3.11_train() { PYTHONHOME=$BENCH_WORK/py-cfg/home "$1" -S "$INPUTS/train.py" 80 >/dev/null; }
python3.11_eval() { echo env PYTHONHOME="$BENCH_WORK/py-cfg/home" "$1" -S "$INPUTS/eval.py" 10 ">/dev/null"; }

# ---- builds

# build P VARIANT FLAGS...: compile every source of P to $BUILD_DIR/P/VARIANT/*.o (2 jobs) with
# $COMPILER, link prog.
build() {
	local p=$1 v=$2 d; shift 2
	d=$BUILD_DIR/$p/$v
	mkdir -p "$d"
	rm -f "$d"/*.o "$d/prog"
	local flags="-O2 -g $CC_FLAGS $* $CPPFLAGS_P"
	printf '%s\n' "${SRCS[@]}" | D=$d FLAGS=$flags CC_B=$COMPILER xargs -P 2 -I{} sh -c \
		'$CC_B $FLAGS -w -c "$1" -o "$D/$(basename "$1" .c).o"' _ {} || die "$p/$v: compile failed"
	$COMPILER -O2 -g $CC_FLAGS "$@" -o "$d/prog" "$d"/*.o $LDLIBS_P || die "$p/$v: link failed"
}

EMPTY_AFDO=$BENCH_WORK/empty.afdo
# A valid AutoFDO file for gcc 12 with no strings and no functions (autofdo-gcc12-format.md §2).
printf 'adcg\002\0\0\0\0\0\0\0\0\0\0\252\0\0\0\0\0\0\0\0\0\0\0\254\0\0\0\0\0\0\0\0\0\0\0\256\0\0\0\0\0\0\0\0' \
	>"$EMPTY_AFDO"
# clang's control: a sample profile of one function no program has (clang refuses an empty file).
EMPTY_LLVM=$BENCH_WORK/empty.llvm.prof
printf 'pgo_bench_no_such_function:1:1\n 1: 1\n' >"$EMPTY_LLVM"

# record P BIN OUT: sets HOW; profile BIN on the training input, with pgo collect if it is built, else perf record.
# COLLECT_Z (default 1) records with -z: the DWARF stack copies compress about 45x (mujs's
# recording: 760 MB uncompressed, 3.6 MB with -z).
# pgo collect's default --call-graph auto unwinds the -O2 binaries' stacks with DWARF (call targets
# of indirect calls, entry counts); FREQ samples per CPU-second (docs/decisions-convert.md: sparse counts hurt).
# The training runs in a new bash, which gets every function (<p>_train may call shared helpers
# such as awklog_train or comp_train).
record() {
	local p=$1 bin=$2 out=$3
	if pgo_works collect; then
		"$PGO" collect ${COLLECT_Z:+-z} -F "$FREQ" ${TRAIN_RUNS:+-r $TRAIN_RUNS} ${STACK_P:+--call-graph dwarf,$STACK_P} \
			-q -o "$out" -- bash -c "$(declare -f); ${p}_train '$bin'" >/dev/null ||
			die "$p: pgo collect failed"
		HOW="pgo collect${COLLECT_Z:+ -z} -F $FREQ${TRAIN_RUNS:+ -r $TRAIN_RUNS}${STACK_P:+ --call-graph dwarf,$STACK_P}"
	else
		perf record -q -e task-clock -F "$FREQ" --call-graph dwarf${STACK_P:+,$STACK_P} -o "$out" -- \
			bash -c "$(declare -f); ${p}_train '$bin'" \
			>/dev/null 2>"$out.log" || { cat "$out.log" >&2; die "$p: perf record failed"; }
		HOW="perf record -e task-clock -F $FREQ --call-graph dwarf${STACK_P:+,$STACK_P} (pgo collect not built)"
	fi
}

# ---- a SAT solver, an HTML cleaner, an LP/MIP solver

picosat_setup() {
	local d c=$BENCH_WORK/picosat-cfg s
	d=$(deb_source picosat) || exit 2
	# Its makefile's picosat program (picosat.c version.c app.c main.c); config.h is what its
	# mkconfig.sh writes (the compiler and flags as strings, the version); -DNDEBUG as its
	# configure.sh's optimised build (Debian's).
	if [ ! -s "$c/config.h" ]; then
		mkdir -p "$c"
		printf '#define PICOSAT_CC "gcc"\n#define PICOSAT_CFLAGS "-O2 -g -DNDEBUG"\n#define PICOSAT_VERSION "%s"\n' \
			"$(cat "$d/VERSION")" >"$c/config.h" || die "picosat: cannot write $c/config.h"
	fi
	SRCS=("$d"/{picosat,version,app,main}.c)
	CPPFLAGS_P="-DNDEBUG -I$c -I$d" LDLIBS_P=""
	# Random 3-SAT at the phase transition (cnf-gen.awk), a mix of SAT and UNSAT instances:
	# training 240 variables, ratio 4.26, seeds 1-8; evaluation 215 variables, ratio 4.3, seeds 101-106.
	for s in 1 2 3 4 5 6 7 8; do gen_input "$BENCH_WORK/picosat-train-$s.cnf" cnf-gen.awk N=240 R=4.26 S=$s; done
	for s in 101 102 103 104 105 106; do gen_input "$BENCH_WORK/picosat-eval-$s.cnf" cnf-gen.awk N=215 R=4.3 S=$s; done
	# picosat exits 10 (satisfiable) or 20 (unsatisfiable): anything else is a failure.
	printf '%s\n' 'b=$1; shift; for f in "$@"; do "$b" "$f" >/dev/null; s=$?; [ $s = 10 ] || [ $s = 20 ] || exit 1; done' \
		>"$BENCH_WORK/picosat-run.sh"
}
picosat_train() { sh "$BENCH_WORK/picosat-run.sh" "$1" "$BENCH_WORK"/picosat-train-[1-8].cnf; }
picosat_eval() { echo sh "$BENCH_WORK/picosat-run.sh" "$1" "$BENCH_WORK"/picosat-eval-10[1-6].cnf; }

tidy-html5_setup() {
	local d t
	d=$(deb_source tidy-html5) || exit 2
	# Its CMakeLists.txt's library sources (CFILES) and console/tidy.c, with the -D flags its cmake
	# adds on Linux (localisations, console app, getpwnam, version and date from version.txt);
	# without TIDY_ENABLE_CONFIG_FILES (Debian's build reads /etc/tidy.conf: not wanted in a benchmark).
	SRCS=()
	for t in access attrs istack parser tags entities lexer pprint charsets clean message config alloc attrdict \
		buffio fileio streamio tagask tmbstr utf8 tidylib mappedio gdoc language messageobj sprtf; do
		SRCS+=("$d/src/$t.c")
	done
	SRCS+=("$d/console/tidy.c")
	CPPFLAGS_P="-DSUPPORT_LOCALIZATIONS=1 -DSUPPORT_CONSOLE_APP=1 -D_REENTRANT -DLIBTIDY_VERSION=\"5.6.0\"
		-DRELEASE_DATE=\"2017/11/25\" -DSUPPORT_GETPWNAM=1 -I$d/include -I$d/src" LDLIBS_P=""
	# Messy HTML from html-gen.awk: training an article page (K=doc, seed 1) and a catalogue page
	# (K=table, seed 3), 5000 sections each; evaluation both kinds interleaved (K=mix, 4000), seed 2.
	gen_input "$BENCH_WORK/tidy-train-doc.html" html-gen.awk N=5000 S=1 K=doc
	gen_input "$BENCH_WORK/tidy-train-table.html" html-gen.awk N=5000 S=3 K=table
	gen_input "$BENCH_WORK/tidy-eval-mix.html" html-gen.awk N=4000 S=2 K=mix
	# tidy exits 1 after warnings, 2 after errors (the output is forced): anything else is a failure.
	printf '%s\n' 'b=$1; shift; "$b" -q --force-output yes -f /dev/null "$@" >/dev/null; s=$?; [ $s -le 2 ]' \
		>"$BENCH_WORK/tidy-run.sh"
}
# Training: the article page indented (-i), the catalogue page indented as XHTML (-asxhtml),
# three times each (not -clean: its style-to-class pass is quadratic in the number of distinct
# inline styles, 39 s for 2000 sections); evaluation: the mixed page, -i.
tidy-html5_train() {
	local i
	for i in 1 2 3; do
		sh "$BENCH_WORK/tidy-run.sh" "$1" -i "$BENCH_WORK/tidy-train-doc.html" &&
			sh "$BENCH_WORK/tidy-run.sh" "$1" -i -asxhtml "$BENCH_WORK/tidy-train-table.html" || return 1
	done
}
tidy-html5_eval() { echo sh "$BENCH_WORK/tidy-run.sh" "$1" -i "$BENCH_WORK/tidy-eval-mix.html"; }

glpk_setup() {
	local d c=$BENCH_WORK/glpk-cfg f x inc=""
	d=$(deb_source glpk) || exit 2
	# glpsol: the library's sources as Debian's patched src/Makefile.am lists them, plus the
	# source's own AMD and COLAMD (Debian links SuiteSparse's instead: the same code, used by
	# --interior only) and examples/glpsol.c; the system zlib as in Debian. config.h by hand:
	# the three things its configure finds here (sys/time.h, gettimeofday, the TLS keyword).
	if [ ! -s "$c/config.h" ]; then
		mkdir -p "$c"
		printf '#define HAVE_SYS_TIME_H 1\n#define HAVE_GETTIMEOFDAY 1\n#define TLS _Thread_local\n' >"$c/config.h" ||
			die "glpk: cannot write $c/config.h"
	fi
	SRCS=()
	for f in $(awk '/^libglpk_la_SOURCES/ { f = 1; next } f && /^$/ { exit } f { sub(/\\/, ""); print }' \
		"$d/src/Makefile.am"); do
		SRCS+=("$d/src/$f")
	done
	SRCS+=("$d"/src/amd/*.c "$d/src/colamd/colamd.c" "$d/examples/glpsol.c")
	for x in "" amd api bflib colamd draft env intopt minisat misc mpl npp proxy simplex; do inc="$inc -I$d/src/$x"; done
	CPPFLAGS_P="-DHAVE_CONFIG_H -I$c$inc" LDLIBS_P="-lz -lm"
	# Models in CPLEX LP format from lp-gen.awk, different families: training a multidimensional
	# knapsack (120 items, 25 rows), two weighted set covers (500 sets, 400 elements, seeds 1 and
	# 3) and a 250 x 250 transportation LP; evaluation a capacitated facility location MIP
	# (32 facilities, 130 customers), seed 2.
	gen_input "$BENCH_WORK/glpk-train-mkp.lp" lp-gen.awk K=mkp N=120 M=25 S=2
	gen_input "$BENCH_WORK/glpk-train-sc1.lp" lp-gen.awk K=setcover N=500 M=400 S=1
	gen_input "$BENCH_WORK/glpk-train-sc3.lp" lp-gen.awk K=setcover N=500 M=400 S=3
	gen_input "$BENCH_WORK/glpk-train-tr.lp" lp-gen.awk K=transport N=250 M=250 S=1
	gen_input "$BENCH_WORK/glpk-eval-fl.lp" lp-gen.awk K=facility N=32 M=130 S=2
}
glpk_train() {
	local f
	for f in mkp sc1 sc3 tr; do "$1" --lp "$BENCH_WORK/glpk-train-$f.lp" >/dev/null || return 1; done
}
glpk_eval() { echo "$1" --lp "$BENCH_WORK/glpk-eval-fl.lp" ">/dev/null"; }

# ---- perl

perl_setup() {
	local d c=$BENCH_WORK/perl-cfg w=$BENCH_WORK/perl-wrap f
	# perl 5.36.0-7+deb12u3 (the +deb12u4 that apt-cache lists first is 404 on the mirror here).
	d=$(deb_source perl 5.36.0-7+deb12u3) || exit 2
	# Only miniperl (the core interpreter without XS extensions): Configure -des and `make miniperl`
	# once in a copy of the source, for config.h and the headers its build generates (uudmap.h,
	# bitcount.h, mg_data.h); the objects are those of its link line.
	if [ ! -x "$c/miniperl" ]; then
		rm -rf "$c" && cp -a "$d" "$c" || die "perl: cannot copy the source"
		(cd "$c" && sh Configure -des -Dcc=gcc -Doptimize=-O2 -Dprefix="$c/inst" >.pgo-configure.log 2>&1 &&
			make -j2 miniperl >.pgo-make.log 2>&1) || die "perl: Configure or make miniperl failed (see $c/.pgo-*.log)"
	fi
	# opmini.c, perlmini.c and universalmini.c are op.c, perl.c and universal.c compiled with
	# -DPERL_IS_MINIPERL -DPERL_EXTERNAL_GLOB: wrappers that define those and include the original.
	mkdir -p "$w"
	SRCS=()
	for f in $(sed -n '/-o miniperl/{n;p;}' "$c/.pgo-make.log" | tr ' ' '\n' | sed -n 's/\.o$//p' | sort -u); do
		case $f in
		*mini)
			[ "$f" = miniperlmain ] && { SRCS+=("$c/$f.c"); continue; }
			printf '#define PERL_IS_MINIPERL\n#define PERL_EXTERNAL_GLOB\n#include "%s.c"\n' "${f%mini}" >"$w/$f.c"
			SRCS+=("$w/$f.c") ;;
		*) SRCS+=("$c/$f.c") ;;
		esac
	done
	[ ${#SRCS[@]} -gt 30 ] || die "perl: no miniperl link line in $c/.pgo-make.log"
	# Configure's ccflags (without -I/usr/local/include) and -std=c99, as its Makefile compiles them.
	CPPFLAGS_P="-I$c -DPERL_CORE -fwrapv -fno-strict-aliasing -fstack-protector-strong -D_LARGEFILE_SOURCE"
	CPPFLAGS_P="$CPPFLAGS_P -D_FILE_OFFSET_BITS=64 -D_FORTIFY_SOURCE=2 -std=c99"
	# gcc 12.2 stops with an internal compiler error in the vectoriser (sv.c, Perl_sv_vcatpvfn_flags)
	# on the AutoFDO profile of some recordings (docs/decisions-convert.md), as flex's and phalanx's:
	# all builds without it.
	CPPFLAGS_P="$CPPFLAGS_P -fno-tree-loop-vectorize"
	LDLIBS_P="-ldl -lm -lcrypt"
}
# bench/inputs/train.pl 250 rounds (generated text: word counts in a hash, regex matches and
# substitutions, tr, split/join/sprintf records sorted by two keys, closures, recursion, bless'd
# accounts with inheritance); evaluation: eval.pl 100 rounds, another program (a tokenizer and
# recursive-descent evaluator, n-queens through a recursive closure, an LRU cache, a
# Schwartzian-transform sort of polymorphic shapes, a sieve, index/substr/reverse).
perl_train() { "$1" "$INPUTS/train.pl" 250 >/dev/null; }
perl_eval() { echo "$1" "$INPUTS/eval.pl" 100 ">/dev/null"; }

# ---- graphviz, zopfli, tre, gifsicle, cscope, bison

graphviz_setup() {
	local d c=$BENCH_WORK/graphviz-cfg w x f inc
	d=$(deb_source graphviz) || exit 2
	# dot with only its core (renderers: svg, dot, ps...) and dot_layout plugins, linked in: the
	# sources of the libraries those need (cdt cgraph common gvc pathplan xdot label pack ortho
	# dotgen) as their CMakeLists.txt list them. The source has no configure script (Debian runs
	# autoreconf): its CMake build is configured once, for config.h and the generated sources
	# (the cgraph and HTML-label parsers and scanner, colortbl.h, ps_font_equiv.h, ps.h); no ltdl
	# (plugins are the preloaded table below), expat and zlib as in Debian.
	w=$c/wrap
	if [ ! -s "$w/dot_builtins.c" ]; then
		need_pkgs cmake bison flex libexpat1-dev zlib1g-dev
		mkdir -p "$w"
		(cd "$c" && cmake -Denable_ltdl=OFF -Dwith_digcola=OFF -Dwith_sfdp=OFF -DLTDL_INCLUDE_DIR=/usr/include \
			-DLTDL_LIBRARY=m "$d" >cmake.log 2>&1 &&
			for f in lib/cgraph/grammar.c lib/cgraph/scan.c; do
				make -f lib/cgraph/CMakeFiles/cgraph.dir/build.make "$f" || exit 1
			done &&
			for f in lib/common/htmlparse.c lib/common/colortbl.h lib/common/ps_font_equiv.h; do
				make -f lib/common/CMakeFiles/common.dir/build.make "$f" || exit 1
			done &&
			make -f plugin/core/CMakeFiles/gvplugin_core.dir/build.make plugin/core/ps.h) >"$c/make.log" 2>&1 ||
			die "graphviz: cmake or its generated sources failed (see $c/*.log)"
		# The table of built-in plugins (cmd/dot/dot_builtins.c without neato, gd, pango, webp).
		printf '%s\n' '#include "config.h"' '#include "gvplugin.h"' \
			'extern gvplugin_library_t gvplugin_dot_layout_LTX_library;' \
			'extern gvplugin_library_t gvplugin_core_LTX_library;' \
			'lt_symlist_t lt_preloaded_symbols[] = {' \
			'	{ "gvplugin_dot_layout_LTX_library", (void *)&gvplugin_dot_layout_LTX_library },' \
			'	{ "gvplugin_core_LTX_library", (void *)&gvplugin_core_LTX_library },' \
			'	{ 0, 0 }' '};' >"$w/dot_builtins.c.tmp" && mv "$w/dot_builtins.c.tmp" "$w/dot_builtins.c" ||
			die "graphviz: cannot write $w/dot_builtins.c"
	fi
	SRCS=()
	for x in cdt cgraph common gvc pathplan xdot label pack ortho dotgen; do
		for f in $(grep -oE '[A-Za-z0-9_.]+\.c\b' "$d/lib/$x/CMakeLists.txt" | sort -u); do
			case $x/$f in
			cgraph/grammar.c | cgraph/scan.c | common/htmlparse.c) SRCS+=("$c/lib/$x/$f") ;;
			# Two libraries' files of one name (build() names objects by basename): wrappers.
			label/node.c | label/index.c | common/utils.c | cgraph/utils.c)
				printf '#include "%s"\n' "$d/lib/$x/$f" >"$w/${x}_$f"
				SRCS+=("$w/${x}_$f") ;;
			*) SRCS+=("$d/lib/$x/$f") ;;
			esac
		done
	done
	for x in core dot_layout; do
		for f in $(grep -oE '[A-Za-z0-9_.]+\.c\b' "$d/plugin/$x/CMakeLists.txt" | sort -u); do SRCS+=("$d/plugin/$x/$f"); done
	done
	SRCS+=("$d/cmd/dot/dot.c" "$w/dot_builtins.c")
	inc="-I$c -I$c/lib/common -I$c/lib/cgraph -I$c/plugin/core"
	for x in cdt cgraph common gvc pathplan xdot label pack ortho dotgen fdpgen neatogen sparse; do inc="$inc -I$d/lib/$x"; done
	CPPFLAGS_P="-DORTHO -DDEMAND_LOADING=0 -D_BLD_gvc=1 -DGVLIBDIR=\"/nonexistent\" $inc" LDLIBS_P="-lexpat -lz -lm"
	# Generated graphs (bench/inputs/dot-gen.awk), several per file: training 12 layered
	# dependency DAGs of 180 nodes (seed 1) and 15 graphs of HTML-table nodes in nested clusters,
	# left to right (300 nodes, seed 3); evaluation another kind, 6 call graphs of 160 nodes with
	# cycles, same-rank groups, weights, head labels and constraint=false edges (seed 2).
	gen_input "$BENCH_WORK/dot-train-dag.dot" dot-gen.awk K=dag N=180 G=12 S=1
	gen_input "$BENCH_WORK/dot-train-cluster.dot" dot-gen.awk K=cluster N=300 G=15 S=3
	gen_input "$BENCH_WORK/dot-eval-callgraph.dot" dot-gen.awk K=callgraph N=160 G=6 S=2
}
# -Kdot: dot takes its layout engine from its program name (the builds are all named prog).
graphviz_train() {
	local i
	for i in 1 2; do
		"$1" -Kdot -Tsvg "$BENCH_WORK/dot-train-dag.dot" >/dev/null &&
			"$1" -Kdot -Tsvg "$BENCH_WORK/dot-train-cluster.dot" >/dev/null || return 1
	done
}
graphviz_eval() { echo "$1" -Kdot -Tsvg "$BENCH_WORK/dot-eval-callgraph.dot" ">/dev/null"; }

zopfli_setup() {
	local d
	d=$(deb_source zopfli) || exit 2
	# The zopfli command: its library and zopfli_bin.c (its Makefile's zopfli target; not zopflipng, C++).
	SRCS=("$d"/src/zopfli/{blocksplitter,cache,deflate,gzip_container,hash,katajainen,lz77,squeeze,tree,util,zlib_container,zopfli_lib,zopfli_bin}.c)
	CPPFLAGS_P="-I$d/src/zopfli" LDLIBS_P="-lm"
	# Training: text, 400 KB of a tar of /usr/include/linux (C headers) and 2000 JSON orders
	# (orders-gen.awk, seed 1); evaluation: machine code, 300 KB of cc1 from its 1 MB offset.
	if [ ! -s "$BENCH_WORK/zopfli-train-hdr.tar" ]; then
		tar -cf - -C /usr/include linux 2>/dev/null | head -c 400000 >"$BENCH_WORK/zopfli-train-hdr.tar.tmp" &&
			mv "$BENCH_WORK/zopfli-train-hdr.tar.tmp" "$BENCH_WORK/zopfli-train-hdr.tar" || die "zopfli: no /usr/include/linux"
	fi
	gen_input "$BENCH_WORK/zopfli-train-orders.json" orders-gen.awk N=2000 S=1
	if [ ! -s "$BENCH_WORK/zopfli-eval-cc1.bin" ]; then
		tail -c +1000001 "$(gcc -print-prog-name=cc1)" | head -c 300000 >"$BENCH_WORK/zopfli-eval-cc1.bin.tmp" &&
			mv "$BENCH_WORK/zopfli-eval-cc1.bin.tmp" "$BENCH_WORK/zopfli-eval-cc1.bin" || die "zopfli: no cc1"
	fi
}
# Training: gzip of the headers and zlib of the orders at 10 iterations, twice; evaluation: gzip
# of the cc1 slice at the default 15 iterations.
zopfli_train() {
	local i
	for i in 1 2; do
		"$1" --i10 -c "$BENCH_WORK/zopfli-train-hdr.tar" >/dev/null &&
			"$1" --i10 --zlib -c "$BENCH_WORK/zopfli-train-orders.json" >/dev/null || return 1
	done
}
zopfli_eval() { echo "$1" -c "$BENCH_WORK/zopfli-eval-cc1.bin" ">/dev/null"; }

tre_setup() {
	local d c=$BENCH_WORK/tre-cfg
	d=$(deb_source tre) || exit 2
	# tre-agrep (Debian renames src/agrep): the library (with approximate matching, wide
	# characters and multibyte, configure's defaults) and src/agrep.c; configure once for
	# config.h and lib/tre-config.h, without NLS.
	if [ ! -s "$c/lib/tre-config.h" ]; then
		mkdir -p "$c"
		(cd "$c" && "$d/configure" --disable-nls --enable-static >configure.log 2>&1) ||
			die "tre: configure failed (see $c/configure.log)"
	fi
	SRCS=("$d"/lib/{tre-ast,tre-compile,tre-match-backtrack,tre-match-parallel,tre-mem,tre-parse,tre-stack,regcomp,regexec,regerror,tre-match-approx}.c
		"$d/src/agrep.c")
	CPPFLAGS_P="-DHAVE_CONFIG_H -DLOCALEDIR=\"/usr/share/locale\" -I$c -I$c/lib -I$d/lib" LDLIBS_P=""
	# Texts of different kinds: training a web-server access log (awklog-gen.awk, 60000 lines,
	# seed 1); evaluation an Atom-like XML feed of Latin words (xml-gen.awk, M=feed, seed 2).
	gen_input "$BENCH_WORK/tre-train.log" awklog-gen.awk N=60000 S=1
	gen_input "$BENCH_WORK/tre-eval.xml" xml-gen.awk N=3000 S=2 M=feed
	# Patterns, one tre-agrep argument list a line (options and a quoted pattern). Training:
	# misspelt agents, paths and dates with 1-3 errors, a case-insensitive pattern with classes, a
	# literal (-k) and a best-match (-B) search; evaluation: other patterns (Latin words with 1-2
	# errors, a word match, alternations, an element pattern, case-insensitive).
	printf '%s\n' "-E 1 Mozila/5.0" "-E 2 downlod/file" "-E 3 '\"GET /blog/2023/post-3'" \
		"-i -E 1 'BLOG/20[0-9]+/POST-[0-9]'" "-E 2 '(Jan|Fbe)/202[0-9]:1[0-9]'" "-k -E 1 'api/users/4?'" \
		"-B -E 4 python-reqests" >"$BENCH_WORK/tre-train.pat"
	printf '%s\n' "-E 2 consectetuer" "-w -E 1 'labor[ae]'" "-E 2 '(dolore|magna) aliquq'" \
		"-i -E 1 '<ENTRY[^>]*>'" "-E 1 'ullamco (sit|amet)'" >"$BENCH_WORK/tre-eval.pat"
	# tre-run.sh BIN TEXT PATTERNS: tre-agrep -c once per line; it exits 1 when nothing matches,
	# so only > 1 is a failure.
	printf '%s\n' 'while IFS= read -r a; do eval "\"\$1\" -c $a \"\$2\"" >/dev/null; [ $? -le 1 ] || exit 1; done <"$3"' \
		>"$BENCH_WORK/tre-run.sh"
}
tre_train() { sh "$BENCH_WORK/tre-run.sh" "$1" "$BENCH_WORK/tre-train.log" "$BENCH_WORK/tre-train.pat"; }
tre_eval() { echo sh "$BENCH_WORK/tre-run.sh" "$1" "$BENCH_WORK/tre-eval.xml" "$BENCH_WORK/tre-eval.pat"; }

gifsicle_setup() {
	local d c=$BENCH_WORK/gifsicle-cfg g=$BENCH_WORK/bin/gif-gen
	d=$(deb_source gifsicle) || exit 2
	# gifsicle's sources as src/Makefile.am lists them, with LZW compression (gifwrite.c, not
	# ungifwrt.c). The source has no configure script (Debian runs autoreconf): config.h by hand,
	# what configure.ac finds on this machine (x86-64 Linux, gcc 12: vector types, threads).
	if [ ! -s "$c/config.h" ]; then
		mkdir -p "$c"
		printf '%s\n' '#ifndef GIFSICLE_CONFIG_H' '#define GIFSICLE_CONFIG_H' '#define X_DISPLAY_MISSING 1' \
			'#define RANDOM random' '#define HAVE_STRTOUL 1' '#define HAVE_MKSTEMP 1' '#define HAVE_POW 1' \
			'#define HAVE_STRERROR 1' '#define HAVE_SYS_SELECT_H 1' '#define HAVE_SYS_STAT_H 1' \
			'#define HAVE_INTTYPES_H 1' '#define HAVE_UNISTD_H 1' '#define HAVE_SYS_TYPES_H 1' '#define HAVE_STDINT_H 1' \
			'#define HAVE_STDLIB_H 1' '#define HAVE_STRING_H 1' '#define HAVE_STRINGS_H 1' '#define HAVE_TIME_H 1' \
			'#define HAVE_SYS_TIME_H 1' '#define HAVE_UINTPTR_T 1' '#define HAVE_INT64_T 1' '#define HAVE_UINT64_T 1' \
			'#define SIZEOF_FLOAT 4' '#define SIZEOF_UNSIGNED_INT 4' '#define SIZEOF_UNSIGNED_LONG 8' \
			'#define SIZEOF_VOID_P 8' '#define HAVE_VECTOR_SIZE_VECTOR_TYPES 1' '#define HAVE_SIMD 1' \
			'#define HAVE___SYNC_ADD_AND_FETCH 1' '#define ENABLE_THREADS 1' "#define PATHNAME_SEPARATOR '/'" \
			'#define VERSION "1.93"' '#include <stddef.h>' '#define GIF_ALLOCATOR_DEFINED 1' '#define Gif_Free free' \
			'#endif' >"$c/config.h.tmp" && mv "$c/config.h.tmp" "$c/config.h" || die "gifsicle: cannot write $c/config.h"
	fi
	SRCS=("$d"/src/{clp,fmalloc,giffunc,gifread,gifunopt,merge,optimize,quantize,support,xform,gifsicle,gifwrite}.c)
	# gcc 12.2 stops with an internal compiler error in the vectoriser (merge.c, mark_used_colors)
	# on the AutoFDO profile of some recordings (docs/decisions-convert.md), as flex's, phalanx's
	# and perl's: all builds without it.
	CPPFLAGS_P="-DHAVE_CONFIG_H -I$c -I$d/include -fno-tree-loop-vectorize" LDLIBS_P="-lm -lpthread"
	# Animated GIFs from bench/inputs/gif-gen.c (built once), different kinds: training moving
	# sprites over a checkered background (320x240, 80 frames, seed 1) and a colour plasma
	# (200x200, 40 frames, seed 3); evaluation a scrolling bar chart (480x270, 60 frames, seed 2).
	if [ ! -x "$g" ] || [ "$INPUTS/gif-gen.c" -nt "$g" ]; then
		gcc -O2 -o "$g" "$INPUTS/gif-gen.c" -lm || die "cannot build bench/inputs/gif-gen.c"
	fi
	[ -s "$BENCH_WORK/gif-train-sprites.gif" ] || { "$g" sprites 320 240 80 1 >"$BENCH_WORK/gif-train-sprites.gif.tmp" &&
		mv "$BENCH_WORK/gif-train-sprites.gif.tmp" "$BENCH_WORK/gif-train-sprites.gif"; } || die "gif-gen failed"
	[ -s "$BENCH_WORK/gif-train-plasma.gif" ] || { "$g" plasma 200 200 40 3 >"$BENCH_WORK/gif-train-plasma.gif.tmp" &&
		mv "$BENCH_WORK/gif-train-plasma.gif.tmp" "$BENCH_WORK/gif-train-plasma.gif"; } || die "gif-gen failed"
	[ -s "$BENCH_WORK/gif-eval-chart.gif" ] || { "$g" chart 480 270 60 2 >"$BENCH_WORK/gif-eval-chart.gif.tmp" &&
		mv "$BENCH_WORK/gif-eval-chart.gif.tmp" "$BENCH_WORK/gif-eval-chart.gif"; } || die "gif-gen failed"
	printf '%s\n' 'set -e; b=$1; f=$2; "$b" -O3 --resize 360x200 "$f" >/dev/null; "$b" --colors 8 -O2 "$f" >/dev/null' \
		>"$BENCH_WORK/gifsicle-eval.sh"
}
# Training: frame optimisation (-O3), resizing and colour reduction of both training GIFs, 4
# times; evaluation: the chart optimised and resized, then reduced to 8 colours.
gifsicle_train() {
	local f i
	for i in 1 2 3 4; do
		for f in sprites plasma; do
			"$1" -w -O3 "$BENCH_WORK/gif-train-$f.gif" >/dev/null &&
				"$1" -w --scale 0.5 "$BENCH_WORK/gif-train-$f.gif" >/dev/null &&
				"$1" -w --colors 64 -O2 "$BENCH_WORK/gif-train-$f.gif" >/dev/null || return 1
		done
	done
}
gifsicle_eval() { echo sh "$BENCH_WORK/gifsicle-eval.sh" "$1" "$BENCH_WORK/gif-eval-chart.gif"; }

cscope_setup() {
	local d c=$BENCH_WORK/cscope-cfg g
	d=$(deb_source cscope) || exit 2
	# cscope as src/Makefile.am builds it with flex: configure once (ncurses), and the scanner
	# regenerated from Debian's patched fscanner.l (the fscanner.c in the tarball predates the
	# patch) and egrep.c/egrep.h from egrep.y, as its make does.
	if [ ! -s "$c/src/fscanner.c" ] || [ ! -s "$c/src/egrep.h" ]; then
		need_pkgs flex bison libncurses-dev
		mkdir -p "$c/src"
		(cd "$c" && "$d/configure" >configure.log 2>&1 &&
			flex -o src/fscanner.c "$d/src/fscanner.l" && bison -y -d -o src/egrep.c "$d/src/egrep.y") >"$c/make.log" 2>&1 ||
			die "cscope: configure or the generated sources failed (see $c/*.log)"
	fi
	SRCS=("$c/src/fscanner.c" "$c/src/egrep.c")
	for g in alloc basename build command compath crossref dir display edit exec find help history input invlib \
		logdir lookup main mouse mygetenv mypopen vpaccess vpfopen vpinit vpopen; do SRCS+=("$d/src/$g.c"); done
	CPPFLAGS_P="-DHAVE_CONFIG_H -I$c -I$c/src -I$d/src" LDLIBS_P="-lncurses"
	# Cross-reference databases (-b -q -k: build only, with the inverted index, no /usr/include
	# lookups) of other packages' source trees unpacked by this script: training graphviz's lib/
	# and plugin/ (.c and .h), evaluation bison's src/ and lib/ (gnulib) and tre's sources.
	local gv bi tr
	gv=$(deb_source graphviz) && bi=$(deb_source bison) && tr=$(deb_source tre) || exit 2
	[ -s "$BENCH_WORK/cscope-train.files" ] || find "$gv/lib" "$gv/plugin" -name '*.[ch]' | sort >"$BENCH_WORK/cscope-train.files"
	[ -s "$BENCH_WORK/cscope-eval.files" ] || find "$bi/src" "$bi/lib" "$tr/lib" "$tr/src" -name '*.[ch]' | sort \
		>"$BENCH_WORK/cscope-eval.files"
	mkdir -p "$BENCH_WORK/cscope-db"
}
# Training: the graphviz database 10 times; evaluation: the bison and tre database 6 times
# (0.25 s of CPU once). -q's inverted index sorts its postings with sort(1), a child process
# whose CPU time counts in every build's measurement (about a third of it) and is not rebuilt.
cscope_train() {
	local i o=$BENCH_WORK/cscope-db/train
	for i in 1 2 3 4 5 6 7 8 9 10; do
		rm -f "$o".*
		"$1" -b -q -k -f "$o.out" -i "$BENCH_WORK/cscope-train.files" || return 1
	done
}
cscope_eval() {
	printf '%s\n' 'set -e; o=$(mktemp -d "$3/eval.XXXXXX"); for i in 1 2 3 4 5 6; do' \
		'	rm -f "$o"/*; "$1" -b -q -k -f "$o/cscope.out" -i "$2"; done; rm -rf "$o"' >"$BENCH_WORK/cscope-eval.sh"
	echo sh "$BENCH_WORK/cscope-eval.sh" "$1" "$BENCH_WORK/cscope-eval.files" "$BENCH_WORK/cscope-db"
}

bison_setup() {
	local d c=$BENCH_WORK/bison-cfg f bs
	d=$(deb_source bison) || exit 2
	# configure (no NLS) and make once for config.h, gnulib's replacement headers and the
	# generated sources (its BUILT_SOURCES without the examples, which need the documentation that
	# Debian's dfsg tarball removed; automake not rerun: Debian's patches touch Makefile.am); then
	# the sources of the objects its make compiled for src/bison and lib/libbison.a (src/bison-X.o,
	# lib/DIR/libbison_a-X.o).
	if [ ! -x "$c/src/bison" ]; then
		need_pkgs m4
		mkdir -p "$c"
		printf 'pgo-built-sources:\n\t@echo $(BUILT_SOURCES)\n' >"$c/pgo-bs.mk"
		local mk="ACLOCAL=true AUTOCONF=true AUTOMAKE=true AUTOHEADER=true MAKEINFO=true"
		(cd "$c" && "$d/configure" --disable-nls >configure.log 2>&1 &&
			bs=$(make -s -f Makefile -f pgo-bs.mk $mk pgo-built-sources | tail -1 | tr ' ' '\n' |
				grep -v -e '^examples/' -e '\.version$') &&
			make -j2 $mk $bs src/bison >make.log 2>&1) || die "bison: configure or make failed (see $c/*.log)"
	fi
	SRCS=()
	for f in $(cd "$c" && find src lib -name 'bison-*.o' -o -name 'libbison_a-*.o' | sed 's/bison-//; s/libbison_a-//; s/\.o$/.c/' | sort); do
		if [ -f "$c/$f" ]; then SRCS+=("$c/$f"); else SRCS+=("$d/$f"); fi
	done
	[ ${#SRCS[@]} -gt 100 ] || die "bison: no objects in $c/src and $c/lib"
	# gcc 12.2 stops with an internal compiler error in the vectoriser (src/tables.c, action_row)
	# on the AutoFDO profile of some recordings (docs/decisions-convert.md): all builds without it.
	CPPFLAGS_P="-DEXEEXT=\"\" -DINSTALLDIR=\"/usr/local/bin\" -DDEFAULT_TEXT_DOMAIN=\"bison-gnulib\" -I$c -I$c/lib -I$d -I$d/lib -fno-tree-loop-vectorize"
	LDLIBS_P=""
	# The skeletons from the source (bison runs m4 on them: m4's CPU time, a child process, counts
	# in every build's measurement and is not rebuilt).
	export BISON_PKGDATADIR=$d/data
	# Large generated grammars (bench/inputs/yacc-gen.awk): training two random grammars (1500 and
	# 1200 nonterminals, seeds 1 and 3) and two programming-language grammars (250 statement forms,
	# seed 5, and 120 with IELR(1) tables, seed 7); evaluation a language grammar of 300 forms,
	# seed 2 (other statement forms, precedence levels and declarations).
	gen_input "$BENCH_WORK/bison-train-r1.y" yacc-gen.awk K=random N=1500 S=1
	gen_input "$BENCH_WORK/bison-train-r3.y" yacc-gen.awk K=random N=1200 S=3
	gen_input "$BENCH_WORK/bison-train-l5.y" yacc-gen.awk K=lang N=250 S=5
	gen_input "$BENCH_WORK/bison-train-l7.y" yacc-gen.awk K=lang N=120 S=7
	gen_input "$BENCH_WORK/bison-eval-l2.y" yacc-gen.awk K=lang N=300 S=2
	mkdir -p "$BENCH_WORK/bison-out"
}
bison_train() {
	local i o=$BENCH_WORK/bison-out
	for i in 1 2; do
		"$1" -Wall -o "$o/r1.c" "$BENCH_WORK/bison-train-r1.y" 2>/dev/null &&
			"$1" -Wall -o "$o/r3.c" "$BENCH_WORK/bison-train-r3.y" 2>/dev/null &&
			"$1" -Wall -o "$o/l5.c" "$BENCH_WORK/bison-train-l5.y" 2>/dev/null &&
			"$1" -Dlr.type=ielr -o "$o/l7.c" "$BENCH_WORK/bison-train-l7.y" 2>/dev/null || return 1
	done
}
bison_eval() { echo "$1" -Wall -o "$BENCH_WORK/bison-out/l2.c" "$BENCH_WORK/bison-eval-l2.y" "2>/dev/null"; }

# ---- one program

bench_one() {
	local p=$1 d=$BUILD_DIR/$1 res=$BENCH_WORK/results/pgo-$1$TAG.tsv
	STACK_P=""
	"${p}_setup"
	say "== $p ($COMPILER): ${#SRCS[@]} source files"
	local variants="base pgo empty"
	if [ "${REUSE:-}" = 1 ] && [ -x "$d/base/prog" ] && [ -x "$d/pgo/prog" ] && [ -x "$d/empty/prog" ] &&
	   [ -s "$d/train.data" ]; then
		[ "$p" = bzip2 ] && bzip2_setup
		! declare -F "${p}_data" >/dev/null || "${p}_data"
		say "   REUSE=1: kept the base, pgo and empty builds and the training recording"
	else
		build "$p" base
		[ "$p" = bzip2 ] && bzip2_setup
		! declare -F "${p}_data" >/dev/null || "${p}_data"
		if [ "$COMPILER" = clang ]; then
			build "$p" empty "-fprofile-sample-use=$EMPTY_LLVM"
			rm -f "$d"/pgo/*.profraw "$d/pgo/train.profdata"
			build "$p" pgo -fprofile-instr-generate
			LLVM_PROFILE_FILE="$d/pgo/train-%p.profraw" "${p}_train" "$d/pgo/prog" >/dev/null ||
				die "$p: training run of the instrumented build failed"
			llvm-profdata merge -o "$d/pgo/train.profdata" "$d"/pgo/*.profraw || die "$p: llvm-profdata merge failed"
			build "$p" pgo "-fprofile-instr-use=$d/pgo/train.profdata"
		else
			build "$p" empty "-fauto-profile=$EMPTY_AFDO"
			rm -f "$d"/pgo/*.gcda
			build "$p" pgo -fprofile-generate
			"${p}_train" "$d/pgo/prog" >/dev/null || die "$p: training run of the instrumented build failed"
			build "$p" pgo -fprofile-use -Wmissing-profile
		fi
		record "$p" "$d/base/prog" "$d/train.data"
		say "   recorded with $HOW"
	fi
	if [ "${NOSPLIT:-}" = 1 ] && [ "$COMPILER" = gcc ]; then
		# PGO without hot/cold splitting, which gcc 12 never does under AutoFDO (docs/decisions-convert.md).
		mkdir -p "$d/pgons"
		cp "$d"/pgo/*.gcda "$d/pgons/"
		build "$p" pgons -fprofile-use -fno-reorder-blocks-and-partition
		variants="$variants pgons"
	fi
	# gcc reads an AutoFDO profile, clang an LLVM sample profile: both from the same recording.
	local fmt=autofdo use=-fauto-profile ext=afdo
	[ "$COMPILER" = clang ] && fmt=llvm use=-fprofile-sample-use ext=llvm.prof
	if pgo_works convert; then
		/usr/bin/time -f '%e s, %M KB' -o "$d/convert.time" \
			"$PGO" convert --to $fmt -i "$d/train.data" -b "$d/base/prog" -o "$d/train.$ext" ||
			die "$p: pgo convert --to $fmt failed"
		say "   pgo convert --to $fmt: $(cat "$d/convert.time") -> $(stat -c %s "$d/train.$ext") bytes"
		build "$p" afdo "$use=$d/train.$ext"
		variants="$variants afdo"
		if [ -n "${PGO_ALT:-}" ]; then
			"$PGO_ALT" convert --to $fmt -i "$d/train.data" -b "$d/base/prog" -o "$d/alt.$ext" 2>/dev/null ||
				die "$p: $PGO_ALT convert --to $fmt failed"
			build "$p" alt "$use=$d/alt.$ext"
			variants="$variants alt"
		fi
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
	report "$p$TAG" "$res" "$variants"
}

# report P FILE VARIANTS: median paired ratios base/v (CPU and wall), and the fraction of PGO's gain.
# share_ci FILE: 95% bootstrap interval of afdo's share of PGO's gain, (afdo - 1) / (pgo - 1) of the
# median paired ratios, resampling the rounds 1000 times (fixed seed). This machine's CPU time of
# one binary moves by up to 2x between rounds (docs/decisions-bench.md), so a share needs its interval.
share_ci() {
	awk "$AWK_MED"'
	{ c[$1, $2] = $3; if ($2 == "base") r[++nr] = $1 }
	END {
		for (i = 1; i <= nr; i++)
			if (c[r[i], "pgo"] && c[r[i], "afdo"]) {
				m++; P[m] = c[r[i], "base"] / c[r[i], "pgo"]; A[m] = c[r[i], "base"] / c[r[i], "afdo"]
			}
		if (m < 3) { print "n/a"; exit }
		srand(1)
		for (b = 1; b <= 1000; b++) {
			for (j = 1; j <= m; j++) { x = int(rand() * m) + 1; p[j] = P[x]; a[j] = A[x] }
			g = med(p, m); s = med(a, m)
			S[b] = g > 1 ? 100 * (s - 1) / (g - 1) : -1e9
		}
		med(S, 1000)
		lo = S[25] < -1e8 ? "-inf" : sprintf("%.0f%%", S[25]); printf "%s-%.0f%%", lo, S[976]
	}' "$1"
}

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
		printf ' (95%% CI %s; afdo/pgo time %s)' "$(share_ci "$res")" \
			"$(awk '{ c[$1, $2] = $3 } $2 == "afdo" { r[$1] = 1 } END { for (k in r) if (c[k, "pgo"]) print c[k, "afdo"] / c[k, "pgo"] }' "$res" | median |
				awk '{ printf "%.3f", $1 }')"
	fi
	printf '\n'
	unset S_afdo S_pgo S_empty
}

# bench/convert.sh sources this file for the programs' setup, build and training functions.
[ -n "${PGO_BENCH_FUNCS_ONLY:-}" ] && return 0

echo "PGO speedups, median of $ROUNDS paired ratios base/build (CPU time; >1 = faster than -O2 -g)"
for p in $PROGRAMS; do
	declare -F "${p}_setup" >/dev/null || die "unknown program '$p' (have: recsort mujs gawk jq jimtcl lua5.4 bzip2 sqlite3 expat tcc duktape mawk original-awk bc cmark lz4 zstd xz lua5.3 lua5.2 lua5.1 pcre2 nasm libyaml libxml2 m4 flex dash zlib cjson yajl tcl8.6 phalanx gnugo fairymax indent calc newlisp tinyscheme elk hugs98 algol68g sigscheme clips mksh pforth bash python3.11 picosat tidy-html5 glpk perl graphviz zopfli tre gifsicle cscope bison)"
	bench_one "$p" | tee -a "$BENCH_WORK/results/pgo-summary.txt"
done
