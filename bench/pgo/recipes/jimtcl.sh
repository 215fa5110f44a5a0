# SPDX-License-Identifier: MIT
# jimtcl 0.81 (Debian): jimsh with the default static extensions minus those that need other
# libraries; jim-config.h and the extensions written in Tcl (_*.c) from its configure and make.
setup() {
	local d c=$BENCH_WORK/jimtcl-cfg f
	d=$(deb_source jimtcl) || exit 2
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
# train.tcl, and eval.tcl with another size factor (the evaluation's commands must be reached by
# the training); evaluation: eval.tcl with larger sizes.
train() { "$1" "$INPUTS/train.tcl" 30 && "$1" "$INPUTS/eval.tcl" 30 1; }
evaluate() { echo "$1" "$INPUTS/eval.tcl" 10 4; }
