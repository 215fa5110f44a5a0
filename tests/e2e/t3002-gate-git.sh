#!/usr/bin/env bash
# pgo gate record/check in a git repository: the baseline is a git note (refs/notes/pgo)
# on main, found from a PR branch through the merge-base or the nearest first-parent
# ancestor; a regressing commit exits 1, missing baselines exit 2. Profiles are given
# with --profile (generated JSON), so this runs without perf.
. "$(dirname "$0")/lib.sh"
SYNTH=$PGO_HELPERS/gate-synth

git_commit() {
	echo "$1" >>file && git add file && git -c user.name=t -c user.email=t@t commit -q -m "$1"
}

test_expect_success 'setup: repository with main, profiles' '
	"$SYNTH" --seed 21 -o base.json &&
	"$SYNTH" --seed 22 -o same.json &&
	"$SYNTH" --seed 23 --inject abs:0.05 -o slow.json &&
	"$SYNTH" --seed 24 --inject abs:0.05 -o slow2.json &&
	"$SYNTH" --seed 25 --runs 1 -o one.json &&
	mkdir repo && cd repo && git init -q -b main && git_commit one
'
test_expect_success 'check without any baseline is an error (exit 2) that says how to record' '
	cd repo && git_commit two &&
	test_expect_code 2 pgo gate check --profile ../same.json 2>err &&
	test_grep "no baseline" err && test_grep "pgo gate record" err
'
test_expect_success 'record stores the profile as a note under refs/notes/pgo' '
	cd repo &&
	pgo gate record --profile ../base.json 2>err &&
	git show-ref refs/notes/pgo >refs && test_grep "refs/notes/pgo" refs &&
	git notes --ref=pgo show HEAD >note && cmp note ../base.json
'
test_expect_success 'record refuses a 1-run profile (exit 2) and leaves no note' '
	cd repo && git_commit three &&
	test_expect_code 2 pgo gate record --profile ../one.json 2>err &&
	test_grep "at least 2" err &&
	! git notes --ref=pgo show HEAD 2>/dev/null
'
test_expect_success 'a PR branch: unchanged code passes, a regressing commit fails (exit 1)' '
	cd repo && git checkout -q -b pr && git_commit pr1 &&
	test_expect_code 0 pgo gate check --profile ../same.json >out &&
	test_grep "baseline note on" out &&
	git_commit regress &&
	test_expect_code 1 pgo gate check --profile ../slow.json --markdown c.md --json v.json >out &&
	test_grep "^fn_003 .*ROOT CAUSE" out && test_grep "fn_003" c.md &&
	test_grep "^mode: notes" out && test_grep "\"mode\": \"notes\"" v.json &&
	test_grep "\(notes\)" c.md
'
test_expect_success 'the baseline is the nearest noted first-parent ancestor of the merge-base' '
	cd repo && git checkout -q main && git_commit main4 &&
	git checkout -q pr &&
	test_expect_code 1 pgo gate check --profile ../slow.json >out &&
	git rev-parse --short=12 main~2 >want && test_grep "$(cat want)" out
'
test_expect_success '--base picks the target; an unknown one is an error' '
	cd repo &&
	test_expect_code 1 pgo gate check --base main --profile ../slow.json >out &&
	test_expect_code 2 pgo gate check --base nosuch --profile ../slow.json 2>err &&
	test_grep "nosuch" err
'
test_expect_success '--confirm: a reproduced flag fails, an unreproduced one passes with a warning' '
	cd repo &&
	test_expect_code 1 pgo gate check --profile ../slow.json --confirm-profile ../slow2.json \
		--svg d.svg --json v.json >out 2>err &&
	test_grep "^fn_003 .*ROOT CAUSE" out &&
	test_grep "\"head_runs\": 10" v.json &&
	grep -q "<g class=\"f regressed\"[^>]*><title>fn_003" d.svg &&
	test_expect_code 0 pgo gate check --profile ../slow.json --confirm-profile ../same.json >out 2>err &&
	test_grep "inconclusive, not reproduced" err
'
test_expect_success '--ref stores and reads another notes ref' '
	cd repo &&
	pgo gate record --ref refs/notes/perf2 --profile ../base.json 2>err &&
	git show-ref refs/notes/perf2 >refs && test_grep perf2 refs &&
	test_expect_code 64 pgo gate record --ref refs/heads/x --profile ../base.json 2>err
'
test_expect_success 'a corrupt baseline note is an error (exit 2), not a pass' '
	cd repo && git checkout -q main &&
	echo "{\"format\":\"pgo-profile\",\"version\":1" | git notes --ref=pgo add -f -F - HEAD~1 &&
	git checkout -q pr &&
	test_expect_code 2 pgo gate check --profile ../same.json 2>err &&
	test_grep "baseline note on" err
'
test_expect_success 'outside a git repository record/check are errors (exit 2)' '
	mkdir -p /tmp/pgo-nogit.$$ && cd /tmp/pgo-nogit.$$ &&
	rc=0 && { GIT_CEILING_DIRECTORIES=/tmp pgo gate check --profile "$TRASH/same.json" 2>err || rc=$?; } &&
	cat err && cd / && rm -rf /tmp/pgo-nogit.$$ && test "$rc" = 2
'
# ld.so says "needed by" for a linked library and "dynamically loaded by" for dlopen.
test_expect_success 'only record/check load libgit2 (dlopen); other commands start without it' '
	LD_DEBUG=files pgo --version >/dev/null 2>ld.version &&
	test_grep "file=libc.so" ld.version && ! grep -q "file=libgit2" ld.version &&
	LD_DEBUG=files pgo gate compare base.json same.json >/dev/null 2>ld.compare &&
	! grep -q "file=libgit2" ld.compare &&
	cd repo && git checkout -q main && git_commit four &&
	LD_DEBUG=files pgo gate record --profile ../base.json 2>../ld.record &&
	grep "file=libgit2" ../ld.record >../ld.git && test_grep "dynamically loaded" ../ld.git &&
	git notes --ref=pgo show HEAD >note && cmp note ../base.json
'
test_done
