#!/usr/bin/env bash
# End-to-end test library (git t/test-lib.sh, reduced). Source it first:
#   . "$(dirname "$0")/lib.sh"
#   test_expect_success 'title' 'commands && more'
#   test_done
# Each test runs in a fresh scratch directory ($TRASH) with `set -e` semantics inside
# the body. Output is TAP. test_have_prereq ROOT|PERF|BPF|CHROMIUM|CLANG|TWO_CPUS|HOST_GCC skips with a
# visible reason; a script that can run nothing exits 77.
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

test_have_prereq() {
	local p
	for p in "$@"; do
		case "$p" in
		ROOT) [ "$(id -u)" = 0 ] || return 1 ;;
		MOUNTNS) [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null || return 1 ;;
		PERF) command -v perf >/dev/null && [ -r /proc/sys/kernel/perf_event_paranoid ] || return 1 ;;
		BPF) [ "$(id -u)" = 0 ] && [ -r /sys/kernel/btf/vmlinux ] || return 1 ;;
		CHROMIUM) command -v chromium >/dev/null || return 1 ;;
		CLANG) command -v clang >/dev/null || return 1 ;;
		TWO_CPUS) [ "$(nproc)" -ge 2 ] || return 1 ;;
		SANITIZED) [ -n "${SANITIZE:-}" ] || return 1 ;;
		NOT_SANITIZED) [ -z "${SANITIZE:-}" ] || return 1 ;;
		HOST_GCC) [ -z "${PGO_TEST_GCC:-}" ] || [ "$PGO_TEST_GCC" = gcc ] || return 1 ;;
		*) echo "# unknown prereq $p" >&2; return 1 ;;
		esac
	done
}

# test_expect_success [PREREQS] 'title' 'body'
test_expect_success() {
	local prereq="" title body
	if [ $# = 3 ]; then prereq=$1; shift; fi
	title=$1 body=$2
	test_count=$((test_count + 1))
	if [ -n "$prereq" ] && ! test_have_prereq ${prereq//,/ }; then
		echo "ok $test_count - $title # SKIP missing $prereq"
		test_skipped=$((test_skipped + 1))
		return 0
	fi
	if (set -e; eval "$body") >"$TRASH/.out" 2>&1; then
		echo "ok $test_count - $title"
		[ -n "${VERBOSE:-}" ] && sed 's/^/# /' "$TRASH/.out"
	else
		echo "not ok $test_count - $title"
		sed 's/^/# /' "$TRASH/.out" | tail -40
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

skip_all() { skip_all_reason=$1; }

test_done() {
	if [ "$test_count" = 0 ]; then
		echo "1..0 # SKIP ${skip_all_reason:-nothing to run}"
		exit 77
	fi
	echo "1..$test_count"
	[ "$test_failed" = 0 ]
}
