#!/usr/bin/env bash
# DWARF unwinding of a shell-like workload: 120 short-lived children, one after another,
# each sampled. The children share their parent's Dwfl (their mappings are the parent's),
# so each file's ELF and CFI is read once, not once per process (converting mksh's
# training re-read the shell's and libc's CFI for every subshell: 25 s CPU). A Dwfl is
# dropped when the last process using it exits, so only the live ones are held (a shell's
# subshells once held theirs up to the 8192-module budget: 4.5 GB). pgo convert -v says how
# many processes were unwound with how many Dwfls and modules, and the most held at once.
. "$(dirname "$0")/lib.sh"

if ! test_have_prereq PERF; then skip_all "perf not installed"; test_done; fi

test_expect_success 'record 120 children with DWARF stacks' '
	perf record -q -e task-clock -c 200000 --call-graph dwarf,4096 -o f.data -- \
		"$PGO_HELPERS/forkmany" 120 6 >/dev/null 2>&1 &&
	test "$(perf script -i f.data -F pid 2>/dev/null | sort -u | wc -l)" -ge 100
'

test_expect_success 'the Dwfls of exited children are gone' '
	pgo convert --to folded -v -i f.data -o f.folded 2>err &&
	grep "unwinding took" err &&
	live=$(sed -n "s/.*(at most \([0-9]*\) at once).*/\1/p" err) &&
	echo "modules at most $live at once" &&
	test "$live" -le 20 &&
	grep -q "^_start;.*;main;child_spin" f.folded
'

test_expect_success 'the children unwind with the parent Dwfl: each file read once' '
	procs=$(sed -n "s/.* for \([0-9]*\) processes with.*/\1/p" err) &&
	built=$(sed -n "s/.* with \([0-9]*\) Dwfl sessions.*/\1/p" err) &&
	mods=$(sed -n "s/.* Dwfl sessions, \([0-9]*\) modules read.*/\1/p" err) &&
	perf script -i f.data --show-mmap-events -F pid 2>/dev/null |
		sed -n "s/.*PERF_RECORD_MMAP2* .* [r-]*x[p-] \(\/.*\)$/\1/p" | sort -u >files &&
	cat files &&
	echo "$procs processes, $built Dwfl sessions, $mods modules, $(wc -l <files) files" &&
	test "$procs" -ge 100 &&
	test "$built" -le 2 &&
	test "$mods" -le "$(wc -l <files)"
'

test_expect_success 'a shared Dwfl unwinds every child completely' '
	grep "child_spin [0-9]*\$" f.folded >spin &&
	# at least half of the 120 x 6 ms the children spent (in ns; the rest is in cpu_ns)
	test "$(awk "{ s += \$NF } END { print s }" spin)" -ge 360000000 &&
	! grep -v "^_start;.*;main;child_spin [0-9]*\$" spin
'

test_done
