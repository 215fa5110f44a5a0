#!/usr/bin/env bash
# pgo gate check --profile against git notes that are not a usable baseline: a note on a
# commit off the first-parent path, on a tree instead of a commit, a note that is not a
# profile (text, empty, a verdict, binary bytes), a profile of another program. Each:
# exit 2 with a message saying which note (or that none was found), never a pass.
. "$(dirname "$0")/lib.sh"
SYNTH=$PGO_HELPERS/gate-synth

git_commit() {
	echo "$1" >>file && git add file && git -c user.name=t -c user.email=t@t commit -q -m "$1"
}
# note REV: replace the note on REV with stdin.
note() { git -c user.name=t -c user.email=t@t notes --ref=pgo add -f --allow-empty -F - "$1"; }
# check_fails PATTERN: check exits 2, the message matches PATTERN, no verdict was written.
check_fails() {
	test_expect_code 2 pgo gate check --profile ../head.json --json v.json >out 2>err &&
	cat err && test_grep "error: .*$1" err && test ! -e v.json &&
	test_grep -v "^verdict" out
}

test_expect_success 'setup: main with two commits, a side branch, a PR branch' '
	"$SYNTH" --seed 31 -o base.json &&
	"$SYNTH" --seed 32 -o head.json &&
	"$SYNTH" --seed 33 --binary /usr/bin/other -o other.json &&
	pgo gate compare base.json head.json --json verdict.json >/dev/null &&
	mkdir repo && cd repo && git init -q -b main && git_commit one && git_commit two &&
	git checkout -q -b side && git_commit side1 &&
	git checkout -q main && git checkout -q -b pr && git_commit pr1
'
test_expect_success 'a good note on the side branch is not a baseline for the PR' '
	cd repo && git -c user.name=t -c user.email=t@t notes --ref=pgo add -F ../base.json side &&
	check_fails "no baseline"
'
test_expect_success 'a good note on the tree of main (not a commit) is not a baseline' '
	cd repo && git rev-parse "main^{tree}" >tree &&
	note "$(cat tree)" <../base.json &&
	check_fails "no baseline"
'
main_short() { git rev-parse --short=12 main; }
test_expect_success 'a text note on main is exit 2 naming the note' '
	cd repo && echo "perf looked fine on my laptop" | note main &&
	check_fails "baseline note on $(main_short)"
'
test_expect_success 'an empty note on main is exit 2 naming the note' '
	cd repo && note main </dev/null &&
	check_fails "baseline note on $(main_short)"
'
test_expect_success 'a verdict JSON as the note is exit 2 naming the note' '
	cd repo && note main <../verdict.json &&
	check_fails "baseline note on $(main_short).*pgo-profile"
'
test_expect_success 'binary bytes (with NULs) as the note are exit 2 naming the note' '
	cd repo && head -c 4096 "$PGO_BIN/pgo" | note main &&
	check_fails "baseline note on $(main_short)"
'
test_expect_success 'a note holding a profile of another program is exit 2' '
	cd repo && note main <../other.json &&
	check_fails "same program"
'
test_expect_success 'the good note on main passes (the cases above are not vacuous)' '
	cd repo && note main <../base.json &&
	test_expect_code 0 pgo gate check --profile ../head.json >out &&
	test_grep "baseline note on $(main_short)" out
'
test_done
