#!/usr/bin/env bash
# --call-graph dwarf on a plain -O2 -g build (no frame pointers): the stacks pgo convert
# loads show main -> chain_a -> chain_b -> chain_c (-> memset in libc) in >= 95% of the
# samples taken there; perf record -g on the frame-pointer build loses chain_c under
# memset (libc keeps no frame pointer), pgo collect's fp mode puts it back. perf script
# reads and unwinds our dwarf file; auto picks dwarf-unwound or fp from the binary and
# says so (t1202 tests what dwarf-unwound records).
. "$(dirname "$0")/lib.sh"
. "$PGO_ROOT/tests/e2e/chain-lib.sh"

FP=$PGO_HELPERS/unwind-chain

if ! test_have_prereq PERF; then skip_all "perf not installed"; test_done; fi

# folded FILE: on-CPU folded stacks ("a;b;c WEIGHT"), diagnostics on stderr.
folded() {
	pgo convert --to folded -i "$1" -o -
}

test_expect_success 'build the chain without frame pointers (gcc -O2 -g)' '
	gcc -O2 -g -o nofp "$PGO_ROOT/tests/helpers/unwind-chain.c" &&
	pgo collect -q --call-graph fp --no-off-cpu -o probe.data -- ./nofp 10 >/dev/null
'

test_expect_success 'auto picks dwarf-unwound for the -O2 build and says why' '
	pgo collect --no-off-cpu -o auto.data -- ./nofp 100 >out 2>err &&
	cat err &&
	test_grep "call stacks: dwarf-unwound \(auto: ./nofp omits frame pointers" err &&
	test_grep "^pgo collect: 1 run, [0-9]+ samples, 0 lost" err
'

test_expect_success 'dwarf copies the stacks into the file' '
	pgo collect --no-off-cpu --call-graph dwarf -o dwarf.data -- ./nofp 500 >out 2>err &&
	cat err &&
	test_grep "call stacks: dwarf, 8192 bytes of user stack per sample$" err
'

test_expect_success 'auto picks fp for the -fno-omit-frame-pointer build' '
	pgo collect --no-off-cpu -o fp.data -- "$FP" 500 >out 2>err &&
	cat err &&
	test_grep "call stacks: fp \(auto: .*unwind-chain keeps frame pointers" err
'

test_expect_success 'dwarf: the full chain in >= 95% of the chain samples' '
	folded dwarf.data >dwarf.folded 2>dwarf.err &&
	cat dwarf.err &&
	test_grep "unwound [0-9]+ user stacks: [0-9]+ complete" dwarf.err &&
	sort -t" " -k2 -nr dwarf.folded | head -5 &&
	share=$(chain_share dwarf.folded) && say "dwarf: full chain in $share%" &&
	test "$share" -ge 95
'

test_expect_success 'perf record -g on the frame-pointer build: chain_c is lost under memset' '
	perf record -q -e task-clock -F 999 -g -o perfg.data -- "$FP" 500 >/dev/null 2>&1 &&
	folded perfg.data >perfg.folded &&
	sort -t" " -k2 -nr perfg.folded | head -5 &&
	test_grep "main;chain_a;chain_b;__memset" perfg.folded &&
	share=$(chain_share perfg.folded) && say "perf -g: full chain in $share%" &&
	test "$share" -lt 90
'

test_expect_success 'pgo collect fp: the frame the kernel skipped is put back (>= 95%)' '
	folded fp.data >fp.folded &&
	sort -t" " -k2 -nr fp.folded | head -5 &&
	! grep -q "main;chain_a;chain_b;__memset" fp.folded &&
	share=$(chain_share fp.folded) && say "pgo fp: full chain in $share%" &&
	test "$share" -ge 95
'

test_expect_success 'perf script reads the dwarf file and unwinds it too' '
	perf script -i dwarf.data -F ip,sym >script.out 2>script.err &&
	test_must_be_empty script.err &&
	perf evlist -v -i dwarf.data >evlist 2>/dev/null &&
	test_grep "REGS_USER.*STACK_USER" evlist &&
	test_grep "sample_stack_user: 8192" evlist &&
	test_grep "exclude_callchain_user: 1" evlist &&
	grep -A3 "chain_c" script.out | head -4 >first &&
	cat first &&
	test_grep "chain_b" first && test_grep "main" first
'

test_expect_success 'a short stack copy is reported as truncated, never silently' '
	pgo collect -q --no-off-cpu --call-graph dwarf,64 -o short.data -- ./nofp 200 >/dev/null &&
	folded short.data >short.folded 2>short.err &&
	cat short.err &&
	test_grep "warning: .*[1-9][0-9]* truncated \([1-9][0-9]* past the 64-byte stack copy: record with --call-graph dwarf,SIZE" short.err &&
	perf evlist -v -i short.data 2>/dev/null | grep -q "sample_stack_user: 64," &&
	# the stacks cut by the copy needed more than it: the percentiles say so, not the
	# few complete ones alone (which all fit in 64 bytes)
	test_grep "stack bytes needed p50 >64, p95 >64, max >64$" short.err
'

test_expect_success '--to autofdo counts IPs on a dwarf file (unwound stacks give only call edges)' '
	pgo convert --to autofdo -i dwarf.data -b ./nofp -o nofp.afdo 2>conv.err &&
	test_grep "samples: [0-9]+ in nofp" conv.err &&
	pgo convert --dump nofp.afdo >dump &&
	test_grep "^chain_c: head" dump
'

test_expect_success 'bad --call-graph values are errors' '
	test_expect_code 64 pgo collect --call-graph dwarf,13 -- ./nofp 1 2>err1 &&
	test_grep "invalid stack size" err1 &&
	test_expect_code 64 pgo collect --call-graph dwarf,70000 -- ./nofp 1 &&
	test_expect_code 64 pgo collect --call-graph lbr -- ./nofp 1 2>err2 &&
	test_grep "invalid call-graph mode .lbr." err2 &&
	test ! -e pgo.data
'

test_done
