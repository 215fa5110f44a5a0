#!/usr/bin/env bash
# The test library itself (tests/e2e/lib.sh), driven in a child bash on tiny scripts: a body
# fails on its first failing command, wherever it is, and a skip says why.
. "$(dirname "$0")/lib.sh"

# run_lib NAME: run the script NAME.sh (its tests written by the caller) on lib.sh; its TAP
# output in NAME.out, its exit status in NAME.rc.
run_lib() {
	{ printf '. "%s/tests/e2e/lib.sh"\n' "$PGO_ROOT" && cat "$1.sh" && echo test_done; } >"$1.run" &&
	{ SANITIZE= VERBOSE= bash "$1.run" >"$1.out" 2>&1; echo $? >"$1.rc"; } &&
	sed "s/^/$1: /" "$1.out"
}

test_expect_success 'a body "false; echo ok" fails' '
	cat >semi.sh <<-\EOF &&
	test_expect_success "semicolon" "false; echo ok"
	EOF
	run_lib semi &&
	test_grep "^not ok 1 - semicolon$" semi.out &&
	test_grep -v "^# ok$" semi.out &&
	test "$(cat semi.rc)" = 1
'

test_expect_success 'a failing command in the middle of a body fails the test, and nothing after it runs' '
	cat >mid.sh <<-\EOF &&
	test_expect_success "mid" "
		echo first
		test 1 = 2
		echo after >after
	"
	EOF
	run_lib mid &&
	test_grep "^not ok 1 - mid$" mid.out &&
	test_grep "^# first$" mid.out &&
	test_grep "the body exited 1" mid.out &&
	test_grep -v "^ok" mid.out &&
	test "$(cat mid.rc)" = 1
'

test_expect_success 'a failing command inside a helper the body calls fails the test' '
	cat >helper.sh <<-\EOF &&
	helper() { echo in helper; false; echo "helper went on"; }
	test_expect_success "helper" "helper"
	EOF
	run_lib helper &&
	test_grep "^not ok 1 - helper$" helper.out &&
	test_grep -v "helper went on" helper.out
'

test_expect_success 'a failing test_grep, test_cmp, test_must_be_empty or test_expect_code fails the test' '
	cat >asserts.sh <<-\EOF &&
	echo a >a && echo b >b
	test_expect_success "grep" "test_grep nothere a; echo ok"
	test_expect_success "grep -v" "test_grep -v a a; echo ok"
	test_expect_success "cmp" "test_cmp a b; echo ok"
	test_expect_success "empty" "test_must_be_empty a; echo ok"
	test_expect_success "code" "test_expect_code 1 true; echo ok"
	test_expect_success "all hold" "test_grep ^a\$ a && test_cmp a a && : >e && test_must_be_empty e && test_expect_code 3 sh -c \"exit 3\""
	EOF
	run_lib asserts &&
	test_grep "^not ok 1 - grep$" asserts.out &&
	test_grep "^not ok 2 - grep -v$" asserts.out &&
	test_grep "^not ok 3 - cmp$" asserts.out &&
	test_grep "^not ok 4 - empty$" asserts.out &&
	test_grep "^not ok 5 - code$" asserts.out &&
	test_grep "^ok 6 - all hold$" asserts.out &&
	test_grep "^1\.\.6$" asserts.out &&
	test "$(cat asserts.rc)" = 1
'

test_expect_success 'a body that passes passes' '
	cat >pass.sh <<-\EOF &&
	test_expect_success "pass" "
		echo x >f &&
		test_grep x f
		if false; then echo never; fi
		! false
	"
	EOF
	run_lib pass &&
	test_grep "^ok 1 - pass$" pass.out &&
	test_grep "^1\.\.1$" pass.out &&
	test "$(cat pass.rc)" = 0
'

test_expect_success 'a missing prerequisite: skipped, saying which and why; the body not run' '
	cat >skip.sh <<-\EOF &&
	test_expect_success SANITIZED "needs a sanitizer" "echo ran >ran; false"
	test_expect_success "runs" "true"
	test_set_prereq HAVE && test_set_prereq LACK "the script says so"
	test_expect_success HAVE,LACK "own prerequisites" "false"
	test_expect_success HAVE "own prerequisite" "true"
	EOF
	run_lib skip &&
	test_grep "^ok 1 - needs a sanitizer # SKIP SANITIZED: only in a SANITIZE= build$" skip.out &&
	test_grep "^ok 2 - runs$" skip.out &&
	test_grep "^ok 3 - own prerequisites # SKIP LACK: the script says so$" skip.out &&
	test_grep "^ok 4 - own prerequisite$" skip.out &&
	test "$(cat skip.rc)" = 0
'

test_expect_success 'a script that runs nothing exits 77 with its reason' '
	cat >none.sh <<-\EOF &&
	skip_all "nothing here to test"
	EOF
	run_lib none &&
	test_grep "^1\.\.0 # SKIP nothing here to test$" none.out &&
	test "$(cat none.rc)" = 77
'

test_expect_success 'test_expect_success where bash ignores -e (before ||) is refused' '
	cat >cond.sh <<-\EOF &&
	test_expect_success "in a list" "false; echo ok" || echo never
	EOF
	run_lib cond &&
	test_grep "^not ok 1 - in a list$" cond.out &&
	test_grep "bug in the test script" cond.out &&
	test "$(cat cond.rc)" = 1
'

test_expect_success 'tests/run.sh counts passed, failed and skipped tests' '
	mkdir -p fake/tests/e2e fake/build/tests &&
	cp "$PGO_ROOT"/tests/run.sh fake/tests/ &&
	cp "$PGO_ROOT"/tests/e2e/lib.sh fake/tests/e2e/ &&
	cp asserts.run fake/tests/e2e/t0001-a.sh &&
	cp skip.run fake/tests/e2e/t0002-b.sh &&
	cp none.run fake/tests/e2e/t0003-c.sh &&
	test_expect_code 1 env SANITIZE= fake/tests/run.sh >run.out 2>&1 &&
	cat run.out &&
	test_grep "^3 passed, 5 failed, 3 skipped$" run.out
'

test_done
