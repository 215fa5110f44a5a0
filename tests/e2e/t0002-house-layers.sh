#!/usr/bin/env bash
# The floors' includes walk one way (cmd -> gate -> convert -> symbolize -> collect -> lib);
# tests/tools/layers.sh says so of the tree, and catches an include that walks up.
. "$(dirname "$0")/lib.sh"

test_expect_success 'the tree includes one way, libdw only in symbolize/' '
	"$PGO_ROOT/tests/tools/layers.sh" "$PGO_ROOT" >out 2>&1 &&
	test_must_be_empty out
'

test_expect_success 'an include that walks up is named' '
	mkdir -p copy &&
	cp -r "$PGO_ROOT"/lib "$PGO_ROOT"/collect "$PGO_ROOT"/symbolize copy/ &&
	printf "#include \"convert/profile.h\"\n" >>copy/symbolize/ksyms.c &&
	test_expect_code 1 "$PGO_ROOT/tests/tools/layers.sh" copy >out &&
	test_grep "^symbolize/ksyms.c:[0-9]+: symbolize/ includes convert/profile.h" out
'

test_expect_success 'libdw outside symbolize/ and collect/ under gate/ are named' '
	mkdir -p copy2/gate copy2/convert &&
	printf "#include <elfutils/libdw.h>\n" >copy2/convert/x.c &&
	printf "#include \"collect/collect.h\"\n" >copy2/gate/y.c &&
	test_expect_code 1 "$PGO_ROOT/tests/tools/layers.sh" copy2 >out &&
	test_grep "^convert/x.c:1:.*libdw is symbolize" out &&
	test_grep "^gate/y.c:1: gate/ includes collect/collect.h" out
'

test_done
