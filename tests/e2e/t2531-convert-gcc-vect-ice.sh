#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A gcc 12.2 bug our profiles can hit, and the workaround docs/convert.md gives: the
# vectoriser divides by zero (internal compiler error, "Floating point exception" in pass
# vect) on an if-converted loop with a constant trip count for some AutoFDO counts, here a
# four-line profile of score8() in afdo/vectice.c that a sampled profile could well have
# (loop 30, condition 30, conditional arm 2, exit 2, head 2). Profiles of flex and phalanx
# crashed it the same way. No count rule in the converter avoids it (heads of 1 or 8 pass,
# 2 and 4 crash), so the docs name the flags: -fno-tree-loop-if-convert or
# -fno-tree-loop-vectorize. Both must compile that profile and a real one of the fixture.
. "$(dirname "$0")/lib.sh"
. "$PGO_ROOT/tests/e2e/afdo-lib.sh"
afdo_require

# line PATTERN: the first line of vectice.c matching PATTERN.
line() { grep -n "$1" vectice.c | head -1 | cut -d: -f1; }

# afdo_lines FILE FUNC HEAD DECL_LINE LINE:COUNT...: a gcc 12 profile of FUNC with these counts.
afdo_lines() {
	python3 -c '
import struct, sys
out, fn, head, decl = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
pos = [tuple(map(int, a.split(":"))) for a in sys.argv[5:]]
w = lambda x: struct.pack("<I", x)
name = fn.encode() + b"\0"
rec = w(0) + w(len(pos)) + w(0)
for l, c in pos:
    rec += w((l - decl) << 16) + w(0) + struct.pack("<q", c)
data = w(0x67636461) + w(2) + w(0) + w(0xaa000000) + w(0) + w(1) + w(len(name)) + name
data += w(0xac000000) + w(0) + w(1) + struct.pack("<q", head) + rec
open(out, "wb").write(data)' "$@"
}

test_expect_success 'gcc 12.2 crashes on a plausible profile of the loop' '
	d=$(line "int score8(") &&
	afdo_lines crash.afdo score8 2 $d $(line LOOP):30 $(line "/\* IF \*/"):30 $(line ARM):2 $(line EXIT):2 &&
	pgo convert --dump crash.afdo &&
	! gcc -O2 -fauto-profile=crash.afdo -c vectice.c -o crash.o 2>crash.err &&
	test_grep "internal compiler error: Floating point exception" crash.err &&
	test_grep "during GIMPLE pass: vect" crash.err
'
for flag in -fno-tree-loop-if-convert -fno-tree-loop-vectorize; do
	test_expect_success "$flag compiles that profile and a real one cleanly" '
		afdo_gcc_clean crash.afdo vectice.c '$flag' &&
		gcc -O2 -g -o vectice vectice.c &&
		afdo_record perf real.data ./vectice 2000000 &&
		pgo convert --to autofdo -i real.data -b vectice -o real.afdo &&
		afdo_gcc_clean real.afdo vectice.c '$flag'
	'
done
test_done
