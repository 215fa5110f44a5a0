#!/usr/bin/env bash
# Shared by the tests that unwind tests/helpers/unwind-chain (main -> chain_a -> chain_b ->
# chain_c -> memset): how much of its weight has the whole chain. Source after lib.sh.

# chain_share FOLDED: of the weight whose user leaf is chain_a/b/c or memset (kernel frames
# on top dropped), the percentage whose stack has the full chain from main.
chain_share() {
	awk '{
		w = $NF; s = $0; sub(/ [0-9]+$/, "", s)
		while (s ~ /;[^;]*_\[k\]$/) sub(/;[^;]*_\[k\]$/, "", s)
		if (s !~ /(chain_[abc]|memset[^;]*)$/) next
		t += w
		if (s ~ /main;chain_a;chain_b;chain_c(;[^;]*memset[^;]*)?$/) m += w
	} END { printf "%d\n", t ? 100 * m / t : 0 }' "$1"
}
