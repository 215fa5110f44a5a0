#!/usr/bin/env bash
# Hostile inputs cannot make convert or gate allocate without bound (issue 6): small files
# whose fields or shapes once cost gigabytes or minutes. A sparse profile JSON (many runs,
# many stacks each in one run: 23 GB in gate compare), a perf.data whose process forks
# thousands of times after thousands of mmaps (634 MB, 1.3 GB with DWARF stacks), 30000
# mmaps in one process (16 s; 670 MB of libdwfl modules with DWARF stacks), AutoFDO counts
# of 2^32-1, a FIFO named as a binary (open() waited forever). Each case: the documented outcome (exit 2 with the message, or a valid
# result), no output file on error, within 60 s, and a peak RSS under 100 MB (400 MB in a
# sanitizer build, whose shadow memory counts too).
. "$(dirname "$0")/lib.sh"
CS=$PGO_HELPERS/callstacks

command -v python3 >/dev/null || { skip_all "needs python3"; test_done; }
LIMIT_KB=$((100 * 1024))
if test_have_prereq SANITIZED; then
	LIMIT_KB=$((400 * 1024))
else
	# a regression should fail this test, not make the machine's OOM killer pick a victim
	ulimit -v $((2 * 1024 * 1024))
fi

# bounded CMD...: run CMD (stdout to out, stderr to err) with a 60 s limit; its exit code
# goes to rc, its peak RSS (KiB) to rss; fails if the RSS is over the limit or it hung.
bounded() {
	python3 -c '
import resource, subprocess, sys
try:
    rc = subprocess.call(sys.argv[1:], stdout=open("out", "w"), stderr=open("err", "w"), timeout=60)
except subprocess.TimeoutExpired:
    rc = 124
open("rc", "w").write("%d\n" % rc)
open("rss", "w").write("%d\n" % resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
' "$@" &&
	cat err && echo "exit $(cat rc), peak RSS $(cat rss) KiB" &&
	test "$(cat rc)" != 124 && test "$(cat rss)" -lt "$LIMIT_KB"
}

test_expect_success 'setup: sparse and deep profile JSON' '
	python3 - <<-\PY
	import json
	def save(name, runs):
	    d = {"format": "pgo-profile", "version": 1, "unit": "ns", "rate_hz": 999, "runs": runs}
	    open(name, "w").write(json.dumps(d, separators=(",", ":")))
	# 20000 runs; run 0 has 20000 stacks: 400M stack x run cells, 650 KB of JSON
	save("sparse.json", [{"run": 0, "cpu": {"s%d" % i: 1 for i in range(20000)}}] +
	     [{"run": i, "cpu": {}} for i in range(1, 20000)])
	# 30000 runs; run 0 has one stack of 8192 distinct frames: 8192 x 60000 function cells
	save("deep.json", [{"run": 0, "cpu": {";".join("f%d" % i for i in range(8192)): 1}}] +
	     [{"run": i, "cpu": {}} for i in range(1, 30000)])
	PY
'
test_expect_success 'gate compare refuses a sparse 20000 x 20000 profile early' '
	bounded pgo gate compare sparse.json sparse.json --json v.json &&
	test "$(cat rc)" = 2 && test ! -e v.json &&
	test_grep "error: .sparse.json. is too large for the gate: 20000 distinct stacks x 20000 runs" err
'
test_expect_success 'gate compare refuses 8192 functions x 60000 runs early' '
	bounded pgo gate compare deep.json deep.json --json v.json &&
	test "$(cat rc)" = 2 && test ! -e v.json &&
	test_grep "error: .deep.json. against .deep.json. is too large for the gate: 8192 functions x 60000 runs" err
'
test_expect_success 'convert reads and rewrites both (no stacks x runs pass, no quadratic run check)' '
	bounded pgo convert --to json -i sparse.json -o sparse2.json && test "$(cat rc)" = 0 &&
	bounded pgo convert --to json -i deep.json -o deep2.json && test "$(cat rc)" = 0 &&
	python3 -c "
import json, sys
for f in (\"sparse\", \"deep\"):
    a, b = json.load(open(f + \".json\")), json.load(open(f + \"2.json\"))
    sys.exit(0) if [r[\"cpu\"] for r in a[\"runs\"]] == [r[\"cpu\"] for r in b[\"runs\"]] else sys.exit(1)
"
'

test_expect_success 'setup: an AutoFDO profile' '
	python3 - <<-\PY
	import struct
	# a minimal gcc 12 AutoFDO file (convert/afdo.c): strings "" and "main", one function
	base = struct.pack("<III", 0x67636461, 2, 0)
	strs = struct.pack("<I", 1) + b"\0" + struct.pack("<I", 5) + b"main\0"
	names = struct.pack("<III", 0xaa000000, 0, 2) + strs
	fn = struct.pack("<QIII", 7, 1, 0, 0)
	funcs = struct.pack("<III", 0xac000000, 0, 1) + fn
	open("ok.afdo", "wb").write(base + names + funcs)
	open("strings.afdo", "wb").write(base + struct.pack("<III", 0xaa000000, 0, 0xffffffff) + strs + funcs)
	open("funcs.afdo", "wb").write(base + names + struct.pack("<III", 0xac000000, 0, 0xffffffff) + fn)
	PY
'
test_expect_success 'AutoFDO string and function counts of 2^32-1: exit 2, bounded' '
	bounded pgo convert --dump ok.afdo && test "$(cat rc)" = 0 && test_grep "main" out &&
	bounded pgo convert --dump strings.afdo && test "$(cat rc)" = 2 &&
	test_grep "error: .strings.afdo.: string count 4294967295 exceeds the file size" err &&
	bounded pgo convert --dump funcs.afdo && test "$(cat rc)" = 2 &&
	test_grep "error: .funcs.afdo.: function count 4294967295 exceeds the file size" err
'

# mkdata IN OUT NMAPS NFORKS [CHILDMAPS]: IN with NMAPS copies of the benchmark's first
# executable MMAP2 (other addresses, shuffled) and NFORKS children forked from it, inserted
# right after; with CHILDMAPS=1 each child maps one more file.
mkdata() {
	python3 - "$@" <<-\PY
	import random, struct, sys
	src, dst, nmaps, nforks = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
	childmaps = len(sys.argv) > 5 and sys.argv[5] == "1"
	d = open(src, "rb").read()
	attr_size = struct.unpack_from("<Q", d, 16)[0]
	a_off, a_size, d_off, d_size = struct.unpack_from("<QQQQ", d, 24)
	nfeat = sum(bin(f).count("1") for f in struct.unpack_from("<4Q", d, 72))
	off, fork, mmap2 = d_off, None, None
	while off < d_off + d_size:
	    typ, misc, size = struct.unpack_from("<IHH", d, off)
	    if typ == 7 and fork is None:
	        fork = (off, size)
	    elif (typ == 10 and fork and mmap2 is None and struct.unpack_from("<I", d, off + 64)[0] & 4
	          and struct.unpack_from("<I", d, off + 8) == struct.unpack_from("<I", d, fork[0] + 8)):
	        mmap2 = (off, size)
	    off += size
	rec = d[mmap2[0]:mmap2[0] + mmap2[1]]
	pid = struct.unpack_from("<I", rec, 8)[0]
	trailer = rec[len(rec) - (fork[1] - 32):] if fork[1] > 32 else b""
	order = list(range(nmaps)); random.Random(1).shuffle(order)
	ins = bytearray()
	for i in order:
	    r = bytearray(rec); struct.pack_into("<QQ", r, 16, 0x100000000 + i * 0x2000, 0x1000); ins += r
	for j in range(nforks):
	    ins += struct.pack("<IHHIIIIQ", 7, 0, 32 + len(trailer), 200000 + j, pid, 200000 + j, pid, 0) + trailer
	    if childmaps:
	        r = bytearray(rec); struct.pack_into("<IIQQ", r, 8, 200000 + j, 200000 + j, 0x300000000, 0x1000); ins += r
	at, delta = mmap2[0] + mmap2[1], len(ins)
	out = bytearray(d[:at] + ins + d[at:])
	struct.pack_into("<Q", out, 48, d_size + delta)
	for k in range(nfeat):  # the feature index follows the data
	    p = d_off + d_size + delta + 16 * k
	    struct.pack_into("<Q", out, p, struct.unpack_from("<Q", out, p)[0] + delta)
	if a_off >= at:  # pgo collect writes the attrs and their ids after the data
	    a_off += delta; struct.pack_into("<Q", out, 24, a_off)
	for k in range(a_size // attr_size):
	    p = a_off + (k + 1) * attr_size - 16
	    if struct.unpack_from("<Q", out, p)[0] >= at:
	        struct.pack_into("<Q", out, p, struct.unpack_from("<Q", out, p)[0] + delta)
	open(dst, "wb").write(out)
	PY
}

if test_have_prereq PERF && pgo collect -q --no-off-cpu -o probe.data -- true 2>/dev/null; then
	test_expect_success 'setup: perf.data with frame-pointer and DWARF stacks' '
		pgo collect -q -F 999 -g --no-off-cpu -o fp.data -- "$CS" 3 >/dev/null &&
		pgo collect -q -F 999 --call-graph dwarf --no-off-cpu -o dw.data -- "$CS" 3 >/dev/null &&
		pgo convert --to folded -i fp.data -o fp.folded && test -s fp.folded &&
		mkdata fp.data fp-forks.data 2000 10000 && mkdata fp.data fp-maps.data 30000 0 &&
		mkdata dw.data dw-forks.data 2000 10000 && mkdata dw.data dw-maps.data 30000 0 &&
		mkdata fp.data fp-childmaps.data 2000 5000 1 && mkdata dw.data dw-childmaps.data 2000 5000 1 &&
		mkdata fp.data fp-few.data 50 50 1 && pgo convert --to folded -i fp-few.data -o few.folded &&
		test_cmp fp.folded few.folded
	'
	test_expect_success '2000 mmaps then 10000 forks: the children share the maps' '
		bounded pgo convert --to folded -i fp-forks.data -o forks.folded && test "$(cat rc)" = 0 &&
		test_cmp fp.folded forks.folded &&
		bounded pgo convert --to folded -i dw-forks.data -o dw-forks.folded && test "$(cat rc)" = 0
	'
	test_expect_success '2000 mmaps, then 5000 forks that each map one more file: capped' '
		for f in fp dw; do
			bounded pgo convert --to folded -i $f-childmaps.data -o $f-childmaps.folded &&
			test "$(cat rc)" = 2 && test ! -e $f-childmaps.folded &&
			test_grep "error: .$f-childmaps.data.: more than 1048576 process mappings alive at once" err ||
			exit 1
		done
	'
	test_expect_success '30000 mmaps in one process: bounded time; DWARF unwinding keeps 1024' '
		bounded pgo convert --to folded -i fp-maps.data -o maps.folded && test "$(cat rc)" = 0 &&
		test_cmp fp.folded maps.folded &&
		bounded pgo convert --to folded -i dw-maps.data -o dw-maps.folded && test "$(cat rc)" = 0 &&
		test_grep "warning: dw-maps.data: [0-9]+ mappings beyond 1024 in one process" err
	'
	test_expect_success 'a FIFO as the binary (-b, or named by the mmaps) is refused, not waited on' '
		mkfifo fifo &&
		bounded pgo convert --to autofdo -i fp.data -b "$PWD/fifo" -o f.afdo &&
		test "$(cat rc)" = 2 && test ! -e f.afdo &&
		test_grep "error: .*/fifo. is not a regular file" err &&
		for f in fp dw; do
			python3 -c "
import sys
d = open(sys.argv[1], \"rb\").read()
old, new = sys.argv[2].encode(), sys.argv[3].encode()
assert len(new) <= len(old) and old in d
open(sys.argv[4], \"wb\").write(d.replace(old, new + bytes(len(old) - len(new))))
" $f.data "$CS" "$PWD/fifo" $f-fifo.data &&
			bounded pgo convert --to folded -i $f-fifo.data -o $f-fifo.folded &&
			test "$(cat rc)" = 0 && test -s $f-fifo.folded || exit 1
		done
	'
else
	test_expect_success PERF 'perf.data cases (pgo collect cannot sample here)' 'false'
fi
test_done
