#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Check that includes walk one way between the floors of the tree:
#   cmd -> gate -> convert -> symbolize -> collect -> lib
# A file may include its own floor's headers and any floor below it, never one above.
# Also: only symbolize/ may include libdw (<elfutils/...>, <dwarf.h>), and gate/ never
# includes collect/ (the command orchestrates collection; the gate judges profiles).
# Usage: tests/tools/layers.sh [ROOT]   prints each violation, exits 1 if any.
set -u
root=${1:-.}
floors=(lib collect symbolize convert gate cmd)
rank() {
	local i
	for i in "${!floors[@]}"; do [ "${floors[$i]}" = "$1" ] && { echo "$i"; return; }; done
	echo -1
}
bad=0
for from in "${floors[@]}"; do
	[ -d "$root/$from" ] || continue
	rf=$(rank "$from")
	while IFS=: read -r file line inc; do
		to=${inc%%/*}
		rt=$(rank "$to")
		[ "$rt" = -1 ] && continue
		if [ "$rt" -gt "$rf" ]; then
			echo "$file:$line: $from/ includes $inc, a floor above it"
			bad=1
		fi
		if [ "$from" = gate ] && [ "$to" = collect ]; then
			echo "$file:$line: gate/ includes $inc: the gate takes profiles; cmd/ runs the collector"
			bad=1
		fi
	done < <(cd "$root" && grep -HnE '^[[:space:]]*#[[:space:]]*include[[:space:]]+"[a-z]+/' "$from"/*.[ch] 2>/dev/null |
		sed -E 's/^([^:]+):([0-9]+):.*"([^"]+)".*/\1:\2:\3/')
	if [ "$from" != symbolize ]; then
		while IFS= read -r hit; do
			echo "$hit: libdw is symbolize/'s: go through its contract"
			bad=1
		done < <(cd "$root" && grep -HnE '#[[:space:]]*include[[:space:]]+<(elfutils/|dwarf\.h)' "$from"/*.[ch] 2>/dev/null)
	fi
done
exit $bad
