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
test_expect_success 'setup: kernel page faults below fn_003; they grow, alone or with fn_003' '
	"$SYNTH" --seed 41 --kernel 0.02 -o kbase.json &&
	"$SYNTH" --seed 42 --kernel 0.02 --kernel-grow 0.04 -o kgrow.json &&
	"$SYNTH" --seed 43 --kernel 0.02 --kernel-grow 0.04 --inject abs:0.03 -o kboth.json
'
# no_kernel_root FILE: no root cause of the verdict is a kernel or library frame
no_kernel_root() {
	python3 -c "import json,sys; v=json.load(open(sys.argv[1])); bad=[r for r in v[\"root_causes\"] if r.endswith(\"_[k]\") or r.startswith(\"[\")]; print(bad); sys.exit(1 if bad else 0)" "$1"
}
test_expect_success 'a change only in kernel frames is environment drift: a warning, exit 0' '
	test_expect_code 0 pgo gate compare kbase.json kgrow.json --json v.json --markdown c.md >out &&
	test_grep "^environment drift \(warning\)" out &&
	test_grep "^fn_003 +self .*drift" out &&
	test_grep "frames that grew.*clear_page_erms_\[k\] \+[0-9]" out &&
	test_grep -v "ROOT CAUSE" out &&
	python3 -c "import json,sys; v=json.load(open(\"v.json\")); d=v[\"drift\"]; sys.exit(0 if d[\"warning\"] and \"fn_003\" in d[\"functions\"] and d[\"frames\"][0][\"function\"]==\"clear_page_erms_[k]\" and not v[\"regression\"] else 1)" &&
	test_grep "Environment drift" c.md
'
test_expect_success 'an own regression with kernel growth below it names the own function (exit 1)' '
	test_expect_code 1 pgo gate compare kbase.json kboth.json --json v.json >out &&
	test_grep "^fn_003 +self .*ROOT CAUSE" out &&
	test_grep -v "_\[k\].*(ROOT CAUSE|root cause|via)" out &&
	no_kernel_root v.json &&
	python3 -c "import json,sys; v=json.load(open(\"v.json\")); r=[x for x in v[\"results\"] if x[\"function\"]==\"fn_003\" and x[\"kind\"]==\"self\"][0]; sys.exit(0 if v[\"root_causes\"]==[\"fn_003\"] and 0.02 < r[\"own_delta\"] < 0.04 and r[\"delta\"] > 0.05 else 1)"
'
test_expect_success 'kernel frames are folded into their own caller: A/A with them passes' '
	"$SYNTH" --seed 44 --kernel 0.02 -o ksame.json &&
	test_expect_code 0 pgo gate compare kbase.json ksame.json >out &&
	test_grep -v "clear_page_erms|asm_exc_page_fault" out
'
# A profile whose own code is bench (main, work, f00..f19 at 4% each) where work (10%)
# calls libfoo.so's helper (5%, 10% with "2").
write_dso_profile() {
	python3 - "$1" "$2" <<-\EOF
	import json, sys
	out, grow = sys.argv[1], float(sys.argv[2])
	runs = []
	for r in range(5):
	    j = (r * 7919) % 13 - 6
	    cpu = {"main;f%02d" % i: (400 + (i * j) % 9 - 4) * 1000000 for i in range(20)}
	    cpu["main;work"] = (1000 + 3 * j) * 1000000
	    cpu["main;work;helper"] = int(500 * grow + 2 * j) * 1000000
	    runs.append({"run": r, "samples": sum(cpu.values()) // 1000000, "cpu": cpu})
	json.dump({"format": "pgo-profile", "version": 1, "unit": "ns", "rate_hz": 1000,
	           "event": "task-clock", "binary": {"path": "/x/bench"},
	           "dsos": {"bench": {"own": True, "frames": ["main", "work"] +
	                              ["f%02d" % i for i in range(20)]},
	                    "libfoo.so.1": {"own": False, "frames": ["helper"]}},
	           "runs": runs}, open(out, "w"))
	EOF
}
test_expect_success '-b GLOB makes a shared object own code: its function is the root cause' '
	write_dso_profile lbase.json 1 && write_dso_profile lhead.json 2 &&
	test_expect_code 0 pgo gate compare lbase.json lhead.json --json v.json >out &&
	test_grep "^work +self .*drift" out &&
	test_expect_code 1 pgo gate compare -b bench -b "libfoo*" lbase.json lhead.json --json v.json >out &&
	test_grep "^helper +self .*ROOT CAUSE" out &&
	python3 -c "import json,sys; v=json.load(open(\"v.json\")); sys.exit(0 if v[\"options\"][\"own_binaries\"]==[\"bench\",\"libfoo*\"] else 1)"
'
test_expect_success 'every report carries the power line and the mode' '
	test_expect_code 0 pgo gate compare base.json same.json --json v.json --markdown c.md >out &&
	test_grep "^power: [0-9]+ samples a run, 5 \+ 5 runs: a function at 5.0% of the time is caught 80% of the time from \+[0-9.]+% of total" out &&
	test_grep "smaller: 2x runs" out &&
	test_grep "^mode: files" out &&
	test_grep "\*\*Power:\*\*" c.md &&
	python3 -c "import json,sys; v=json.load(open(\"v.json\")); p=v[\"power\"][\"detectable\"]; sys.exit(0 if v[\"mode\"]==\"files\" and p[0][\"share\"]==0.05 and 0.002 < p[0][\"delta\"] < 0.03 and p[0][\"with_2x_runs\"] < p[0][\"delta\"] and p[1][\"function\"]==\"fn_000\" else 1)"
'
test_expect_success '--json - writes the verdict to stdout' '
	pgo gate compare base.json same.json --json - >out &&
	test_grep "\"verdict\": \"pass\"" out
'
test_done
