#!/usr/bin/env bash
# pgo gate compare on generated profile JSON (tests/helpers/gate-synth: the simulation
# model of gate-statistics.md §9, 999 Hz x 10 s x 5 runs): verdicts, exit codes, reports,
# and bad input (truncated, tampered, foreign, too few runs) -> exit 2, never a crash.
. "$(dirname "$0")/lib.sh"
SYNTH=$PGO_HELPERS/gate-synth

test_expect_success 'setup: baseline, A/A head, +5%-of-total head' '
	"$SYNTH" --seed 11 -o base.json &&
	"$SYNTH" --seed 12 -o same.json &&
	"$SYNTH" --seed 13 --inject abs:0.05 -o slow.json &&
	"$SYNTH" --seed 14 --inject faster:0.5 -o fast.json &&
	"$SYNTH" --seed 15 --runs 1 -o one.json &&
	"$SYNTH" --seed 16 --binary /usr/bin/other -o other.json
'
test_expect_success 'A/A passes (exit 0)' '
	test_expect_code 0 pgo gate compare base.json same.json >out &&
	test_grep "^verdict: pass" out
'
test_expect_success 'an injected +5% of total fails (exit 1) naming exactly that function' '
	test_expect_code 1 pgo gate compare base.json slow.json --json v.json --markdown c.md >out &&
	test_grep "^fn_003 +self .*ROOT CAUSE" out &&
	test "$(grep -c "ROOT CAUSE" out)" = 1 &&
	test_grep "\"format\": \"pgo-verdict\"" v.json &&
	test_grep "\"version\": 1" v.json &&
	python3 -c "import json,sys; v=json.load(open(\"v.json\")); sys.exit(0 if v[\"root_causes\"]==[\"fn_003\"] and v[\"regression\"] else 1)" &&
	test_grep "root cause" c.md && test_grep "fn_003" c.md
'
test_expect_success 'the hottest function 50% faster flags nothing (exit 0)' '
	test_expect_code 0 pgo gate compare base.json fast.json >out &&
	test_grep "^fn_000 +self .*improved" out &&
	test_grep -v "ROOT CAUSE|via" out
'
test_expect_success 'floors and q are options' '
	test_expect_code 0 pgo gate compare base.json slow.json --abs-floor 10% >out &&
	test_expect_code 0 pgo gate compare base.json slow.json --rel-floor 100 >out &&
	test_expect_code 1 pgo gate compare --q 0.01 base.json slow.json >out
'
test_expect_success 'fewer than 2 runs is an error (exit 2) that says so' '
	test_expect_code 2 pgo gate compare one.json same.json 2>err &&
	test_grep "one.json.*1 run.*at least 2 runs" err
'
test_expect_success 'a baseline from another binary is an error (exit 2)' '
	test_expect_code 2 pgo gate compare base.json other.json 2>err &&
	test_grep "same program" err
'
test_expect_success 'truncated JSON is an error naming the file (exit 2)' '
	head -c 5000 base.json >trunc.json &&
	test_expect_code 2 pgo gate compare trunc.json same.json 2>err &&
	test_grep "trunc.json" err
'
test_expect_success 'tampered JSON is an error naming the file and JSON path (exit 2)' '
	sed "s/\"version\":1/\"version\":7/" base.json >v7.json &&
	test_expect_code 2 pgo gate compare v7.json same.json 2>err &&
	test_grep "v7.json.*version: version 7" err &&
	sed "s/\"main;fn_000\":\([0-9]*\)/\"main;fn_000\":\"\1\"/" base.json >str.json &&
	test_expect_code 2 pgo gate compare base.json str.json 2>err &&
	test_grep "str.json.*runs\[0\]\.cpu\[\"main;fn_000\"\]" err &&
	sed "s/\"samples\":/\"samples\":-/" base.json >neg.json &&
	test_expect_code 2 pgo gate compare base.json neg.json 2>err &&
	test_grep "neg.json.*samples" err &&
	sed "s/\"format\":\"pgo-profile\"/\"format\":\"pgo-verdict\"/" base.json >fmt.json &&
	test_expect_code 2 pgo gate compare fmt.json same.json 2>err &&
	test_grep "fmt.json.*not a pgo profile: format" err
'
test_expect_success 'random byte damage never crashes (exit 2 or a verdict)' '
	for i in 1 2 3 4 5 6 7 8 9 10 11 12; do
		cp base.json d.json &&
		printf "\\x$(printf %x $((i * 7 + 33)))" | dd of=d.json bs=1 seek=$((i * 2711)) conv=notrunc 2>/dev/null &&
		rc=0 && pgo gate compare d.json same.json >/dev/null 2>err || rc=$? &&
		test $rc -le 2 || { echo "exit $rc at $i"; cat err; exit 1; }
	done
'
test_expect_success 'a missing file and a perf.data file are errors (exit 2)' '
	test_expect_code 2 pgo gate compare nope.json same.json 2>err && test_grep "nope.json" err &&
	printf "PERFILE2xxxxxxxx" >perf.data &&
	test_expect_code 2 pgo gate compare perf.data same.json 2>err && test_grep "perf.data" err
'
test_expect_success '--svg writes a differential flamegraph: the root cause red, improvements blue' '
	test_expect_code 1 pgo gate compare base.json slow.json --svg d.svg >out &&
	test_grep "^<svg|<svg " d.svg &&
	grep -o "<g class=\"f regressed\"[^>]*><title>[^<]*" d.svg | sed "s/.*<title>//" | sort -u >red &&
	echo fn_003 >want && test_cmp want red &&
	test_expect_code 0 pgo gate compare base.json fast.json --svg f.svg >out &&
	grep -o "<g class=\"f improved\"[^>]*><title>[^<]*" f.svg | sed "s/.*<title>//" | sort -u >blue &&
	test_grep "^fn_000$" blue && ! grep -q "f regressed" f.svg
'
test_expect_success '--svg into an unwritable place is an error, never a silent pass (exit 2)' '
	test_expect_code 2 pgo gate compare base.json same.json --svg /nonexistent/d.svg 2>err &&
	test_grep "nonexistent" err
'
test_expect_success 'usage errors exit 64' '
	test_expect_code 64 pgo gate compare base.json 2>err &&
	test_expect_code 64 pgo gate compare base.json same.json --q abc 2>err &&
	test_grep "\-\-q" err &&
	test_expect_code 64 pgo gate compare base.json same.json --frob 2>err &&
	test_expect_code 64 pgo gate frob 2>err &&
	pgo gate --help >out && test_grep "EXAMPLES" out
'
test_expect_success '--json - writes the verdict to stdout' '
	pgo gate compare base.json same.json --json - >out &&
	test_grep "\"verdict\": \"pass\"" out
'
test_done
