#!/usr/bin/env bash
# chainlint (git's t/chainlint idea, reduced): every command of a test body must be joined to
# the next by && (or ||, |, &), so that a failing step fails the test even where bash ignores
# `set -e` (in any command of a && or || list but the last, hence in a chained loop or helper).
#
#   tests/tools/chainlint.sh FILE...   lint the bodies of test_expect_success calls in test scripts
#   tests/tools/chainlint.sh -         lint one body read from stdin
#
# Prints "FILE:LINE: PROBLEM: TEXT" for each finding, exits 1 if there is one. Problems:
#   broken &&-chain   a command line followed by another command, ending in none of && || | &
#                     \ { ( do then else ;; "in" (case, for) or a case pattern. A line that ends
#                     "|| exit N" (N not 0), "|| return N" or "|| { ...; exit N; }" needs none
#                     (a failure ends the test), nor a retry loop's "... && break" or
#                     "CONDITION || break".
#   ';' in chain      "a; b", but before then do fi done esac else elif } ) ;; and where the rest
#                     of the list ends in exit, return or false ("cat err; exit 1").
#   loop without exit the last command list of a for/while/until body does not end in
#                     "|| exit N" or "|| return N" (or is one "CONDITION || break"): a failing
#                     iteration but the last would go unseen.
# The body's text is read the way the shell splits it: quotes, $(...), ${...}, `...`, (( )),
# here-documents and comments are not command lines of their own.
set -u
if [ $# = 0 ]; then
	echo "usage: $0 FILE... | -" >&2
	exit 2
fi

awk_prog=$(dirname "$0")/chainlint.awk
rc=0
for f in "$@"; do
	if [ "$f" = - ]; then
		awk -v NAME=stdin -v whole=1 -f "$awk_prog"
	else
		awk -v NAME="$f" -v whole=0 -f "$awk_prog" "$f"
	fi
	r=$?
	[ $r -gt 1 ] && exit $r	# awk itself failed: not a finding
	[ $r = 1 ] && rc=1
done
exit $rc
