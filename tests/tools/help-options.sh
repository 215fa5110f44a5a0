#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The options a command's --help text prints, one per line, sorted: what the manual pages and
# the bash completion must cover (tests/e2e/t0004-man-help.sh, t0005-bash-completion.sh).
#   pgo collect --help | tests/tools/help-options.sh options
#   pgo gate --help | tests/tools/help-options.sh commands    (gate's subcommands; pgo's commands)
# Options are read from the usage lines (from "usage:" to the first blank line) and from the
# option column of option lines (indented 2-6 spaces, starting with '-'; the column ends at the
# first run of two spaces). "--[no-]X" is both --X and --no-X. Examples are never read.
set -euo pipefail

case "${1:-}" in
options)
	awk '
	function grab(s,   t) {
		gsub(/--\[no-\]/, "--NO- --", s)
		while (match(s, /(^|[][ ,(|])--?[A-Za-z][A-Za-z0-9-]*/)) {
			t = substr(s, RSTART, RLENGTH)
			sub(/^[][ ,(|]/, "", t)
			print t
			s = substr(s, RSTART + RLENGTH)
		}
	}
	/^EXAMPLES/ { exit }
	/^ *usage:/ { inusage = 1 }
	inusage && /^ *$/ { inusage = 0 }
	inusage { grab($0); next }
	/^  +-/ && match($0, /^ +/) && RLENGTH <= 6 { col = substr($0, RLENGTH + 1); sub(/  .*/, "", col); grab(col) }
	' | awk '
	/^--NO-$/ { pending = 1; next }
	pending { print; sub(/^--/, "--no-"); print; pending = 0; next }
	{ print }
	' | sort -u
	;;
commands)
	awk '
	/^commands:/ { incmd = 1; next }
	incmd && /^ *$/ { incmd = 0 }
	incmd && /^   [a-z]+ / { print $1 }
	{ s = $0 }
	/^ *(usage:|or:)? *pgo gate [a-z]+/ { sub(/.*pgo gate /, "", s); sub(/ .*/, "", s); print s }
	' | sort -u
	;;
*)
	echo "usage: help-options.sh options|commands < HELP-TEXT" >&2
	exit 64
	;;
esac
