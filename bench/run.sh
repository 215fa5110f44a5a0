#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Benchmark dispatcher: `bench/run.sh` runs every bench/*.sh and bench/*/run.sh, `bench/run.sh NAME`
# runs bench/NAME.sh or bench/NAME/run.sh (make bench B=NAME). Benchmarks print results; they are
# not tests.
set -u
cd "$(dirname "$0")"
if [ "${1:-}" = stacks ]; then
	# B=stacks: every call-stack benchmark (stacks.sh, stacks-oncpu.sh) that exists
	shift; rc=0
	for b in stacks.sh stacks-oncpu.sh; do
		[ -x "./$b" ] || continue
		echo "== bench ${b%.sh}"
		"./$b" "$@" || rc=$?
	done
	exit $rc
fi
if [ $# -gt 0 ] && [ -x "./$1/run.sh" ]; then
	name=$1; shift
	exec "./$name/run.sh" "$@"
fi
if [ $# -gt 0 ]; then
	[ -x "./$1.sh" ] || { echo "bench/run.sh: no benchmark '$1' (have: $(ls *.sh */run.sh | grep -v '^run.sh$' | sed 's,/run\.sh$,,; s/\.sh$//' | tr '\n' ' '))" >&2; exit 64; }
	name=$1; shift
	exec "./$name.sh" "$@"
fi
rc=0
for b in *.sh; do
	[ "$b" = run.sh ] || [ "$b" = lib.sh ] && continue
	echo "== bench ${b%.sh}"
	"./$b" || rc=$?
done
for b in */run.sh; do
	[ -x "$b" ] || continue
	echo "== bench ${b%/run.sh}"
	"./$b" || rc=$?
done
exit $rc
