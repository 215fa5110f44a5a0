#!/usr/bin/env bash
# chainlint (git's t/chainlint idea, reduced): every command of a test body must be joined to
# the next by && (or ||, |, &), so that a failing step fails the test even where bash ignores
# `set -e` (in any command of a && or || list but the last, hence in a chained loop or helper).
#
#   tests/tools/chainlint.sh FILE...   lint the bodies of test_expect_success calls in test scripts
#   tests/tools/chainlint.sh -         lint one body read from stdin
#
# Prints "FILE:LINE: PROBLEM: TEXT" for each finding, exits 1 if there is one. Problems:
#   broken &&-chain   a command line followed by another command without && || | & \ { ( do then
#                     else ;; in (case) or a case pattern at its end
#   ';' in chain      "a; b" (allowed before then/do/fi/done/esac/else/elif/}/), exit and return)
#   loop without exit the last command of a for/while/until body does not end "|| exit N" or
#                     "|| return N": a failing iteration but the last is lost
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
