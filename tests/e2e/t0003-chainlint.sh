#!/usr/bin/env bash
# tests/tools/chainlint.sh: every test body chains its commands, so that no failure in it can
# go unseen; the tool names known-bad bodies and passes the shell forms the tests use.
. "$(dirname "$0")/lib.sh"
CL=$PGO_ROOT/tests/tools/chainlint.sh

test_expect_success 'every test body in tests/e2e is chained' '
	"$CL" "$PGO_ROOT"/tests/e2e/t*.sh >out 2>&1 &&
	test_must_be_empty out
'

# lint_body NAME: lint the body in NAME (a file) into NAME.lint; the status is chainlint'"'"'s.
lint_body() { "$CL" - <"$1" >"$1.lint" 2>&1; }

test_expect_success 'known-bad bodies are named, with the line' '
	cat >semi <<-\EOF &&
	false; echo ok
	EOF
	test_expect_code 1 lint_body semi &&
	test_grep "^stdin:1: .;. in chain: false; echo ok$" semi.lint &&

	cat >unchained <<-\EOF &&
	echo a >a &&
	grep b a
	echo done
	EOF
	test_expect_code 1 lint_body unchained &&
	test_grep "^stdin:2: broken &&-chain: grep b a$" unchained.lint &&
	test $(wc -l <unchained.lint) = 1 &&

	cat >loop <<-\EOF &&
	for f in a b; do
		test -e $f && cat $f
	done &&
	echo after
	EOF
	test_expect_code 1 lint_body loop &&
	test_grep "^stdin:2: loop without exit:" loop.lint &&

	cat >exit0 <<-\EOF &&
	command -v nosuchtool || exit 0
	nosuchtool --run
	EOF
	test_expect_code 1 lint_body exit0 &&
	test_grep "^stdin:1: broken &&-chain: command -v nosuchtool \|\| exit 0$" exit0.lint &&

	cat >ignored <<-\EOF &&
	kill $pid || :
	wait $pid
	EOF
	test_expect_code 1 lint_body ignored &&
	test_grep "^stdin:1: broken" ignored.lint &&

	cat >heredoc <<-\EOF &&
	python3 - <<-\PY
		print(1)
	PY
	echo done
	EOF
	test_expect_code 1 lint_body heredoc &&
	test_grep "^stdin:1: broken &&-chain: python3" heredoc.lint
'

test_expect_success 'the chained forms pass' '
	cat >good <<-\EOF &&
	# a comment; not a command
	cat >x <<-\END &&
		a; b
		c
	END
	v=$(echo "a
	b"; echo c) && test -n "$v" &&
	if test -e x; then
		echo yes
	elif false; then :; else
		echo no
	fi &&
	for f in x y; do
		test -e $f && cat $f || { echo "no $f"; exit 1; }
	done &&
	while read -r l; do
		case "$l" in
		a*) echo a ;;
		*)
			echo other ;;
		esac || exit 1
	done <x &&
	for try in 1 2 3; do
		grep -q a x || exit 1
		grep -q a x && break
		test $try -lt 3 || exit 1
	done &&
	(
		cd / &&
		pwd
	) | cat &&
	sleep 1 &
	pid=$! &&
	{ test -s x || { cat x; false; }; } &&
	test_expect_code 0 true ||
		exit 1
	echo last
	EOF
	lint_body good &&
	test_must_be_empty good.lint
'

test_expect_success 'file mode: the bodies of test_expect_success, named by their lines in the file' '
	cat >t9999-x.sh <<-\EOF &&
	. lib.sh
	test_expect_success PERF "title" "
		a &&
		b
		c
	"
	test_expect_success "t2" "d; e"
	test_done
	EOF
	test_expect_code 1 "$CL" t9999-x.sh >out &&
	cat out &&
	test_grep "^t9999-x.sh:4: broken &&-chain: b$" out &&
	test_grep "^t9999-x.sh:7: .;. in chain: d; e$" out &&
	test $(wc -l <out) = 2
'

test_done
