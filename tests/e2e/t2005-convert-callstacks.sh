#!/usr/bin/env bash
# Call stacks (perf record -g / pgo collect -g) carry call edges that create_gcov
# ignores: pgo convert turns the edges of indirect calls into call targets, and gcc 12
# promotes the indirect call to a guarded direct call. Without stacks, no targets.
. "$(dirname "$0")/lib.sh"
. "$PGO_ROOT/tests/e2e/convert-lib.sh"

if ! test_have_prereq PERF || ! perf record -q -e cpu-clock -o probe.data true 2>/dev/null; then
	skip_all "perf record does not work here"
test_done
fi

test_expect_success 'record an indirect call with and without call stacks' '
	gcc -O2 -g -fno-omit-frame-pointer -o icall "$FIX/icall.c" &&
	perf record -q -g -e cpu-clock -c 50000 -o g.data ./icall 5000000 >/dev/null 2>&1 &&
	record flat.data ./icall 5000000
'
test_expect_success 'with stacks: the call line of main has target op_hot only' '
	pgo convert --to autofdo -i g.data -b icall -o g.afdo &&
	pgo convert --dump g.afdo >dump &&
	off=$(grep -n "acc += f(i);" "$FIX/icall.c" | cut -d: -f1) &&
	m=$(grep -n "^main(" "$FIX/icall.c" | cut -d: -f1) &&
	test_grep "^  \+$((off - m)): [0-9]+  targets: op_hot=[1-9][0-9]*( |$)" dump
'
test_expect_success 'gcc promotes the indirect call to op_hot' '
	gcc -O2 -fauto-profile=g.afdo -c "$FIX/icall.c" -o g.o -fdump-ipa-afdo-details 2>gcc.err &&
	test ! -s gcc.err &&
	test_grep "Indirect call -> direct call .* => op_hot" g.c.*afdo
'
test_expect_success 'without stacks: no targets, no promotion' '
	pgo convert --to autofdo -i flat.data -b icall -o flat.afdo &&
	pgo convert --dump flat.afdo >dumpf && ! grep -q targets dumpf &&
	gcc -O2 -fauto-profile=flat.afdo -c "$FIX/icall.c" -o f.o -fdump-ipa-afdo-details &&
	! grep -q "=> op_hot" f.c.*afdo
'
test_expect_success 'DWARF-unwound stacks of a -O2 build (no frame pointers) give the target too' '
	gcc -O2 -g -o icall-nofp "$FIX/icall.c" &&
	perf record -q --call-graph dwarf,4096 -e cpu-clock -c 50000 -o dw.data ./icall-nofp 5000000 \
		>/dev/null 2>&1 &&
	pgo convert --to autofdo -i dw.data -b icall-nofp -o dw.afdo 2>dw.err &&
	test_grep "unwound [0-9]+ user stacks" dw.err &&
	pgo convert --dump dw.afdo >dumpd &&
	off=$(grep -n "acc += f(i);" "$FIX/icall.c" | cut -d: -f1) &&
	m=$(grep -n "^main(" "$FIX/icall.c" | cut -d: -f1) &&
	test_grep "^  \+$((off - m)): [0-9]+  targets: op_hot=[1-9][0-9]*( |$)" dumpd &&
	gcc -O2 -fauto-profile=dw.afdo -c "$FIX/icall.c" -o dw.o -fdump-ipa-afdo-details &&
	test_grep "Indirect call -> direct call .* => op_hot" dw.c.*afdo
'
test_done
