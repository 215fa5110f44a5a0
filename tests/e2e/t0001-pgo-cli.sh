#!/usr/bin/env bash
# The command hub: help, version, dashed forms, exit codes for usage errors.
. "$(dirname "$0")/lib.sh"

test_expect_success 'pgo --version prints the version' '
	pgo --version >out && test_grep "^pgo version [0-9]+\.[0-9]+\.[0-9]+$" out
'
test_expect_success 'pgo help lists the three commands and exit codes' '
	pgo help >out &&
	test_grep "collect" out && test_grep "convert" out && test_grep "gate" out &&
	test_grep "exit codes" out
'
test_expect_success 'no command is a usage error (64)' '
	test_expect_code 64 pgo 2>err && test_grep "usage: pgo" err
'
test_expect_success 'an unknown command is a usage error (64)' '
	test_expect_code 64 pgo frobnicate 2>err && test_grep "frobnicate" err
'
test_expect_success 'dashed forms exist and dispatch' '
	for c in collect convert gate; do
		test -L "$PGO_BIN/pgo-$c" && "$PGO_BIN/pgo-$c" --help >out && test_grep "pgo $c|usage" out || exit 1
	done
'
test_expect_success DEV_FULL 'a write error on stdout is reported, exit 2' '
	test_expect_code 2 pgo --version >/dev/full 2>err && test_grep "write failure" err
'
test_done
