#!/usr/bin/env bash
# pgo gate --view: off-CPU time (stacks ending in a state frame such as [sleep]) and wall
# time are compared like on-CPU time; a longer sleep is invisible on the cpu view and
# caught on the offcpu view, naming the blocking function (fn_001), not the thread state
# ([io]) its time ends in.
. "$(dirname "$0")/lib.sh"
SYNTH=$PGO_HELPERS/gate-synth

test_expect_success 'setup: profiles with an off-CPU view' '
	"$SYNTH" --offcpu --seed 31 -o base.json &&
	"$SYNTH" --offcpu --seed 32 -o same.json &&
	"$SYNTH" --offcpu --seed 33 --inject sleep:0.05 -o sleepy.json &&
	"$SYNTH" --seed 34 -o cpuonly.json
'
test_expect_success 'A/A passes on every view' '
	for v in cpu offcpu wall; do
		test_expect_code 0 pgo gate compare --view $v base.json same.json >out || exit 1
	done
'
test_expect_success 'a longer sleep passes the cpu view and fails the offcpu view' '
	test_expect_code 0 pgo gate compare base.json sleepy.json >out &&
	test_expect_code 1 pgo gate compare --view offcpu base.json sleepy.json >out &&
	test_grep "^fn_001 +self .*ROOT CAUSE" out &&
	test_grep -v "^\[.*(ROOT CAUSE|root cause|via)" out
'
test_expect_success 'the wall view sees it too, and draws it' '
	test_expect_code 1 pgo gate compare --view wall base.json sleepy.json --svg w.svg >out &&
	test_grep "ROOT CAUSE" out &&
	test_grep "^fn_001 +self .*ROOT CAUSE" out &&
	grep -q "<g class=\"f regressed\"[^>]*><title>fn_001" w.svg &&
	test_grep "\[running\]" w.svg
'
test_expect_success 'a view missing from a side is an error (exit 2)' '
	test_expect_code 2 pgo gate compare --view offcpu base.json cpuonly.json 2>err &&
	test_grep "offcpu.*missing.*cpuonly.json" err &&
	test_expect_code 64 pgo gate compare --view nope base.json same.json 2>err
'
test_done
