#!/usr/bin/env bash
# DWARF unwinding of a shell-like workload: 120 short-lived children, one after another,
# each sampled. Each child's unwinding needs a Dwfl of its own (its own address space);
# the Dwfl of a process that exited is dropped at its EXIT, so only the live ones are held
# (a shell's subshells once held theirs up to the 8192-module budget: 4.5 GB). pgo convert -v
# says how many modules all Dwfls held at once.
. "$(dirname "$0")/lib.sh"

if ! test_have_prereq PERF; then skip_all "perf not installed"; test_done; fi

test_expect_success 'record 120 children with DWARF stacks' '
	perf record -q -e task-clock -c 200000 --call-graph dwarf,4096 -o f.data -- \
		"$PGO_HELPERS/forkmany" 120 6 >/dev/null 2>&1 &&
	test "$(perf script -i f.data -F pid 2>/dev/null | sort -u | wc -l)" -ge 100
'

test_expect_success 'every child is unwound; the Dwfls of exited children are gone' '
	pgo convert --to folded -v -i f.data -o f.folded 2>err &&
	grep "unwinding took" err &&
	built=$(sed -n "s/.* with \([0-9]*\) Dwfl sessions.*/\1/p" err) &&
	live=$(sed -n "s/.*(at most \([0-9]*\) at once).*/\1/p" err) &&
	echo "Dwfl sessions $built, modules at most $live at once" &&
	test "$built" -ge 100 &&
	test "$live" -le 20 &&
	grep -q "^_start;.*;main;child_spin" f.folded
'

test_done
