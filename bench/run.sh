#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Benchmark dispatcher: `bench/run.sh NAME [ARGS]` runs bench/NAME.sh, `bench/run.sh` runs them all.
# Results are printed and kept under bench/work/results/ (bench/work/ also caches Debian sources).
set -u
cd "$(dirname "$0")"
if [ $# -gt 0 ]; then
	name=$1; shift
	[ -f "$name.sh" ] && [ "$name" != lib ] && [ "$name" != run ] || {
		echo "bench: no benchmark '$name' (have: $(ls *.sh | grep -vE '^(lib|run)\.sh$' | sed 's/\.sh$//' | tr '\n' ' '))" >&2
		exit 64
	}
	exec bash "./$name.sh" "$@"
fi
rc=0
for b in *.sh; do
	case "$b" in lib.sh|run.sh) continue ;; esac
	echo "== bench/$b"
	bash "./$b" || rc=2
done
exit $rc
