#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Black-box: clang 14 accepts `pgo convert --to llvm` (-fprofile-sample-use) and uses it: the IR
# gets a ProfileSummary, function_entry_count on the sampled functions and branch_weights; and
# clang's own coverage check finds where nearly all of the hot functions' samples belong.
. "$(dirname "$0")/lib.sh"
. "$PGO_ROOT/tests/e2e/afdo-lib.sh"
afdo_require
if ! test_have_prereq CLANG; then
	skip_all "clang is not installed"
	test_done
fi

test_expect_success 'control: without a profile the IR has no sample-profile metadata' '
	clang -O2 -g -S -emit-llvm loop.c -o none.ll &&
	test_grep -v "function_entry_count" none.ll && test_grep -v "ProfileSummary" none.ll
'

for dw in 4 5; do
	test_expect_success "DWARF $dw: clang -fprofile-sample-use accepts and applies the profile" '
		clang -O2 -g -gdwarf-'$dw' -fdebug-info-for-profiling -o loop loop.c &&
		for rec in $AFDO_RECORDERS; do
			afdo_record $rec $rec.data ./loop 8000000 &&
			pgo convert --to llvm -i $rec.data -b loop -o $rec.prof &&
			test_grep "^work:[0-9]+:[0-9]+" $rec.prof &&
			clang -O2 -g -fdebug-info-for-profiling -fprofile-sample-use=$rec.prof -S -emit-llvm \
				loop.c -o $rec.ll 2>clang.err &&
			{ ! test -s clang.err || { cat clang.err >&2; exit 1; }; } &&
			test_grep "ProfileSummary" $rec.ll &&
			test_grep "define .*@work\(.*!prof" $rec.ll &&
			test_grep "function_entry_count\", i64 [1-9]" $rec.ll &&
			test_grep "branch_weights" $rec.ll || exit 1
		done
	'
done
# cover BIN_CFLAGS: record loop built with BIN_CFLAGS, convert, and let clang report (from its
# -sample-profile-check-sample-coverage warnings) each sampled function's share of samples it
# applied, when below 90%, as "LINE PERCENT" lines in cov.txt.
cover() {
	rm -f cov.data cov.prof cov.txt &&
	clang -O2 -g $1 -o cov loop.c &&
	afdo_record perf cov.data ./cov 8000000 &&
	pgo convert --to llvm -i cov.data -b cov -o cov.prof &&
	clang -O2 -g -fdebug-info-for-profiling -fprofile-sample-use=cov.prof -mllvm \
		-sample-profile-check-sample-coverage=90 -c loop.c -o cov.o 2>cov.err &&
	sed -n "s/^warning: loop.c:\([0-9]*\): .* available profile samples (\([0-9]*\)%) were applied.*/\1 \2/p" \
		cov.err >cov.txt
}
decl() { grep -n "^$1 (" loop.c | cut -d: -f1; }

test_expect_success 'clang applies >= 90% of the samples of main and work' '
	cover -fdebug-info-for-profiling &&
	grep -q "^work:[0-9]*:" cov.prof && grep -q "^main:[0-9]*:" cov.prof &&
	cat cov.txt &&
	! grep "^$(decl work) " cov.txt && ! grep "^$(decl main) " cov.txt
'
test_expect_success 'control: a binary without discriminators leaves main below 90%' '
	cover "" &&
	cat cov.txt &&
	grep "^$(decl main) " cov.txt
'
test_done
