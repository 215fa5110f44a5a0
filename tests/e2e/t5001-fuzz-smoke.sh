#!/usr/bin/env bash
# Fuzz smoke: every tests/fuzz target (libFuzzer, ASan+UBSan) runs 3 s from its seed
# corpus without a crash, leak or hang. make fuzz runs them for 10 minutes each.
. "$(dirname "$0")/lib.sh"

if ! test_have_prereq CLANG NOT_SANITIZED; then
	skip_all "needs clang and a normal (not sanitized) build"
	test_done
fi

test_expect_success 'make fuzz-smoke: all targets run clean' '
	make -s -C "$PGO_ROOT" fuzz-smoke FUZZ_SECONDS=${FUZZ_SECONDS:-3} >out 2>&1 || { cat out; exit 1; }
	cat out &&
	test $(grep -cE "^fuzz-[a-z-]+: ok, [0-9]+ runs" out) -ge 3
'
test_done
