#!/usr/bin/env bash
# pgo convert's memory does not grow with the recording: a DWARF recording with 64 KB stack
# copies per sample (~75 MB) converts with a peak RSS close to that of a 10x smaller
# recording of the same program, because the reader drops the pages it has walked past
# (it used to keep the whole file resident). The stacks are still right: the full chain
# main;chain_a;chain_b;chain_c, and the weight of chain_c leaves equals the period sum
# perf script gives for samples in chain_c.
. "$(dirname "$0")/lib.sh"
. "$PGO_ROOT/tests/e2e/chain-lib.sh"

if ! test_have_prereq PERF; then skip_all "perf not installed"; test_done; fi
if ! test_have_prereq NOT_SANITIZED; then skip_all "ASan's heap makes RSS meaningless"; test_done; fi
if ! [ -x /usr/bin/time ]; then skip_all "GNU time (/usr/bin/time) not installed"; test_done; fi

# peak_kb OUT ARGS...: run pgo convert ARGS, peak RSS in KB into OUT.
peak_kb() {
	local out=$1
	shift
	/usr/bin/time -f %M -o "$out" pgo convert "$@"
}

# leaf_weight SYM <FOLDED: the weight of the stacks whose leaf is SYM.
leaf_weight() {
	awk -v f="$1" '{ n = split($1, fr, ";"); if (fr[n] == f) s += $NF } END { print s + 0 }'
}

# script_leaf_period SYM <"perf script -F period,ip,sym" output: the period sum of the
# samples whose first (leaf) frame is SYM.
script_leaf_period() {
	awk -v f="$1" '/^ *[0-9]+ *$/ { p = $1; leaf = 1; next }
		leaf && NF >= 2 { if ($2 == f) s += p; leaf = 0 } END { print s + 0 }'
}

test_expect_success 'record 64 KB stack copies (big) and a 10x shorter run (small)' '
	gcc -O2 -g -o nofp "$PGO_ROOT/tests/helpers/unwind-chain.c" &&
	pgo collect -q --no-off-cpu -e task-clock -F 1000 --call-graph dwarf,65528 -o big.data \
		-- ./nofp 1200 >/dev/null &&
	pgo collect -q --no-off-cpu -e task-clock -F 1000 --call-graph dwarf,65528 -o small.data \
		-- ./nofp 120 >/dev/null &&
	ls -l big.data small.data &&
	test "$(stat -c %s big.data)" -ge $((50 << 20))
'

test_expect_success 'peak RSS of the big file stays near the small one, far below the file' '
	peak_kb small.rss --to folded -i small.data -o small.folded &&
	peak_kb big.rss --to folded -v -i big.data -o big.folded 2>big.err &&
	file_kb=$(($(stat -c %s big.data) >> 10)) small_kb=$(cat small.rss) big_kb=$(cat big.rss) &&
	say "file $file_kb KB: peak RSS $big_kb KB (small recording: $small_kb KB)" &&
	test "$big_kb" -lt $((small_kb + file_kb / 4)) &&
	test "$big_kb" -lt $((file_kb / 2)) &&
	test_grep "records read through a window of at most [0-9]+ MB of the file" big.err
'

test_expect_success 'the stacks are unwound as before: full chain, chain_c weight as perf script' '
	share=$(chain_share big.folded) && say "full chain in $share% of the chain samples" &&
	test "$share" -ge 95 &&
	leaf_weight chain_c <big.folded >ours &&
	perf script -i big.data -F period,ip,sym 2>/dev/null | script_leaf_period chain_c >theirs &&
	say "chain_c: $(cat ours) ns (pgo), $(cat theirs) ns (perf script)" &&
	test "$(cat theirs)" -gt 0 &&
	test_cmp theirs ours
'

test_done
