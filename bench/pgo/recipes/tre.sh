# SPDX-License-Identifier: MIT
# tre 0.8 (Debian): tre-agrep (Debian renames src/agrep): the library (with approximate matching,
# wide characters and multibyte, configure's defaults) and src/agrep.c; configure once for
# config.h and lib/tre-config.h, without NLS.
setup() {
	local d c=$BENCH_WORK/tre-cfg
	d=$(deb_source tre) || exit 2
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
	# tre-run.sh BIN TEXT PATTERNS: tre-agrep -c (the count of matching lines) once per pattern; it
	# exits 1 when nothing matches, so only > 1 is a failure.
	printf '%s\n' 'while IFS= read -r a; do eval "\"\$1\" -c $a \"\$2\""; [ $? -le 1 ] || exit 1; done <"$3"' \
		>"$BENCH_WORK/tre-run.sh"
}
train() { sh "$BENCH_WORK/tre-run.sh" "$1" "$BENCH_WORK/tre-train.log" "$BENCH_WORK/tre-train.pat" >/dev/null; }
evaluate() { echo sh "$BENCH_WORK/tre-run.sh" "$1" "$BENCH_WORK/tre-eval.xml" "$BENCH_WORK/tre-eval.pat"; }
