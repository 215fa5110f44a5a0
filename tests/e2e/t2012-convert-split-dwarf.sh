#!/usr/bin/env bash
# pgo convert on -gsplit-dwarf builds: the binary keeps skeleton units, line tables and
# addresses, while the DIEs of the functions and their inline trees are in a .dwo file
# beside each object (DWARF 5 split units, and DWARF 4's GNU extension). The split and
# the ordinary build of the same source have the same machine code, so one recording
# converted against each must give the same profile; gcc takes it. A .dwo that is not
# where the build left it is named in a warning.
. "$(dirname "$0")/lib.sh"
. "$PGO_ROOT/tests/e2e/convert-lib.sh"

if ! test_have_prereq PERF || ! perf record -q -e cpu-clock -o probe.data true 2>/dev/null; then
	skip_all "perf record does not work here"
	test_done
fi

# same_text A B: the two binaries have byte-identical .text.
same_text() {
	objcopy -O binary -j .text "$1" "$1.text" && objcopy -O binary -j .text "$2" "$2.text" &&
	cmp "$1.text" "$2.text"
}

for dw in 5 4; do
	test_expect_success "DWARF $dw, -gsplit-dwarf: the same profile as the ordinary build's" '
		mkdir -p d$dw && cd d$dw &&
		build_hot hot -gdwarf-$dw -gsplit-dwarf && test -s hot.dwo &&
		readelf -wN -wi hot >info && test_grep "DW_TAG_(skeleton_unit|compile_unit)" info &&
		test_grep -v "DW_TAG_subprogram" info &&
		build_hot plain -gdwarf-$dw && same_text hot plain &&
		record s.data ./hot 4000000 &&
		pgo convert --to autofdo -i s.data -b hot -o split.afdo 2>err && test_grep -v "split-dwarf" err &&
		pgo convert --to llvm -i s.data -b hot -o split.llvm &&
		pgo convert --to folded -i s.data -o split.folded &&
		mv hot hot.split && cp plain hot &&
		pgo convert --to autofdo --force -i s.data -b hot -o plain.afdo 2>/dev/null &&
		pgo convert --to llvm --force -i s.data -b hot -o plain.llvm 2>/dev/null &&
		pgo convert --to folded --force -i s.data -o plain.folded 2>/dev/null &&
		mv hot.split hot &&
		test_cmp plain.afdo split.afdo && test_cmp plain.llvm split.llvm &&
		test_cmp plain.folded split.folded &&
		pgo convert --dump split.afdo >dump &&
		test_grep "^work: head [1-9]" dump && test_grep "inlined big, total [1-9]" dump &&
		gcc -O2 -Wall -fauto-profile=split.afdo -c "$FIX/hot.c" -o p.o 2>gcc.err &&
		test_must_be_empty gcc.err
	'
done
test_expect_success 'a .dwo moved away: a warning names it; no profile, exit 2' '
	cd d5 && mv hot.dwo away.dwo &&
	test_expect_code 2 pgo convert --to autofdo -i s.data -b hot -o gone.afdo 2>err &&
	mv away.dwo hot.dwo && cat err &&
	test_grep "warning: .hot. was built with -gsplit-dwarf, and 1 of its 1 split units have no \.dwo file where the build left it \(.*/d5/hot\.dwo\)" err &&
	test_grep "keep its \.dwo files" err && test ! -e gone.afdo
'
test_done
