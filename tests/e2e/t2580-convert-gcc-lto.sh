#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Black-box, LTO: gcc reads an AutoFDO profile while it compiles each unit, before the
# link-time optimiser inlines across units. work() (lto-work.c) inlined into main
# (lto-main.c) by -flto leaves its samples in an instance inside main's record, which
# neither compile can use: lto-main.c cannot inline work, and lto-work.c looks for a
# record of work, which the binary has no out-of-line copy to give. The converter adds
# such cross-unit instances into their function's own record and gives their count to
# the call line: gcc's dumps must show work's loop hot in lto-work.c and the call hot in
# lto-main.c. Within one unit an instance that inlines nothing itself must not get a record
# (t2585: one that does, does).
. "$(dirname "$0")/lib.sh"
. "$PGO_ROOT/tests/e2e/afdo-lib.sh"
afdo_require

test_expect_success 'setup: -flto inlines work() into main across units' '
	gcc -O2 -g -flto -o lto lto-main.c lto-work.c &&
	./lto 1000 >expect &&
	! nm lto | grep -q " work$" &&
	afdo_disas lto main >main.s && ! grep -q "call.*<work" main.s &&
	readelf --debug-dump=info lto >info && grep -q "DW_TAG_inlined_subroutine" info
'

for rec in $AFDO_RECORDERS; do
	test_expect_success "$rec: work gets its own record, and gcc reads it in lto-work.c" '
		afdo_record '$rec' '$rec'.data ./lto 8000000 &&
		pgo convert --to autofdo -i '$rec'.data -b lto -o '$rec'.afdo &&
		pgo convert --dump '$rec'.afdo >'$rec'.dump && cat '$rec'.dump &&
		afdo_section '$rec'.dump main | grep -q "inlined work, total [1-9]" &&
		afdo_section '$rec'.dump work >'$rec'.work &&
		test_grep "^work: head [1-9][0-9]*, total [1-9]" '$rec'.work &&
		afdo_gcc_clean '$rec'.afdo lto-work.c -flto &&
		afdo_gcc_clean '$rec'.afdo lto-main.c -flto &&
		gcc -O2 -flto -ffat-lto-objects -fauto-profile='$rec'.afdo -c lto-work.c -o w.o \
			-fdump-tree-fixup_cfg3-blocks-details-lineno='$rec'.wdump &&
		c=$(afdo_line_count '$rec'.wdump work lto-work.c 9) && echo "work loop: $c" &&
		test_ge "$c" 50 "count of work'"'"'s loop body in lto-work.c" &&
		# and the call: its instructions went to the instance, so the call line has a
		# count only if the converter gives it one; without it the link-time inliner
		# sees a cold call
		gcc -O2 -flto -ffat-lto-objects -fauto-profile='$rec'.afdo -c lto-main.c -o m.o \
			-fdump-tree-fixup_cfg3-blocks-details-lineno='$rec'.mdump &&
		grep -q "lto-main.c:11:.* = work (" '$rec'.mdump &&
		m=$(afdo_line_count '$rec'.mdump main lto-main.c 11) && echo "call of work: $m" &&
		if [ "$AFDO_GCC" = 12 ]; then
			test_ge "$m" 50 "count of the block calling work in lto-main.c"
		else
			# the entry count of the inlined copy, which gcc 13+ lay out as a
			# block of 3 instructions before a 64-iteration loop: a few samples
			c=$(afdo_section '$rec'.dump main | sed -n "s/^  +5: \([0-9]*\)\$/\1/p") &&
			echo "the call line in the profile: $c" && test_ge "$c" 2 "the call line" &&
			test_ge "$m" "$c" "count of the block calling work in lto-main.c"
		fi
	'
done

# work's entry count: the entry block of its inlined copy (DW_AT_entry_pc on), not its
# loop's count; gcc raises a function's first block to the head count, so a head taken
# from the loop tells gcc the loop runs once per call.
test_expect_success 'an offlined record'"'"'s head counts entries, not loop iterations' '
	gcc -O2 -g -flto -o ltol lto-main.c lto-loop.c && ! nm ltol | grep -q " work$" &&
	readelf --debug-dump=info ltol | grep -A3 "DW_TAG_inlined_subroutine" | grep -q DW_AT_entry_pc &&
	afdo_record perf loop.data ./ltol 3000000 &&
	pgo convert --to autofdo -i loop.data -b ltol -o loop.afdo &&
	pgo convert --dump loop.afdo >loop.dump && cat loop.dump &&
	afdo_section loop.dump work >loop.work && test_grep "^work: head [1-9]" loop.work &&
	gcc -O2 -flto -ffat-lto-objects -fauto-profile=loop.afdo -c lto-loop.c -o l.o \
		-fdump-tree-fixup_cfg3-blocks-details-lineno=loop.wdump &&
	e=$(afdo_line_count loop.wdump work lto-loop.c 9) &&
	b=$(afdo_line_count loop.wdump work lto-loop.c 13) && echo "entry $e, loop body $b" &&
	test_ge "$e" 1 "count of work'"'"'s first block" &&
	test_ge "$b" $((8 * e)) "count of its loop body (64-127 a call)"
'

# the chroots' libc has no debug info (no libc6-dbg there)
test_expect_success HOST_GCC 'a second binary (-b libc) does not add work'"'"'s instance again' '
	libc=$(ldd lto | awk "/libc\\.so/ { print \$3 }") && test -f "$libc" &&
	pgo convert --to autofdo -i perf.data -b lto -b "$libc" -o two.afdo &&
	pgo convert --dump two.afdo >two.dump &&
	afdo_section perf.dump work >one.work && afdo_section two.dump work >two.work &&
	test_cmp one.work two.work
'

test_expect_success 'the LTO rebuild with the profile links silently and computes the same' '
	gcc -O2 -g -flto -Wall -fauto-profile=perf.afdo -o rebuilt lto-main.c lto-work.c 2>gcc.err &&
	test_must_be_empty gcc.err &&
	./rebuilt 1000 >actual && test_cmp expect actual
'

test_expect_success 'inlined within one unit, inlining nothing itself: no record of its own' '
	sed "s/^int work(unsigned x)/static int work(unsigned x)/" lto-work.c >one.c &&
	sed -n "/^#include/p; /^int main/,\$p" lto-main.c >>one.c &&
	gcc -O2 -g -o one one.c && ! nm one | grep -q " work$" &&
	afdo_record perf one.data ./one 8000000 &&
	pgo convert --to autofdo -i one.data -b one -o one.afdo &&
	pgo convert --dump one.afdo >one.dump && cat one.dump &&
	afdo_section one.dump main | grep -q "inlined work, total [1-9]" &&
	test_grep -v "^work:" one.dump
'
test_done
