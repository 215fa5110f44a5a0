#!/usr/bin/env bash
# Run every unit test (build/tests/*) and end-to-end test (tests/e2e/t*.sh), each as TAP,
# and end with one summary line: "N passed, N failed, N skipped".
# Usage: tests/run.sh [PATTERN]   (PATTERN filters test names, e.g. t1 or lib-)
set -u
cd "$(dirname "$0")/.."
export PGO_ROOT=$PWD
export PGO_BUILD=${PGO_BUILD:-build}
export PGO_BIN=$PWD/$PGO_BUILD/bin
export LC_ALL=C
pattern=${1:-}
pass=0 fail=0 skip=0 failed_names=()
results=$(mktemp -d)
trap 'rm -rf "$results"' EXIT

run_one() { # name, command...
	local name=$1; shift
	local out="$results/$(echo "$name" | tr '/' '_').out"
	local t0=$SECONDS
	timeout 600 "$@" >"$out" 2>&1
	local rc=$?
	local p f s
	p=$(grep -cE '^ok [0-9]+' "$out" | head -1); s=$(grep -cE '^ok [0-9]+.*# (SKIP|skip)' "$out")
	f=$(grep -cE '^not ok [0-9]+' "$out")
	p=$((p - s))
	if [ "$rc" = 77 ] && [ "$p$f" = 00 ]; then s=$((s + 1)); fi
	if [ "$rc" != 0 ] && [ "$rc" != 77 ] && [ "$f" = 0 ]; then f=1; echo "not ok - $name exited $rc" >>"$out"; fi
	pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
	printf '%-44s %3d passed %3d failed %3d skipped  (%ds)\n' "$name" "$p" "$f" "$s" $((SECONDS - t0))
	if [ "$f" != 0 ]; then
		failed_names+=("$name")
		sed 's/^/    | /' "$out" | grep -vE '^\s+\| ok ' | tail -60
	elif [ -n "${VERBOSE:-}" ]; then
		sed 's/^/    | /' "$out"
	fi
}

for t in "$PGO_BUILD"/tests/*; do
	[ -f "$t" ] && [ -x "$t" ] || continue
	name=unit/$(basename "$t")
	case "$name" in *"$pattern"*) ;; *) continue ;; esac
	run_one "$name" "$t"
done
for t in tests/e2e/t[0-9]*.sh; do
	[ -f "$t" ] || continue
	name=e2e/$(basename "$t" .sh)
	case "$name" in *"$pattern"*) ;; *) continue ;; esac
	run_one "$name" bash "$t"
done

echo
[ ${#failed_names[@]} -gt 0 ] && echo "failed: ${failed_names[*]}"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
