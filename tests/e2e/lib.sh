#!/usr/bin/env bash
# End-to-end test library (git t/test-lib.sh, reduced). Source it first:
#   . "$(dirname "$0")/lib.sh"
#   test_expect_success 'title' 'commands && more'
#   test_done
# Tests share one scratch directory ($TRASH); each body runs in a subshell under a real
# `set -e`: a failing simple command anywhere in it fails the test. Bash ignores -e in every
# command of a && or || list but the last (so in a chained loop, or in a helper called from
# one), hence bodies also chain their commands with && and end loops with "|| exit 1";
# tests/tools/chainlint.sh checks that (t0003). Output is TAP. test_have_prereq NAME...
# (ROOT, PERF, BPF, ...) skips a test with the reason; a script that can run nothing exits 77.
set -u
export LC_ALL=C
PGO_ROOT=${PGO_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
PGO_BUILD=${PGO_BUILD:-build}
PGO_BIN=${PGO_BIN:-$PGO_ROOT/$PGO_BUILD/bin}
PGO_HELPERS=$PGO_ROOT/$PGO_BUILD/tests/helpers
export PATH="$PGO_BIN:$PATH"
TRASH=$(mktemp -d "${TMPDIR:-/tmp}/pgo-test.XXXXXX")
trap 'cd /; rm -rf "$TRASH"' EXIT
cd "$TRASH"
test_count=0 test_failed=0 test_skipped=0 skip_all_reason=""

say() { echo "# $*"; }

declare -A test_prereqs=()
# test_set_prereq NAME [REASON]: the script's own prerequisite NAME holds, or (with REASON) not.
test_set_prereq() { test_prereqs[$1]=${2:-}; }

# test_have_prereq NAME...: all of them hold; if not, $test_missing says which and why.
test_have_prereq() {
	local p why
	test_missing=""
	for p in "$@"; do
		why=""
		case "$p" in
		ROOT) [ "$(id -u)" = 0 ] || why="not root" ;;
		MOUNTNS) [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null || why="cannot unshare a mount namespace" ;;
		PERF) command -v perf >/dev/null && [ -r /proc/sys/kernel/perf_event_paranoid ] ||
			why="perf not installed or no perf events" ;;
		BPF) [ "$(id -u)" = 0 ] && [ -r /sys/kernel/btf/vmlinux ] || why="BPF needs root and /sys/kernel/btf/vmlinux" ;;
		CHROMIUM) command -v chromium >/dev/null || why="chromium not installed" ;;
		CLANG) command -v clang >/dev/null || why="clang not installed" ;;
		LLVM_PROFDATA) command -v llvm-profdata-14 >/dev/null || why="llvm-profdata-14 not installed (llvm-14)" ;;
		DEV_FULL) [ -w /dev/full ] || why="/dev/full is not writable here" ;;
		TWO_CPUS) [ "$(nproc)" -ge 2 ] || why="fewer than 2 CPUs" ;;
		SANITIZED) [ -n "${SANITIZE:-}" ] || why="only in a SANITIZE= build" ;;
		NOT_SANITIZED) [ -z "${SANITIZE:-}" ] || why="not in a SANITIZE= build" ;;
		HOST_GCC) [ -z "${PGO_TEST_GCC:-}" ] || [ "$PGO_TEST_GCC" = gcc ] || why="the compiler under test is $PGO_TEST_GCC, not the host gcc" ;;
		*) if [ -n "${test_prereqs[$p]+set}" ]; then why=${test_prereqs[$p]}; else why="unknown prerequisite"; fi ;;
		esac
		[ -z "$why" ] || test_missing="${test_missing:+$test_missing; }$p: $why"
	done
	[ -z "$test_missing" ]
}

# test_expect_success [PREREQS] 'title' 'body': PREREQS is a comma-separated list.
test_expect_success() {
	local prereq="" title body rc
	if [ $# = 3 ]; then prereq=$1; shift; fi
	title=$1 body=$2
	test_count=$((test_count + 1))
	if [ -n "$prereq" ] && ! test_have_prereq ${prereq//,/ }; then
		echo "ok $test_count - $title # SKIP $test_missing"
		test_skipped=$((test_skipped + 1))
		return 0
	fi
	# Called in an if, &&, || or ! context, bash would ignore -e in the body too: refuse.
	(set -e; false; true)
	if [ $? = 0 ]; then
		echo "not ok $test_count - $title"
		echo "# bug in the test script: test_expect_success called where bash ignores set -e"
		test_failed=$((test_failed + 1))
		return 0
	fi
	# Not "if (...)": the subshell must run as a command of its own for -e to hold in it.
	(set -e; eval "$body") >"$TRASH/.out" 2>&1
	rc=$?
	if [ "$rc" = 0 ]; then
		echo "ok $test_count - $title"
		[ -n "${VERBOSE:-}" ] && sed 's/^/# /' "$TRASH/.out"
	else
		echo "not ok $test_count - $title"
		sed 's/^/# /' "$TRASH/.out" | tail -40
		echo "# (the body exited $rc)"
		test_failed=$((test_failed + 1))
	fi
	return 0
}

# test_expect_code CODE cmd...: run cmd, require exit status CODE.
test_expect_code() {
	local want=$1 rc=0; shift
	"$@" || rc=$?
	if [ "$rc" != "$want" ]; then echo "expected exit $want, got $rc: $*" >&2; return 1; fi
}

test_cmp() { diff -u "$1" "$2"; }

test_must_be_empty() {
	if [ -s "$1" ]; then echo "'$1' is not empty:" >&2; cat "$1" >&2; return 1; fi
}

# test_grep [-v] PATTERN FILE: grep that shows the file on failure.
test_grep() {
	if [ "$1" = -v ]; then
		shift
		if grep -E -- "$1" "$2" >/dev/null; then echo "unexpected '$1' in $2:" >&2; cat "$2" >&2; return 1; fi
		return 0
	fi
	grep -E -- "$1" "$2" >/dev/null || { echo "no '$1' in $2:" >&2; head -50 "$2" >&2; return 1; }
}

# test_stable_ksyms < FOLDED: a frame inside a JIT-compiled BPF program (a collector's own, at
# syscall exit) is named bpf_prog_<tag>_<name> only while that program is loaded (unloading
# is deferred), else it is [kernel.kallsyms]: two converts of one recording may differ there.
test_stable_ksyms() { sed -E 's/bpf_prog_[0-9a-f]+_[A-Za-z0-9_]*_\[k\]/[kernel.kallsyms]_[k]/g'; }

# test_wait_until TRIES 'CONDITION': evaluate the shell CONDITION every 0.1 s until it holds,
# at most TRIES times; fails, saying so, if it never does.
test_wait_until() {
	local i
	for ((i = 0; i < $1; i++)); do
		if eval "$2"; then return 0; fi
		sleep 0.1
	done
	echo "still false after $1 tries: $2" >&2
	return 1
}

# skip_all REASON: the script runs nothing (say so, then call test_done).
skip_all() { skip_all_reason=$1; }

test_done() {
	if [ "$test_count" = 0 ]; then
		echo "1..0 # SKIP ${skip_all_reason:-nothing to run}"
		exit 77
	fi
	echo "1..$test_count"
	[ "$test_failed" = 0 ]
}
