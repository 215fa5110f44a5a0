#!/usr/bin/env bash
# gcc reads a clone's counts (foo.part.0, foo.constprop.1) as foo's: pgo convert merges
# the clone into foo, and with it the targets of the clone's indirect calls. clone.c's
# run calls op_a through a pointer, its clone run.part.0 calls op_b from the same line:
# both targets must be on run's call line.
. "$(dirname "$0")/lib.sh"
. "$PGO_ROOT/tests/e2e/convert-lib.sh"

if ! test_have_prereq PERF || ! perf record -q -e cpu-clock -o probe.data true 2>/dev/null; then
	skip_all "perf record does not work here"
test_done
fi

test_expect_success 'record a function and its clone with call stacks' '
	gcc -O2 -g -fno-omit-frame-pointer -o clone "$FIX/clone.c" &&
	nm clone >syms && test_grep " T run$" syms && test_grep " T run\.part\.0$" syms &&
	perf record -q -g -e cpu-clock -c 50000 -o g.data ./clone 3000000 >/dev/null 2>&1
'
test_expect_success 'the stacks show both targets, each from its own symbol' '
	perf script -i g.data -F ip,sym >stacks &&
	grep -A1 "op_a$" stacks >a && test_grep "run$" a &&
	grep -A1 "op_b$" stacks >b && test_grep "run\.part\.0$" b
'
test_expect_success 'run has one call line, with targets op_a and op_b' '
	pgo convert --to autofdo -i g.data -b clone -o g.afdo &&
	pgo convert --dump g.afdo >dump &&
	! grep -q "^run\.part" dump &&
	off=$(( $(grep -n "acc += ops\[k\](i);" "$FIX/clone.c" | head -1 | cut -d: -f1) -
		$(grep -n "^run(" "$FIX/clone.c" | cut -d: -f1) )) &&
	sed -n "/^run:/,/^[^ ]/p" dump >run &&
	test_grep "^  \+$off: [0-9]+  targets: .*op_a=[1-9]" run &&
	test_grep "^  \+$off: [0-9]+  targets: .*op_b=[1-9]" run
'
test_done
