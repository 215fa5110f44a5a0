#!/usr/bin/env bash
# A function of 3000 lines with 300 inlined calls: every line with code gets its own
# position, once, in order, and every inlined call its own instance at its call line.
# The model keeps a function's positions and call sites in sorted arrays and the scope
# tree indexes a function's long list of inlined calls: an index that dropped, merged or
# misplaced an offset fails here.
. "$(dirname "$0")/lib.sh"

if ! test_have_prereq PERF || ! perf record -q -e cpu-clock -o probe.data true 2>/dev/null; then
	skip_all "perf record does not work here"
	test_done
fi

N=3000
# long.c: line 5 opens long_fn; statement i is on line 6 + i; every tenth calls sq
gen() {
	echo '#include <stdlib.h>'
	echo 'volatile unsigned s;'
	echo 'static inline unsigned sq(unsigned x) { return x * x + (x >> 3); }'
	echo '__attribute__((noinline)) void long_fn(void)'
	echo '{'
	awk -v n=$N 'BEGIN { for (i = 0; i < n; i++)
		if (i % 10 == 5) printf "\ts += sq(s + %d);\n", i; else printf "\ts = s * 3 + %d;\n", i }'
	echo '}'
	echo 'int main(int argc, char **argv) { long r = argc > 1 ? atol(argv[1]) : 1; for (long i = 0; i < r; i++) long_fn(); return s & 1; }'
}

test_expect_success 'record the long function' '
	gen >long.c && gcc -O2 -g -o long long.c &&
	perf record -q -e cpu-clock -c 50000 -o long.data ./long 3000 >/dev/null 2>perf.err &&
	pgo convert --to autofdo --min-count 0 -i long.data -b long -o long.afdo 2>err &&
	pgo convert --dump long.afdo >dump && test_grep "^long_fn: head [1-9]" dump
'
test_expect_success 'every statement line has exactly one position, in order' '
	# offsets are relative to the line of "long_fn(" (4): statement i is at +(2 + i)
	awk "/^[^ #]/ { in_f = (\$1 == \"long_fn:\") } in_f && /^  \\+[0-9]+: [0-9]+\$/ { sub(/^  \\+/, \"\"); sub(/:.*/, \"\"); print }" dump >offsets &&
	sort -n -c offsets && test -z "$(uniq -d offsets)" &&
	awk -v n=$N "BEGIN { for (i = 0; i < n; i++) print 2 + i }" >want &&
	test -z "$(comm -13 offsets want)" &&
	test "$(wc -l <offsets)" -le $((N + 2))
'
test_expect_success 'every call of sq has its own inline instance at its line' '
	awk "/^[^ #]/ { in_f = (\$1 == \"long_fn:\") } in_f && /^  \\+[0-9]+: inlined sq,/ { sub(/^  \\+/, \"\"); sub(/:.*/, \"\"); print }" dump >calls &&
	awk -v n=$N "BEGIN { for (i = 5; i < n; i += 10) print 2 + i }" >want_calls &&
	test_cmp want_calls calls
'
test_done
