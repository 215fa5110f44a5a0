#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Black-box: clang 14 accepts `pgo convert --to llvm` (-fprofile-sample-use) and uses it: the IR
# gets a ProfileSummary, function_entry_count on the sampled functions and branch_weights.
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
test_done
