#!/usr/bin/env bash
# The manual pages: make install puts them where man finds them, and every option each
# command's --help prints (tests/tools/help-options.sh) appears in its page, as do the
# commands and gate's subcommands. The pages are docs/man/*.scd, turned into roff by scdoc.
. "$(dirname "$0")/lib.sh"

command -v man >/dev/null || test_set_prereq MAN "man-db not installed"
command -v man >/dev/null && test_set_prereq MAN

# page_text PAGE: the roff page as plain words (\- is a hyphen, font changes dropped)
page_text() { sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' "$1"; }

# missing_options PAGE < HELP: the options of HELP that PAGE does not mention, one a line
missing_options() {
	local page=$1 opt
	page_text "$page" >"$TRASH/.page"
	"$PGO_ROOT/tests/tools/help-options.sh" options | while read -r opt; do
		grep -qE -- "(^|[^A-Za-z0-9-])$opt([^A-Za-z0-9-]|\$)" "$TRASH/.page" || echo "$opt"
	done
}

page_of() { if [ -n "$1" ]; then echo "pgo-$1"; else echo pgo; fi; }

test_expect_success 'make install puts the pages in PREFIX/share/man, man finds them' '
	make -s -C "$PGO_ROOT" OUTPUT="$PGO_BUILD" DESTDIR="$TRASH/inst" PREFIX=/usr install >/dev/null &&
	for p in man1/pgo.1 man1/pgo-collect.1 man1/pgo-convert.1 man1/pgo-gate.1 man5/pgo-formats.5; do
		test -s "inst/usr/share/man/$p" || exit 1
	done &&
	if command -v man >/dev/null; then
		test "$(MANPATH="$TRASH/inst/usr/share/man" man -w pgo-collect)" = \
			"$TRASH/inst/usr/share/man/man1/pgo-collect.1" &&
		test "$(MANPATH="$TRASH/inst/usr/share/man" man -w 5 pgo-formats)" = \
			"$TRASH/inst/usr/share/man/man5/pgo-formats.5"
	fi
'

test_expect_success MAN 'the pages render without warnings' '
	for p in inst/usr/share/man/man1/*.1 inst/usr/share/man/man5/*.5; do
		LC_ALL=C.UTF-8 MANROFFSEQ= MANWIDTH=80 man --warnings -l "$p" >out 2>err &&
		test_must_be_empty err && test_grep "^NAME" out || exit 1
	done
'

test_expect_success 'the option parser finds the options --help prints' '
	pgo collect --help | "$PGO_ROOT/tests/tools/help-options.sh" options >opts &&
	for o in -F --freq --call-graph -z --off-cpu --no-off-cpu --off-cpu-min -h --help; do
		grep -qx -- "$o" opts || { echo "parser missed $o"; exit 1; }
	done &&
	pgo convert --help | "$PGO_ROOT/tests/tools/help-options.sh" options >opts &&
	for o in --to -i --input --view --title --subtitle --offline-nested; do
		grep -qx -- "$o" opts || { echo "parser missed $o"; exit 1; }
	done &&
	! grep -qx -- "-fauto-profile=bench.afdo" opts && ! grep -qx -- "-O2" opts
'

test_expect_success 'every option of every --help is in its manual page' '
	for c in "" collect convert gate; do
		pgo $c --help | missing_options "inst/usr/share/man/man1/$(page_of "$c").1" >missing &&
		if test -s missing; then
			echo "$(page_of "$c").1 lacks: $(tr "\n" " " <missing)"; exit 1
		fi || exit 1
	done
'

test_expect_success 'the commands and gate subcommands are in the pages' '
	pgo --help | "$PGO_ROOT/tests/tools/help-options.sh" commands >cmds &&
	test "$(tr "\n" " " <cmds)" = "collect convert gate " &&
	page_text inst/usr/share/man/man1/pgo.1 >page &&
	while read -r c; do grep -q "^$c\$" page || exit 1; done <cmds &&
	pgo gate --help | "$PGO_ROOT/tests/tools/help-options.sh" commands >subs &&
	test "$(tr "\n" " " <subs)" = "check compare record " &&
	page_text inst/usr/share/man/man1/pgo-gate.1 >page &&
	while read -r c; do grep -qE "^$c( |\$)" page || exit 1; done <subs
'

test_expect_success 'self-check: an undocumented option is reported' '
	page_text inst/usr/share/man/man1/pgo-collect.1 | sed "s/--off-cpu-min//g" >cut.1 &&
	! cmp -s cut.1 inst/usr/share/man/man1/pgo-collect.1 &&
	pgo collect --help | missing_options cut.1 >missing &&
	test "$(cat missing)" = "--off-cpu-min" &&
	pgo collect --help >help &&
	sed "/^options:/a\\  -X, --xyzzy N          a new option" help >help2 &&
	grep -q xyzzy help2 &&
	missing_options inst/usr/share/man/man1/pgo-collect.1 <help2 >missing &&
	test "$(tr "\n" " " <missing)" = "--xyzzy -X "
'
test_done
