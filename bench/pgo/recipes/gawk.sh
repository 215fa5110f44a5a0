# SPDX-License-Identifier: MIT
# gawk 5.2.1 (Debian): config.h from its configure; no readline, MPFR, NLS or persistent memory.
setup() {
	local d c=$BENCH_WORK/gawk-cfg f
	d=$(deb_source gawk) || exit 2
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
# eval.awk on another word list: without it the instrumented build was 15% slower on eval.awk
# (the builtins the training did not reach were optimised for size). About 15000 samples at 4999 Hz.
train() {
	local i
	for i in 1 2 3; do
		"$1" -v N=200000 -f "$INPUTS/train.awk" >/dev/null &&
			"$1" -v N=60000 -v W="pack my box with five dozen liquor jugs when zebras quietly wander" \
				-f "$INPUTS/eval.awk" >/dev/null || return 1
	done
}
evaluate() { echo "$1" -v N=150000 -f "$INPUTS/eval.awk"; }
