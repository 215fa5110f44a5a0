#!/usr/bin/env bash
# DWARF unwinding of a shell that runs an external command many times (mksh's training
# runs /usr/bin/printf 2403 times): each exec'd process has its own load addresses, so
# its own Dwfl. When libdwfl finds no .eh_frame entry for an address it looks for
# .debug_frame in the module's separate debug file (libc6-dbg's), and reading that
# decompressed all its debug sections, for every process: 89% of converting mksh's
# training. Debug files without .debug_frame are no longer handed to libdw.
. "$(dirname "$0")/lib.sh"

libc=$(ldd /usr/bin/printf 2>/dev/null | sed -n "s/.*libc.so.6 => \([^ ]*\) .*/\1/p")
id=$(readelf -n "$libc" 2>/dev/null | sed -n "s/.*Build ID: \([0-9a-f]*\).*/\1/p")
dbg=/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug

if ! test_have_prereq PERF; then
	skip_all "perf not installed"
elif test -z "$id" || ! test -r "$dbg"; then
	skip_all "no separate debug file for libc ($dbg: install libc6-dbg)"
fi
test -n "${skip_all_reason-}" && { test_done; exit; }

test_expect_success 'record 80 execs of printf with DWARF stacks' '
	perf record -q -e task-clock -c 100000 --call-graph dwarf,4096 -o x.data -- \
		sh -c "i=0; while [ \$i -lt 80 ]; do /usr/bin/printf x; i=\$((i + 1)); done" \
		>/dev/null 2>&1 &&
	test "$(perf script -i x.data -F pid 2>/dev/null | sort -u | wc -l)" -ge 40
'

test_expect_success 'no debug file without .debug_frame is read, in any process' '
	pgo convert --to folded -v -i x.data -o x.folded 2>err &&
	grep "unwinding took" err &&
	procs=$(sed -n "s/.* for \([0-9]*\) processes with.*/\1/p" err) &&
	built=$(sed -n "s/.* with \([0-9]*\) Dwfl sessions.*/\1/p" err) &&
	reads=$(sed -n "s/.* \([0-9]*\) separate debug files read.*/\1/p" err) &&
	echo "$procs processes, $built Dwfl sessions, $reads debug files read" &&
	test "$procs" -ge 40 && test "$built" -ge 40 &&
	# the recorded files whose separate debug file has a .debug_frame (as readelf names it):
	# only those may be read, at most once per process; with libc6-dbg alone, none
	perf buildid-list -i x.data 2>/dev/null | while read -r b f; do
		d=/usr/lib/debug/.build-id/${b:0:2}/${b:2}.debug &&
		if test -r "$d" && readelf -S -W "$d" | grep -q debug_frame; then
			echo "$d has .debug_frame"
		fi || exit 1
	done >framed &&
	cat framed &&
	test "$reads" -le $(($(wc -l <framed) * procs))
'

test_expect_success 'the printf processes are unwound through libc to _start' '
	# printf is stripped: its _start and main are [printf]
	test_grep "^\[printf\];__libc_start_main[^;]*;__libc_start_call_main;\[printf\];" x.folded
'

test_done
