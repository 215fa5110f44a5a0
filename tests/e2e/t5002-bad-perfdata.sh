#!/usr/bin/env bash
# Bad-input catalogue for perf.data through pgo convert (issue 6): empty, truncated at
# every section boundary, wrong or byte-swapped magic, absurd sizes, zero-size and
# unknown records, unknown feature bits. Every case: exit 2 with a message naming the
# file (or success where the file is still valid), no crash, no hang, no output file.
. "$(dirname "$0")/lib.sh"
CS=$PGO_HELPERS/callstacks

if ! test_have_prereq PERF || ! command -v python3 >/dev/null; then
	skip_all "needs perf and python3"
	test_done
fi

test_expect_success 'a valid recording and its damaged variants' '
	perf record -q -g -e task-clock -F 999 -o good.data "$CS" 10 >/dev/null 2>&1 &&
	pgo convert --to folded -i good.data >good.folded 2>/dev/null &&
	test -s good.folded &&
	python3 - good.data <<-\PY &&
	import struct, sys
	src = open(sys.argv[1], "rb").read()
	magic, hsize, attr_size = src[:8], *struct.unpack_from("<QQ", src, 8)
	a_off, a_size, d_off, d_size = struct.unpack_from("<QQQQ", src, 24)
	feats = struct.unpack_from("<4Q", src, 72)
	feat_idx = d_off + d_size
	def put(name, data):
	    open(name, "wb").write(data)
	def patch(data, off, fmt, *vals):
	    b = bytearray(data); struct.pack_into(fmt, b, off, *vals); return bytes(b)
	# name -> bytes; the .ok suffix marks inputs that stay valid
	put("empty.data", b"")
	for name, n in [("magic-only", 8), ("half-header", 52), ("header-only", hsize),
	                ("mid-attrs", a_off + a_size // 2), ("before-data", d_off),
	                ("mid-first-record", d_off + 20), ("mid-data", d_off + d_size // 2),
	                ("before-features", feat_idx), ("mid-feature-index", feat_idx + 8),
	                ("last-byte-cut", len(src) - 1)]:
	    put("trunc-" + name + ".data", src[:n])
	put("magic-wrong.data", b"PERFILE1" + src[8:])
	put("magic-garbage.data", b"\x7fELF\x02\x01\x01\x00" + src[8:])
	put("magic-swapped.data", src[:8][::-1] + src[8:])
	put("header-size-0.data", patch(src, 8, "<Q", 0))
	put("attr-size-0.data", patch(src, 16, "<Q", 0))
	put("attr-size-huge.data", patch(src, 16, "<Q", 1 << 40))
	put("attrs-past-eof.data", patch(src, 32, "<Q", 1 << 32))
	put("data-4gib.data", patch(src, 48, "<Q", 1 << 32))
	put("data-offset-huge.data", patch(src, 40, "<Q", (1 << 64) - 16))
	put("data-size-wraps.data", patch(src, 48, "<Q", (1 << 64) - d_off + 8))
	# the first record: u32 type, u16 misc, u16 size
	put("record-size-0.data", patch(src, d_off + 6, "<H", 0))
	put("record-size-7.data", patch(src, d_off + 6, "<H", 7))
	put("record-size-past-end.data", patch(src, d_off + 6, "<H", 0xfff8))
	put("record-unknown-type.ok.data", patch(src, d_off, "<I", 200))
	put("feature-bit-unknown.data", patch(src, 72 + 24, "<Q", feats[3] | (1 << 60)))
	put("feature-bits-all.data", patch(src, 72, "<4Q", *([(1 << 64) - 1] * 4)))
	PY
	ls *.data | wc -l
'

for f in empty trunc-magic-only trunc-half-header trunc-header-only trunc-mid-attrs \
	 trunc-before-data trunc-mid-first-record trunc-mid-data trunc-before-features \
	 trunc-mid-feature-index trunc-last-byte-cut magic-wrong magic-garbage magic-swapped \
	 header-size-0 attr-size-0 attr-size-huge attrs-past-eof data-4gib data-offset-huge \
	 data-size-wraps record-size-0 record-size-7 record-size-past-end feature-bit-unknown \
	 feature-bits-all; do
	test_expect_success "$f: exit 2 or valid, no crash, no hang, no partial output" '
		test -e '"$f"'.data || exit 1
		rc=0 && { timeout 60 pgo convert --to folded -i '"$f"'.data -o out.folded 2>err || rc=$?; } &&
		cat err &&
		case $rc in
		0) test -s out.folded && rm out.folded ;;
		2) test_grep "'"$f"'.data" err && test ! -e out.folded ;;
		*) echo "exit $rc (124: hang; >128: crash)"; exit 1 ;;
		esac &&
		test -z "$(ls -A | grep "\.tmp\.")"
	'
done

test_expect_success 'the truncations and bad headers are errors, not silently accepted' '
	for f in empty trunc-magic-only trunc-half-header trunc-header-only trunc-mid-attrs \
		 trunc-mid-first-record trunc-mid-data magic-wrong magic-garbage magic-swapped \
		 attrs-past-eof data-4gib data-offset-huge record-size-0 record-size-7; do
		test_expect_code 2 pgo convert --to folded -i $f.data -o out 2>/dev/null || exit 1
	done
'
test_expect_success 'a byte-swapped file says it comes from another endianness' '
	test_expect_code 2 pgo convert --to svg -i magic-swapped.data -o out.svg 2>err &&
	test_grep "endian|byte-swapped|byte order" err
'
test_expect_success 'an unknown record type is skipped: the stacks are still there' '
	pgo convert --to folded -i record-unknown-type.ok.data >unk.folded &&
	test_grep ";main;outer_b;mid;deep;spin [0-9]+\$" unk.folded
'
test_expect_success 'no output file replaces a good one on error' '
	echo keep >kept.svg &&
	test_expect_code 2 pgo convert --to svg -i trunc-mid-data.data -o kept.svg 2>/dev/null &&
	echo keep >expect && test_cmp expect kept.svg
'
test_done
