#!/usr/bin/env bash
# pgo convert --to llvm: the text sample profile of a clang 14 build (DWARF 5, no
# .debug_aranges) is accepted by clang -fprofile-sample-use and used (entry counts and
# a profile summary appear in the IR).
. "$(dirname "$0")/lib.sh"
. "$PGO_ROOT/tests/e2e/convert-lib.sh"

if ! test_have_prereq PERF CLANG || ! perf record -q -e cpu-clock -o probe.data true 2>/dev/null; then
	skip_all "needs perf record and clang"
	test_done
fi

test_expect_success 'record a clang build' '
	clang -O2 -g -fPIC -shared -o libhot.so "$FIX/lib.c" &&
	clang -O2 -g -o chot "$FIX/hot.c" -L. -lhot -Wl,-rpath,"\$ORIGIN" &&
	record c.data ./chot 4000000
'
test_expect_success 'pgo convert --to llvm writes name:total:head sections' '
	pgo convert --to llvm -i c.data -b chot -o chot.prof 2>err &&
	test_grep "chot.prof: [1-9][0-9]* functions \(llvm text\)" err &&
	test_grep "^work:[1-9][0-9]*:[1-9][0-9]*$" chot.prof &&
	test_grep "^main:[0-9]+:[0-9]+$" chot.prof &&
	test_grep "^ [0-9]+(\.[0-9]+)?: [0-9]+" chot.prof
'
test_expect_success 'clang accepts and uses it' '
	clang -O2 -g -fprofile-sample-use=chot.prof -S -emit-llvm -o p.ll "$FIX/hot.c" 2>clang.err &&
	test ! -s clang.err &&
	test_grep "ProfileSummary" p.ll && test_grep "function_entry_count" p.ll
'
test_expect_success LLVM_PROFDATA 'llvm-profdata reads it' '
	llvm-profdata-14 show --sample chot.prof >show && test_grep "Function: work" show
'
test_done
