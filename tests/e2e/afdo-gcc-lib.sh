#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The convert tests against one gcc of the test chroots (make compilers): source after lib.sh
# and call afdo_gcc_suite gcc-N. Each of the gcc tests (loops, inlining, a rare branch, shared
# library, PIE, C++, LTO) runs with PGO_TEST_GCC=gcc-N and is one test here; the script is
# skipped, visibly, when the chroot with gcc-N is absent.
AFDO_GCC_TESTS="t2510 t2520 t2530 t2540 t2550 t2570 t2580"

# afdo_gcc_suite gcc-N [TEST=REASON]...: a TEST named with a REASON is reported as a SKIP
# with that reason instead of run (a known shortfall with that compiler, said in the output).
afdo_gcc_suite() {
	local cc=$1 root t script out rc known k
	shift
	known=("$@")
	. "$PGO_ROOT/tests/e2e/afdo-lib.sh"
	if [ -z "${PGO_TEST_COMPILERS:-}" ]; then
		# each suite takes minutes: make test-compilers (and CI) runs them
		skip_all "the $cc suite runs in make test-compilers (PGO_TEST_COMPILERS=1)"
		test_done
	fi
	root=$(afdo_gcc_root "$cc")
	if ! chroot "$root" sh -c "command -v $cc" >/dev/null 2>&1; then
		skip_all "$cc chroot absent: make compilers"
		test_done
	fi
	for t in $AFDO_GCC_TESTS; do
		script=$(ls "$PGO_ROOT"/tests/e2e/$t-*.sh)
		for k in "${known[@]}"; do
			[ "${k%%=*}" = "$t" ] || continue
			test_count=$((test_count + 1))
			test_skipped=$((test_skipped + 1))
			echo "ok $test_count - $cc: $(basename "$script" .sh) # SKIP known shortfall: ${k#*=}"
			continue 2
		done
		out=$TRASH/$t.out
		rc=0
		PGO_TEST_GCC=$cc bash "$script" >"$out" 2>&1 || rc=$?
		test_count=$((test_count + 1))
		if [ $rc = 77 ]; then
			echo "ok $test_count - $cc: $(basename "$script" .sh) # SKIP $(sed -n 's/^1\.\.0 # SKIP //p' "$out")"
			test_skipped=$((test_skipped + 1))
		elif [ $rc = 0 ] && ! grep -q '^not ok' "$out"; then
			echo "ok $test_count - $cc: $(basename "$script" .sh) ($(grep -c '^ok' "$out") passed)"
			[ -n "${VERBOSE:-}" ] && sed 's/^/#   /' "$out"
		else
			echo "not ok $test_count - $cc: $(basename "$script" .sh) exited $rc"
			grep -v '^ok ' "$out" | sed 's/^/#   /' | tail -60
			test_failed=$((test_failed + 1))
		fi
	done
	test_done
}
