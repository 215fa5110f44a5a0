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
# cover PROFILE: compile loop.c with PROFILE and clang's coverage check, and list each function
# that got less than 90% of its profile samples applied as "DECL_LINE PERCENT" in cov.txt (from
# clang's -sample-profile-check-sample-coverage warnings).
cover() {
	clang -O2 -g -fdebug-info-for-profiling -fprofile-sample-use="$1" -mllvm \
		-sample-profile-check-sample-coverage=90 -c loop.c -o cov.o 2>cov.err &&
	sed -n "s/^warning: loop.c:\([0-9]*\): .* available profile samples (\([0-9]*\)%) were applied.*/\1 \2/p" \
		cov.err >cov.txt
}
decl() { grep -n "^$1 (" loop.c | cut -d: -f1; }

test_expect_success 'clang applies >= 90% of the samples of main and work' '
	clang -O2 -g -fdebug-info-for-profiling -o cov loop.c &&
	afdo_record perf cov.data ./cov 8000000 &&
	pgo convert --to llvm -i cov.data -b cov -o cov.prof &&
	grep -q "^work:[0-9]*:" cov.prof && grep -q "^main:[0-9]*:" cov.prof &&
	cover cov.prof && cat cov.txt &&
	! grep "^$(decl work) " cov.txt && ! grep "^$(decl main) " cov.txt
'
# move_work FILE: the LLVM profile FILE with each of work's top-level line offsets 1000 lines
# further down, where loop.c has no code (discriminators kept).
move_work() {
	python3 - "$1" <<'EOF'
import re, sys
work = False
for line in open(sys.argv[1]):
    if not line.startswith(" "):
        work = line.startswith("work:")
    elif work and re.match(r" [0-9]", line):
        line = re.sub(r"^ ([0-9]+)", lambda m: " %d" % (int(m.group(1)) + 1000), line)
    sys.stdout.write(line)
EOF
}
# The control: clang must report work below 90% with its lines moved (a check that cannot see a
# wrong profile would pass the test above).
test_expect_success 'control: the same profile with work moved 1000 lines is reported below 90%' '
	move_work cov.prof >moved.prof &&
	grep -q "^ 100[0-9]" moved.prof && ! cmp -s cov.prof moved.prof &&
	cover moved.prof && cat cov.txt &&
	grep "^$(decl work) " cov.txt
'
test_done
