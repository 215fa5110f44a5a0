#!/usr/bin/env bash
# Run libFuzzer targets for a bounded time each: tests/fuzz/run.sh SECONDS build/fuzz/fuzz-X...
# Seeds come from tests/fuzz/corpus/X/ (read-only here); new inputs go to a scratch
# corpus. Exits 1 if any target crashed, leaked, hung or ran out of memory, and keeps
# the reproducer under build/fuzz/artifacts/X/ (rerun: build/fuzz/fuzz-X FILE).
# One summary line per target: executions, coverage, corpus size.
set -u
cd "$(dirname "$0")/../.."
secs=${1:?usage: run.sh SECONDS TARGET...}
shift
fail=0
for bin in "$@"; do
	name=$(basename "$bin"); name=${name#fuzz-}
	seeds=tests/fuzz/corpus/$name
	art=build/fuzz/artifacts/$name
	work=$(mktemp -d "${TMPDIR:-/tmp}/pgo-fuzz-$name.XXXXXX")
	log=$work.log
	mkdir -p "$art" "$seeds"
	# -close_fd_mask=3: the readers' own error messages would drown the log; libFuzzer
	# and the sanitizers keep a duplicate of stderr for their reports.
	"$bin" -max_total_time="$secs" -timeout=20 -rss_limit_mb=2048 -malloc_limit_mb=1024 \
		-close_fd_mask=3 -print_final_stats=1 -artifact_prefix="$art/" \
		"$work" "$seeds" >"$log" 2>&1
	rc=$?
	stats=$(grep -E '^#[0-9]+' "$log" | tail -1)
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	if [ "$rc" != 0 ]; then
		echo "fuzz-$name: FAILED (exit $rc) after ${execs:-?} runs; reproducer in $art/"
		grep -E 'ERROR|SUMMARY|Test unit written' "$log" | head -20
		fail=1
	else
		echo "fuzz-$name: ok, ${execs:-?} runs in ${secs}s; ${stats:-no stats}"
	fi
	rm -rf "$work" "$log"
done
exit $fail
