# SPDX-License-Identifier: MIT
# newlisp (Debian): the objects of its makefile_linuxLP64_utf8 with its defines, without
# readline (-DREADLINE).
setup() {
	local d
	d=$(deb_source newlisp) || exit 2
	SRCS=("$d"/{newlisp,nl-symbol,nl-math,nl-list,nl-liststr,nl-string,nl-filesys,nl-sock,nl-import,nl-xml-json,nl-web,nl-matrix,nl-debug,nl-utf8,pcre}.c)
	CPPFLAGS_P="-DSUPPORT_UTF8 -DNEWLISP64 -DLINUX -I$d" LDLIBS_P="-lm -ldl"
}
# train.lsp (recursion, association lists, strings, sort, regex replace) 300 rounds and eval.lsp
# with another size factor; evaluation eval.lsp (a sieve in an array, a heapsort of a global
# array, format/extend, float loops) 16 rounds at size 4.
train() { "$1" "$INPUTS/train.lsp" 300 >/dev/null && "$1" "$INPUTS/eval.lsp" 20 1 >/dev/null; }
evaluate() { echo "$1" "$INPUTS/eval.lsp" 16 4; }
