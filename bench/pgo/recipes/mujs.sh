# SPDX-License-Identifier: MIT
# mujs 1.3.2 (Debian): the JavaScript interpreter, its one-file build (one.c) and main.c.
setup() {
	local d
	d=$(deb_source mujs) || exit 2
	SRCS=("$d/one.c" "$d/main.c") CPPFLAGS_P="-I$d" LDLIBS_P="-lm"
}
train() { local i; for i in 1 2 3 4; do "$1" "$INPUTS/train.js" || return 1; done; }
evaluate() { echo "$1" "$INPUTS/eval.js"; }
