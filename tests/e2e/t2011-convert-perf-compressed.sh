#!/usr/bin/env bash
# pgo convert on perf record -z files: perf compresses its ring buffers' records into
# PERF_RECORD_COMPRESSED records of one zstd stream, some of odd sizes, leaving the records
# after them at unaligned offsets. What pgo reads from such a file is checked against
# what perf script reads from it: every sample, the same total period, the call paths of
# tests/helpers/callstacks.c; and gcc takes the AutoFDO profile.
. "$(dirname "$0")/lib.sh"
. "$PGO_ROOT/tests/e2e/convert-lib.sh"
CS=$PGO_HELPERS/callstacks

if ! test_have_prereq PERF || ! perf record -q -z -e cpu-clock -o probe.data true 2>/dev/null; then
	skip_all "perf record -z does not work here"
	test_done
fi

# Records of the data section: "compressed N unaligned M" (records at offsets not a multiple of 8).
scan() {
	python3 - "$1" <<'PY'
import struct, sys
d = open(sys.argv[1], 'rb').read()
off, size = struct.unpack_from('<QQ', d, 40)
o, z, u = off, 0, 0
while o < off + size:
    t, _, sz = struct.unpack_from('<IHH', d, o)
    z += t in (81, 83)
    u += o % 8 != 0
    o += sz
print("compressed %d unaligned %d" % (z, u))
PY
}

test_expect_success 'perf record -z -g: a file of compressed records' '
	perf record -q -z -m 8 -g -e task-clock -F 4999 -o z.data "$CS" 60 >/dev/null 2>rec.err &&
	perf report --header-only -i z.data >header 2>&1 && test_grep "compressed : Zstd" header &&
	scan z.data >scan && cat scan &&
	test "$(awk "{ print \$2 }" scan)" -ge 2
'
test_expect_success 'every sample perf script reads is counted, none lost' '
	pgo convert --to autofdo -i z.data -o z.afdo 2>err && cat err &&
	perf script -i z.data -F period 2>/dev/null | wc -l >perf.n &&
	sed -n "s/.*samples: \([0-9]*\) in [^,]*, \([0-9]*\) in other DSOs, \([0-9]*\) kernel, \([0-9]*\) unmapped; \([0-9]*\) lost.*/\1 \2 \3 \4 \5/p" err >counts &&
	test -s counts && awk "{ print \$1 + \$2 + \$3 + \$4 }" counts >pgo.n &&
	test_cmp perf.n pgo.n && test "$(awk "{ print \$5 }" counts)" = 0 &&
	pgo convert -v --to folded -i z.data -o /dev/null 2>verr &&
	test_grep "[0-9]+ compressed records \(perf record -z\) decompressed to [1-9][0-9]* KB, held in memory" verr
'
test_expect_success 'folded stacks: perf script total period, callstacks.c shares' '
	pgo convert --to folded -i z.data -o z.folded &&
	perf script -i z.data -F period 2>/dev/null | awk "{ s += \$1 } END { print s }" >perf.total &&
	awk "{ s += \$NF } END { print s }" z.folded >pgo.total &&
	test_cmp perf.total pgo.total &&
	awk "/;main;outer_a;leaf;spin / { a += \$NF } /;main;outer_b;leaf;spin / { b += \$NF }
	     /;main;outer_b;mid;deep;spin / { d += \$NF }
	     END { t = a + b + d; printf \"%.0f %.0f %.0f\\n\", 100 * a / t, 100 * b / t, 100 * d / t;
		   exit !(a && b && d && a < b && b < d) }" z.folded
'
test_expect_success 'autofdo: gcc takes the profile of a compressed recording silently' '
	build_hot hot -g &&
	perf record -q -z -e cpu-clock -c 50000 -o hz.data ./hot 4000000 >/dev/null 2>&1 &&
	pgo convert --to autofdo -i hz.data -b hot -o hz.afdo &&
	pgo convert --dump hz.afdo >dump && test_grep "^work: head [1-9]" dump &&
	gcc -O2 -Wall -fauto-profile=hz.afdo -c "$FIX/hot.c" -o p.o 2>gcc.err && test ! -s gcc.err
'
test_expect_success 'a compressed record cut short: exit 2, names the file, no output' '
	python3 - <<-PY &&
	import struct
	d = bytearray(open("z.data", "rb").read())
	off, size = struct.unpack_from("<QQ", d, 40)
	o = off
	while struct.unpack_from("<I", d, o)[0] != 81:
	    o += struct.unpack_from("<H", d, o + 6)[0]
	sz = struct.unpack_from("<H", d, o + 6)[0]
	d[o + 8 + sz // 2:o + sz] = bytes(sz - 8 - sz // 2)
	open("bad.data", "wb").write(d)
	PY
	test_expect_code 2 pgo convert --to folded -i bad.data -o bad.folded 2>err && cat err &&
	test_grep "bad.data.*compressed" err && test ! -e bad.folded
'
test_done
