# SPDX-License-Identifier: MIT
# sigscheme 0.9.1 (Debian): sscm, libsscm's sources (the list of `make -n libsscm.la` in src/ for
# this configuration, function tables shipped) and main.c; src/config.h from its configure
# (static), the headers its include/ make links as sigscheme/*.h, and its bundled libgcroots (the
# stack-scanning part of the Boehm GC) built once by its make: the same object code in every build.
STACK=16384	# 15% of its stacks are deeper than the default 8 KiB copy
setup() {
	local d c=$BENCH_WORK/sigscheme-cfg f a
	d=$(deb_source sigscheme) || exit 2
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
train() { "$1" "$BENCH_WORK/sscm-train.scm" >/dev/null && "$1" "$BENCH_WORK/sscm-train-eval.scm" >/dev/null; }
evaluate() { echo "$1" "$BENCH_WORK/sscm-eval.scm"; }
