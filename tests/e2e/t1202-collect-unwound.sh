#!/usr/bin/env bash
# What pgo collect records by default: stacks unwound while recording, written as plain
# call chains (dwarf-unwound for code without frame pointers, fp repaired with the CFI
# for code with them). Checked against outside truths: perf report/script read the file
# without a word, the chain of tests/helpers/unwind-chain is whole, the wall view's
# split matches rusage CPU time against wall time of the same run, a Debian program
# built with -fno-omit-frame-pointer is recorded with frame pointers, and code without
# unwind information ends its stacks (counted) instead of growing wrong frames.
. "$(dirname "$0")/lib.sh"
. "$PGO_ROOT/tests/e2e/chain-lib.sh"

if ! test_have_prereq PERF; then skip_all "perf not installed"; test_done; fi

folded() { pgo convert --to folded -i "$1" -o - "${@:2}"; }

test_expect_success 'default recording without frame pointers: <= 300 bytes per sample at 999 Hz' '
	gcc -O2 -g -o nofp "$PGO_ROOT/tests/helpers/unwind-chain.c" &&
	pgo collect --no-off-cpu -F 999 -o d.data -- ./nofp 2000 >/dev/null 2>err &&
	cat err &&
	test_grep "call stacks: dwarf-unwound \\(auto: ./nofp omits frame pointers" err &&
	test_grep "unwound [0-9]+ user stacks while recording: [0-9]+ complete" err &&
	n=$(sed -n "s/^pgo collect: 1 run, \\([0-9]*\\) samples, 0 lost.*/\\1/p" err) &&
	bytes=$(stat -c %s d.data) &&
	say "$n samples in $bytes bytes: $((bytes / n)) bytes per sample" &&
	test "$n" -ge 1500 &&
	test $((bytes / n)) -le 300
'

test_expect_success 'perf report -g and perf script read it without a word on stderr' '
	perf report -g -i d.data --stdio >report.out 2>report.err &&
	test_must_be_empty report.err &&
	perf script -i d.data >script.out 2>script.err &&
	test_must_be_empty script.err &&
	perf evlist -v -i d.data >evlist 2>/dev/null &&
	test_grep "CALLCHAIN" evlist &&
	! grep -q "REGS_USER\\|STACK_USER\\|exclude_callchain_user" evlist &&
	# the user stack is perf'"'"'s to print: chain_c called from chain_b, from chain_a
	grep -A2 "chain_c" script.out | head -3 >first &&
	cat first && test_grep "chain_b" first && test_grep "chain_a" first &&
	# the file says how its stacks were made (pgo metadata, skipped by perf)
	n=$(sed -n "s/^pgo collect: 1 run, \([0-9]*\) samples.*/\1/p" err) &&
	grep -a -q "callgraph=dwarf-unwound stack_user=16384" d.data &&
	grep -a -q "unwound samples=$n complete=" d.data
'

test_expect_success 'the stacks are whole: main;chain_a;chain_b;chain_c in >= 95% of their samples' '
	folded d.data >d.folded 2>d.err &&
	sort -t" " -k2 -nr d.folded | head -3 &&
	share=$(chain_share d.folded) && say "dwarf-unwound: full chain in $share%" &&
	test "$share" -ge 95
'

# offcpu-sleep: compute() (which calls clock_gettime, libc and vDSO code without frame
# pointers, in its loop) then wait_for_io(); truth = 1 - CPU/wall of the run, as pgo collect
# measures them (wait4 rusage, the clock around the benchmark), not from the samples.
wall_check() { # binary
	pgo collect -o w$1.data -- ./$1 10 50 >/dev/null 2>w$1.err &&
	grep "call stacks\|stacks:" w$1.err &&
	pgo convert --to folded --view wall -i w$1.data -o w$1.folded &&
	awk -v name=$1 'FNR == NR { if ($0 ~ /^pgo collect: 1 run,/) for (i = 2; i <= NF; i++) {
			if ($i == "CPU") cpu = $(i - 2); if ($(i + 1) == "s," && wall == "") wall = $i }
			next }
		{ t += $NF; if ($0 ~ /(^|;)compute;.*\[running\] [0-9]+$/) c += $NF }
		END { truth = 1 - cpu / wall; got = 1 - c / t; d = got - truth
		      printf "%s: wait share %.3f, truth %.3f (CPU %s s, wall %s s), %+.3f\n", name, got, truth, cpu, wall, d
		      exit !(t > 0 && d <= 0.03 && d >= -0.03) }' w$1.err w$1.folded
}

test_expect_success BPF 'wall view, -fno-omit-frame-pointer build: the wait share within 0.03 of the truth' '
	gcc -O2 -g -fno-omit-frame-pointer -o sleepfp "$PGO_ROOT/tests/helpers/offcpu-sleep.c" &&
	wall_check sleepfp &&
	test_grep "call stacks: fp \\(auto" wsleepfp.err &&
	# compute keeps its caller under clock_gettime (the kernel'"'"'s walk skips it)
	grep -q "main;compute;.*clock_gettime" wsleepfp.folded
'

test_expect_success BPF 'wall view, -O2 build (no frame pointers): the wait share within 0.03 of the truth' '
	gcc -O2 -g -o sleepnofp "$PGO_ROOT/tests/helpers/offcpu-sleep.c" &&
	wall_check sleepnofp &&
	test_grep "call stacks: dwarf-unwound \\(auto" wsleepnofp.err &&
	grep -q "main;compute;.*clock_gettime" wsleepnofp.folded
'

test_expect_success 'no CFI (.eh_frame removed): stacks end at the frame, counted, never a guessed caller' '
	objcopy --remove-section .eh_frame --remove-section .eh_frame_hdr nofp nocfi &&
	pgo collect --no-off-cpu -F 999 -o nocfi.data -- ./nocfi 300 >/dev/null 2>err &&
	cat err &&
	test_grep "warning: unwound ([0-9]+) user stacks while recording: [0-9]+ complete, [0-9]+ truncated \\(0 past the 16384-byte stack copy: use --call-graph dwarf-unwound,SIZE; [1-9][0-9]* without usable CFI" err &&
	folded nocfi.data >nocfi.folded 2>/dev/null &&
	sort -t" " -k2 -nr nocfi.folded | head -3 &&
	# chain_c cannot be unwound: nothing may stand above it (libdwfl would follow %rbp)
	! grep -E "[^ ;]+;chain_c" nocfi.folded
'

test_expect_success 'JIT code (an anonymous executable mapping): the stack ends at the JIT frame' '
	gcc -O2 -g -o jit "$PGO_ROOT/tests/helpers/jit-spin.c" &&
	pgo collect --no-off-cpu -F 999 -o jit.data -- ./jit 300 >/dev/null 2>err &&
	cat err &&
	test_grep "[1-9][0-9]* without usable CFI" err &&
	folded jit.data >jit.folded 2>/dev/null &&
	sort -t" " -k2 -nr jit.folded | head -3 &&
	test_grep "^\\[anon\\] [0-9]+$" jit.folded &&
	! grep -E ";\\[anon\\]" jit.folded
'

# A real program from Debian, built the way its Makefile does plus frame pointers.
debsrc=${PGO_DEBSRC:-/var/tmp/pgo-debsrc}
bz=$(ls -d "$debsrc"/bzip2-1*/ 2>/dev/null | head -1)
if [ -z "$bz" ] && command -v apt-get >/dev/null; then
	mkdir -p "$debsrc" && (cd "$debsrc" && timeout 300 apt-get source -q bzip2 >/dev/null 2>&1)
	bz=$(ls -d "$debsrc"/bzip2-1*/ 2>/dev/null | head -1)
fi
# without the source (no apt here), the two tests below SKIP as "missing DEBIAN_BZIP2_SOURCE"
BZIP2SRC=PERF
[ -n "$bz" ] || BZIP2SRC=DEBIAN_BZIP2_SOURCE

test_expect_success $BZIP2SRC 'Debian bzip2 -fno-omit-frame-pointer: auto records frame pointers, stacks reach main' '
	(cd "$bz" && gcc -O2 -g -fno-omit-frame-pointer -D_FILE_OFFSET_BITS=64 -o "$TRASH/bzip2fp" \
		blocksort.c huffman.c crctable.c randtable.c compress.c decompress.c bzlib.c bzip2.c) &&
	seq 1 2500000 >in.txt &&
	pgo collect --no-off-cpu -F 999 -o bz.data -- ./bzip2fp -c -9 in.txt >/dev/null 2>err &&
	cat err &&
	test_grep "call stacks: fp \\(auto: ./bzip2fp keeps frame pointers" err &&
	test_grep "fp stacks: [0-9]+ samples, [0-9]+ kept as the kernel walked them, [0-9]+ repaired" err &&
	folded bz.data >bz.folded 2>/dev/null &&
	sort -t" " -k2 -nr bz.folded | head -3 &&
	awk '"'"'/BZ2_/ { t += $NF; if ($0 ~ /main;compress;compressStream;.*BZ2_/) k += $NF }
		END { printf "BZ2_ weight reaching main;compress;compressStream: %.1f%%\n", 100 * k / t
		      exit !(t > 0 && k >= 0.95 * t) }'"'"' bz.folded
'

test_expect_success $BZIP2SRC 'Debian bzip2 -O2 (no frame pointers): dwarf-unwound, stacks reach main' '
	(cd "$bz" && gcc -O2 -g -D_FILE_OFFSET_BITS=64 -o "$TRASH/bzip2nofp" \
		blocksort.c huffman.c crctable.c randtable.c compress.c decompress.c bzlib.c bzip2.c) &&
	pgo collect --no-off-cpu -F 999 -o bzn.data -- ./bzip2nofp -c -9 in.txt >/dev/null 2>err &&
	cat err &&
	test_grep "call stacks: dwarf-unwound \\(auto: ./bzip2nofp omits frame pointers" err &&
	folded bzn.data >bzn.folded 2>/dev/null &&
	awk '"'"'/BZ2_/ { t += $NF; if ($0 ~ /main;compress;compressStream;.*BZ2_/) k += $NF }
		END { printf "BZ2_ weight reaching main;compress;compressStream: %.1f%%\n", 100 * k / t
		      exit !(t > 0 && k >= 0.95 * t) }'"'"' bzn.folded
'

test_done
