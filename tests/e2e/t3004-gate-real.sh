#!/usr/bin/env bash
# pgo gate on a real program collected with pgo collect (tests/helpers/gate-work: known
# shares, work_d ~10%): two collections of the same binary pass; +5% of total time added
# to work_d's own loop fails naming exactly work_d; work_a (the hottest, 40%) made 2x
# faster flags nothing; and the git flow records with a real collection, a regressing
# commit is checked (exit 1) and the notes ref exists. perf.data files are gate inputs. On a
# build without frame pointers, libc time is the own caller's, as perf's DWARF stacks say.
# The comparisons use q = 0.01 (Q below, the default; docs/gate-method.md has the A/A false-failure
# rates measured at q = 0.05 and 0.01); the regressions here are far above its detection
# limit.
. "$(dirname "$0")/lib.sh"
W=$PGO_HELPERS/gate-work
RUN="-r 5 -F 1999"
Q="--q 0.01"

if ! test_have_prereq PERF; then skip_all "perf events not available"; test_done; fi

test_expect_success 'collect: baseline, A/A, +5% of total in work_d, work_a 2x faster' '
	pgo collect -q $RUN -o base.data -- "$W" 50 &&
	pgo collect -q $RUN -o same.data -- "$W" 50 &&
	pgo collect -q $RUN -o slow.data -- "$W" 50 inject 5 &&
	pgo collect -q $RUN -o fast.data -- "$W" 50 faster 2
'
test_expect_success 'two collections of the same binary pass (exit 0)' '
	test_expect_code 0 pgo gate compare $Q base.data same.data >out &&
	test_grep "^verdict: pass" out
'
test_expect_success '+5% of total in work_d fails (exit 1) with work_d the only root cause' '
	test_expect_code 1 pgo gate compare $Q base.data slow.data --json v.json >out &&
	test_grep -v "(_\[k\]|^\[).*(ROOT CAUSE|root cause|via)" out &&
	python3 -c "import json,sys; v=json.load(open(\"v.json\")); p=v[\"power\"][\"detectable\"][0]; sys.exit(0 if v[\"mode\"]==\"files\" and 0 < p[\"delta\"] < 0.05 else 1)" &&
	test_grep "^work_d +self .*ROOT CAUSE" out &&
	test "$(grep -c "ROOT CAUSE" out)" = 1 &&
	python3 -c "import json,sys; v=json.load(open(\"v.json\")); r=[x for x in v[\"results\"] if x[\"function\"]==\"work_d\" and x[\"kind\"]==\"self\"][0]; sys.exit(0 if v[\"root_causes\"]==[\"work_d\"] and 0.03 < r[\"delta\"] < 0.07 else 1)"
'
test_expect_success 'the hottest function 2x faster flags nothing else (exit 0)' '
	test_expect_code 0 pgo gate compare $Q base.data fast.data >out &&
	test_grep "^work_a +self .*improved" out &&
	test_grep -v "ROOT CAUSE|via" out
'
test_expect_success 'a truncated perf.data and another binary are errors (exit 2)' '
	head -c 20000 base.data >trunc.data &&
	test_expect_code 2 pgo gate compare trunc.data same.data 2>err &&
	test_grep "trunc.data" err &&
	pgo collect -q -r 2 -o other.data -- "$PGO_ROOT/$PGO_BUILD/examples/shares" 2 >/dev/null &&
	test_expect_code 2 pgo gate compare base.data other.data 2>err &&
	test_grep "same program" err
'
test_expect_success 'git flow: record, regressing commit, check exits 1; notes ref exists' '
	mkdir repo && cd repo && git init -q -b main &&
	echo "none 0" >gate-work.inject && git add gate-work.inject &&
	git -c user.name=t -c user.email=t@t commit -q -m base &&
	pgo gate record $RUN -- "$W" 50 2>err &&
	test_grep "stored a 5-run profile" err &&
	git show-ref refs/notes/pgo >refs && test_grep refs/notes/pgo refs &&
	git checkout -q -b pr && echo "inject 5" >gate-work.inject &&
	git -c user.name=t -c user.email=t@t commit -q -am "slower work_d" &&
	test_expect_code 1 pgo gate check $RUN $Q --markdown c.md -- "$W" 50 >out 2>err &&
	test_grep "^work_d +self .*ROOT CAUSE" out && test_grep "work_d" c.md
'
test_expect_success 'check --confirm collects more runs on a flag and still fails on a real one' '
	cd repo &&
	test_expect_code 1 pgo gate check $RUN $Q --confirm --json v.json -- "$W" 50 >out 2>err &&
	test_grep "confirming on more head runs" err &&
	test_grep "\"head_runs\": 10" v.json &&
	test_grep "^work_d +self .*ROOT CAUSE" out
'
# A shared object built beside the benchmark (main spends ~20% in itself: pgo convert's
# default binary is the executable with the most samples of its own) is own code; libc
# is not.
test_expect_success 'a shared object of the same tree is own code; libc is not' '
	mkdir shl && cd shl &&
	printf "%s\n" "#include <string.h>" "static char buf[1 << 16];" \
		"__attribute__((noinline)) unsigned long lib_work(unsigned long n) {" \
		"	unsigned long x = 1, i; for (i = 0; i < n; i++) { x = x * 6364136223846793005UL + i; __asm__ volatile(\"\" : \"+r\"(x)); }" \
		"	memset(buf, (int)x, sizeof(buf)); return x + buf[7]; }" >lib.c &&
	printf "%s\n" "#include <stdlib.h>" "unsigned long lib_work(unsigned long n);" \
		"int main(int argc, char **argv) { unsigned long s = 0; int i, k = atoi(argv[1]);" \
		"	for (i = 0; i < 200; i++) { unsigned long j; s += lib_work(100000UL * k);" \
		"		for (j = 0; j < 30000UL * k; j++) { s = s * 31 + j; __asm__ volatile(\"\" : \"+r\"(s)); } }" \
		"	return (int)(s & 0); }" >main.c &&
	gcc -O2 -g -fPIC -shared -o libwork.so lib.c &&
	gcc -O2 -g -o bench main.c -L. -lwork -Wl,-rpath,"$PWD" &&
	pgo collect -q -r 2 -o s.data -- ./bench 3 &&
	pgo convert --to json -i s.data -o s.json &&
	python3 -c "import json,sys; d=json.load(open(\"s.json\"))[\"dsos\"]; print({k: v[\"own\"] for k, v in d.items()}); sys.exit(0 if d[\"libwork.so\"][\"own\"] and d[\"bench\"][\"own\"] and not d.get(\"libc.so.6\", {\"own\": False})[\"own\"] else 1)"
'
# The gate's own collections record the stacks pgo collect does by default: on an -O2 build
# without frame pointers, libc's memset (no frame pointer either) is folded into fill, its
# own caller, as perf's DWARF unwinding attributes it; no libc function is a result.
test_expect_success 'library time folds into its own caller on a build without frame pointers' '
	mkdir nofp && cd nofp &&
	printf "%s\n" "#include <stdlib.h>" "#include <string.h>" "static char buf[1 << 20];" \
		"__attribute__((noinline)) unsigned long fill(int k) { unsigned long s = 0; int i;" \
		"	for (i = 0; i < k; i++) { memset(buf, i, sizeof(buf)); s += (unsigned char)buf[i & 1023]; } return s; }" \
		"__attribute__((noinline)) unsigned long spin(long n) { unsigned long x = 1; long i;" \
		"	for (i = 0; i < n; i++) { x = x * 6364136223846793005UL + (unsigned long)i; __asm__ volatile(\"\" : \"+r\"(x)); } return x; }" \
		"int main(int argc, char **argv) { unsigned long s = 0; int r, k = atoi(argv[1]);" \
		"	for (r = 0; r < 20; r++) s += fill(40 * k) + spin(400000L * k); return (int)(s & 0); }" >m.c &&
	gcc -O2 -g -fomit-frame-pointer -o m m.c &&
	perf record -q -F 999 --call-graph dwarf -o perf.data ./m 10 2>/dev/null &&
	perf script -i perf.data -F ip,sym 2>/dev/null |
		awk "BEGIN { RS = \"\" } { n++; if (/fill/) f++ } END { print f / n }" >perf.share &&
	git init -q -b main && git add m.c && git -c user.name=t -c user.email=t@t commit -q -m m &&
	pgo gate record -r 3 -F 1999 -- ./m 10 2>err &&
	test_grep "stacks" err &&
	pgo gate check -r 3 -F 1999 --base main --json v.json -- ./m 10 >out 2>err &&
	python3 -c "
import json, sys
v = json.load(open(\"v.json\"))
truth = float(open(\"perf.share\").read())
self = {r[\"function\"]: r[\"base_pct\"] / 100 for r in v[\"results\"] if r[\"kind\"] == \"self\"}
print(\"fill\", self.get(\"fill\"), \"perf\", truth, {f: s for f, s in self.items() if s > 0.01})
others = [f for f, s in self.items() if s > 0.01 and f not in (\"fill\", \"spin\")]
sys.exit(0 if truth > 0.3 and abs(self.get(\"fill\", 0) - truth) < 0.05 and not others else 1)"
'
test_expect_success 'a failing benchmark is an error (exit 2), not a verdict' '
	cd repo &&
	test_expect_code 2 pgo gate check $RUN -- "$W" 2>err &&
	test_grep "failed" err
'
test_done
