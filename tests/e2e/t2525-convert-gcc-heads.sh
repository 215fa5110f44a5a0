#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Head (entry) counts without LBR: gcc uses a function's head count as its entry count and
# scales inlined bodies by call count / entry count, so the head must be in the units of the
# callers' call lines. With DWARF-unwound stacks pgo convert takes the larger of the entry
# line's count and the sum of the callers' call-line counts; here the call line of main does
# slow work of its own, so its count is far above that of mix's entry line.
. "$(dirname "$0")/lib.sh"
. "$PGO_ROOT/tests/e2e/afdo-lib.sh"
afdo_require

# head_of DUMP FN / line_of DUMP FN OFFSET: numbers from `pgo convert --dump`.
head_of() { sed -n "s/^$2: head \([0-9]*\),.*/\1/p" "$1"; }
line_of() { awk -v fn="$2:" -v off="+$3:" '$1 == fn { in_fn = 1; next } /^[^ ]/ { in_fn = 0 }
	in_fn && $1 == off { print $2; exit }' "$1"; }

test_expect_success 'the head count of mix covers its caller'"'"'s call line (DWARF stacks)' '
	gcc -O2 -g -o heads heads.c &&
	for rec in $(afdo_stack_recorders); do
		afdo_record $rec $rec.data ./heads 20000000 &&
		pgo convert --to autofdo -i $rec.data -b heads -o $rec.afdo &&
		pgo convert --dump $rec.afdo >$rec.dump &&
		head=$(head_of $rec.dump mix) && call=$(line_of $rec.dump main 7) &&
		entry=$(line_of $rec.dump mix 1) &&
		echo "$rec: mix head $head, entry line $entry; main call line $call" &&
		test_ge "$call" 20 "$rec: samples on the call line" &&
		test_ge "$head" "$call" "$rec: head of mix vs the call line count" &&
		test_ge "$head" 2 "$rec: head of mix" &&
		afdo_gcc_clean $rec.afdo heads.c &&
		gcc -O2 -fauto-profile=$rec.afdo -c heads.c -o heads.o \
			-fdump-tree-fixup_cfg3-blocks-details-lineno=$rec.gcc &&
		g=$(afdo_head_count $rec.gcc mix) &&
		echo "$rec: gcc entry count of mix $g" &&
		test_ge "$g" "$call" "$rec: gcc entry count of mix" || exit 1
	done
'

# entry_max DUMP BIN FUNC DECL_LINE: the largest count in DUMP of the lines of FUNC's entry block.
entry_max() {
	local l c max=0
	for l in $(afdo_entry_lines "$2" "$3" | sort -u); do
		c=$(line_of "$1" "$3" $((l - $4)))
		[ "${c:-0}" -gt "$max" ] && max=$c
	done
	echo $max
}

# gcc 12 gives the first block the largest count of its lines and scales the body by head /
# that count: mix begins with its loop test, so its entry line alone scaled the loop down.
test_expect_success 'without stacks the head is the entry block'"'"'s largest line count, and gcc keeps the body'"'"'s counts' '
	afdo_record perf flat.data ./heads 20000000 &&
	pgo convert --to autofdo -i flat.data -b heads -o flat.afdo &&
	pgo convert --dump flat.afdo >flat.dump &&
	head=$(head_of flat.dump mix) && entry=$(line_of flat.dump mix 1) &&
	block=$(entry_max flat.dump heads mix 10) && body=$(line_of flat.dump mix 4) &&
	echo "flat: mix head $head, entry line $entry, entry block (objdump) $block, loop body $body" &&
	test_ge "$block" "$entry" "entry block vs entry line" &&
	{ test "$head" = "$block" || test "$block" -lt 2 -a "$head" = 2; } &&
	afdo_gcc_clean flat.afdo heads.c &&
	gcc -O2 -fauto-profile=flat.afdo -c heads.c -o flat.o \
		-fdump-tree-fixup_cfg3-blocks-details-lineno=flat.gcc &&
	g=$(afdo_line_count flat.gcc mix heads.c 14) &&
	echo "flat: gcc count of the loop body $g" &&
	test_ge "$body" 10 "samples on the loop body" &&
	test_ge "$g" "$body" "gcc count of the loop body vs its samples"
'
# Without Zydis (hidden here by a bind mount of /dev/null over the library, in a private
# mount namespace) the entry block is unknown: one warning, and the head is the entry line's
# count again, as before entry blocks; the profile is written all the same.
test_expect_success MOUNTNS 'without Zydis: one warning, and the head falls back to the entry line' '
	zydis=$(readlink -f /usr/lib/$(gcc -print-multiarch)/libZydis.so) && test -f "$zydis" &&
	unshare -m sh -c "mount --bind /dev/null $zydis && pgo convert --to autofdo -i flat.data -b heads -o nz.afdo" 2>nz.err &&
	test "$(grep -c "warning: cannot load libZydis" nz.err)" = 1 &&
	test_grep "head counts come from entry lines only" nz.err &&
	pgo convert --dump nz.afdo >nz.dump &&
	l=$(afdo_entry_lines heads mix | head -1) && test -n "$l" &&
	head=$(head_of nz.dump mix) && entry=$(line_of nz.dump mix $((l - 10))) && entry=${entry:-0} &&
	block=$(head_of flat.dump mix) &&
	echo "no Zydis: mix head $head, entry line $l (objdump) count $entry; with Zydis $block" &&
	{ test "$head" = "$entry" || test "$entry" -lt 2 -a "$head" = 2; } &&
	{ test "$block" -le 2 || test_ge "$((block - 1))" "$head" "the entry line head vs the entry block head"; } &&
	grep "^ " nz.dump >a && grep "^ " flat.dump >b && test_cmp b a
'
# Before: every target of an indirect call got the whole call line as head (op_a = op_b = line).
test_expect_success 'an indirect call line'"'"'s count is shared among its targets by their stack samples' '
	gcc -O2 -g -o icheads icheads.c &&
	for rec in $(afdo_stack_recorders); do
		afdo_record $rec ic-$rec.data ./icheads 4000000 &&
		pgo convert --to autofdo -i ic-$rec.data -b icheads -o ic-$rec.afdo &&
		pgo convert --dump ic-$rec.afdo >ic-$rec.dump &&
		a=$(head_of ic-$rec.dump op_a) && b=$(head_of ic-$rec.dump op_b) &&
		call=$(line_of ic-$rec.dump main 5) &&
		echo "$rec: call line $call, heads op_a $a, op_b $b" &&
		test_ge "$call" 40 "$rec: samples on the call line" &&
		test_ge "$a" "$((b + 1))" "$rec: head of op_a (3 calls in 4) vs op_b" &&
		test_ge "$((a + b))" "$((call * 8 / 10))" "$rec: the heads together vs the call line" &&
		test_ge "$((call * 12 / 10))" "$((a + b))" "$rec: the call line vs the heads together" &&
		afdo_gcc_clean ic-$rec.afdo icheads.c || return 1
	done
'
test_done
