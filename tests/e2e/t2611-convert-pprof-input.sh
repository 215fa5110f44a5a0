#!/usr/bin/env bash
# pprof as input: profiles made by others (gperftools' CPU profiler turned into pprof by
# go tool pprof, symbolized and not) follow the program's known call structure; a pprof
# of a perf.data gives the same AutoFDO, LLVM and folded output as the perf.data itself
# (perf record -g and pgo collect --call-graph dwarf -r 2 with off-CPU); globs and
# directories merge; the gate compares pprof files; bad files exit 2 naming the file.
. "$(dirname "$0")/lib.sh"
CS=$PGO_HELPERS/callstacks
PROFILER=/usr/lib/x86_64-linux-gnu/libprofiler.so.0

if ! test_have_prereq PERF; then skip_all "perf not installed"; test_expect_success 'hostile pprof: bad indices, billion-sample claims, unknown or repeated ids' '
	command -v python3 >/dev/null || { echo "python3 is needed to craft the files"; exit 1; }
	python3 "$PGO_ROOT/tests/e2e/pprof-craft.py" ok ok.pb &&
	pgo convert -q --to folded -i ok.pb >ok.folded &&
	echo "[true] 3000" >want && test_cmp want ok.folded &&
	for k in bad-string billion missing-location dup-location; do
		python3 "$PGO_ROOT/tests/e2e/pprof-craft.py" $k $k.pb &&
		test_expect_code 2 pgo convert --to folded -i $k.pb -o $k.out 2>$k.err &&
		test_grep "$k.pb" $k.err && test ! -e $k.out || exit 1
	done
'

test_done; fi
if ! command -v go >/dev/null; then skip_all "go not installed (apt-get install golang-go)"; test_expect_success 'hostile pprof: bad indices, billion-sample claims, unknown or repeated ids' '
	command -v python3 >/dev/null || { echo "python3 is needed to craft the files"; exit 1; }
	python3 "$PGO_ROOT/tests/e2e/pprof-craft.py" ok ok.pb &&
	pgo convert -q --to folded -i ok.pb >ok.folded &&
	echo "[true] 3000" >want && test_cmp want ok.folded &&
	for k in bad-string billion missing-location dup-location; do
		python3 "$PGO_ROOT/tests/e2e/pprof-craft.py" $k $k.pb &&
		test_expect_code 2 pgo convert --to folded -i $k.pb -o $k.out 2>$k.err &&
		test_grep "$k.pb" $k.err && test ! -e $k.out || exit 1
	done
'

test_done; fi
export GOCACHE=$TRASH/.gocache HOME=$TRASH

# Share (percent) of each known path among the three, from folded stacks.
shares() {
	awk '/;main;outer_a;leaf;spin [0-9]+$/ { a += $NF } /;main;outer_b;leaf;spin [0-9]+$/ { b += $NF }
		/;main;outer_b;mid;deep;spin [0-9]+$/ { d += $NF }
		END { t = a + b + d; if (t == 0) exit 1; printf "a %.0f\nb %.0f\nd %.0f\n", 100 * a / t, 100 * b / t, 100 * d / t }' "$1"
}
near() {
	awk -v n="$2" -v e="$3" -v tol="$4" '$1 == n { f = 1; d = $2 - e; if (d < 0) d = -d;
		if (d > tol) { printf "%s: %s%%, expected %s%% +- %s\n", n, $2, e, tol; exit 1 } }
		END { if (!f) exit 1 }' "$1"
}

# Inclusive ns of outer_a, outer_b and mid: from go tool pprof -top -cum, and from folded.
pprof_cum() {
	go tool pprof -top -cum -unit=ns "$1" 2>/dev/null |
		awk "\$NF == \"outer_a\" || \$NF == \"outer_b\" || \$NF == \"mid\" { sub(/ns\$/, \"\", \$4); print \$NF, \$4 }" | sort
}
folded_cum() {
	awk "{ n = split(\$1, f, \";\"); delete seen; for (i = 1; i <= n; i++)
		if ((f[i] == \"outer_a\" || f[i] == \"outer_b\" || f[i] == \"mid\") && !seen[f[i]]++) c[f[i]] += \$NF }
		END { for (k in c) printf \"%s %.0f\\n\", k, c[k] }" "$1" | sort
}

test_expect_success 'gperftools via go tool pprof: pgo attributes time as pprof does' '
	test -e $PROFILER || { echo "no $PROFILER (apt-get install libgoogle-perftools-dev)"; exit 1; }
	CPUPROFILE=cs.prof CPUPROFILE_FREQUENCY=1000 LD_PRELOAD=$PROFILER "$CS" 100 >/dev/null 2>&1 &&
	go tool pprof -proto "$CS" cs.prof >gp.pb.gz 2>/dev/null &&
	go tool pprof -proto -symbolize=none "$CS" cs.prof >gpn.pb.gz 2>/dev/null &&
	pgo convert --to folded -i gp.pb.gz >gp.folded 2>err &&
	pgo convert --to folded -i gpn.pb.gz >gpn.folded 2>err &&
	test_cmp gp.folded gpn.folded &&
	pprof_cum gp.pb.gz >want && test $(wc -l <want) = 3 &&
	folded_cum gp.folded >got &&
	test_cmp want got &&
	shares gp.folded >s && cat s &&
	near s a 20 8 && near s b 30 8 && near s d 50 8
'

# stable_ksyms_both A B: frames inside BPF programs (other tools' programs run in the
# sampled kernel stacks) named alike, as kallsyms may drop a program between two converts
stable_ksyms_both() {
	for f in "$@"; do test_stable_ksyms <"$f" >"$f.s" && mv "$f.s" "$f" || return 1; done
}

test_expect_success 'perf record -g: pprof of it converts as the perf.data does' '
	perf record -q -g -e task-clock -F 4999 -o perf.data "$CS" 20 >/dev/null 2>&1 &&
	pgo convert -q --to pprof -i perf.data -o p.pb.gz &&
	for m in autofdo llvm folded; do
		pgo convert -q --to $m -i perf.data -b "$CS" -o direct.$m 2>/dev/null &&
		pgo convert -q --to $m -i p.pb.gz -b "$CS" -o via.$m 2>/dev/null &&
		{ [ $m != folded ] || stable_ksyms_both direct.$m via.$m; } &&
		cmp direct.$m via.$m || exit 1
	done
'

test_expect_success BPF 'pgo collect --call-graph dwarf -r 2, off-CPU: same outputs, runs kept' '
	pgo collect -q -r 2 --call-graph dwarf -o s.data "$PGO_HELPERS/offcpu-sleep" 4 20 >/dev/null &&
	pgo convert -q --to pprof -i s.data -o s.pb.gz &&
	for m in autofdo llvm folded; do
		pgo convert -q --to $m -i s.data -o direct.$m 2>/dev/null &&
		pgo convert -q --to $m -i s.pb.gz -o via.$m 2>/dev/null &&
		{ [ $m != folded ] || stable_ksyms_both direct.$m via.$m; } &&
		cmp direct.$m via.$m || exit 1
	done &&
	pgo convert -q --to folded --view wall -i s.data >w1 &&
	pgo convert -q --to folded --view wall -i s.pb.gz >w2 &&
	test_cmp w1 w2 &&
	pgo convert -q --to pprof -i s.pb.gz -o again.pb.gz &&
	pgo convert -q --to folded -i again.pb.gz >w3 &&
	pgo convert -q --to folded -i s.data >f1 && test_cmp f1 w3 &&
	pgo convert -q --to json -i s.pb.gz -o s.json &&
	test "$(jq ".runs | length" s.json)" = 2
'

test_expect_success 'a glob and a directory merge, in one run' '
	mkdir fleet && cp gpn.pb.gz fleet/a.pb.gz && cp gpn.pb.gz fleet/b.pb.gz &&
	cp gpn.pb.gz fleet/c.pb.gz &&
	pgo convert -q --to folded -i fleet >dir.folded &&
	pgo convert -q --to folded -i "fleet/*.pb.gz" >glob.folded &&
	test_cmp dir.folded glob.folded &&
	awk "{ \$NF = 3 * \$NF; print }" gpn.folded >want3 &&
	test_cmp want3 dir.folded &&
	pgo convert -q --to json -i fleet -o f.json &&
	test "$(jq ".runs | length" f.json)" = 1
'

test_expect_success 'pgo gate compare takes pprof files, with their runs' '
	pgo collect -q -r 3 --no-off-cpu -o r3.data "$CS" 5 >/dev/null &&
	pgo convert -q --to pprof -i r3.data -o r3.pb.gz &&
	pgo gate compare r3.pb.gz r3.pb.gz >gate.out 2>&1 &&
	test_grep "verdict: pass" gate.out
'

test_expect_success 'binaries are matched by build-id: a rebuilt one is refused unless --force' '
	cp "$CS" ./cs &&
	perf record -q -g -e task-clock -F 999 -o cs.data ./cs 5 >/dev/null 2>&1 &&
	pgo convert -q --to pprof -i cs.data -o cs.pb.gz &&
	pgo convert -q --to autofdo -i cs.pb.gz -b ./cs -o ok.afdo &&
	cp "$PGO_HELPERS/offcpu-sleep" ./cs &&
	test_expect_code 2 pgo convert -q --to autofdo -i cs.pb.gz -b ./cs -o no.afdo 2>err &&
	test_grep "build-id" err && test ! -e no.afdo &&
	pgo convert -q --force --to folded -i cs.pb.gz -b ./cs >forced 2>/dev/null
'

test_expect_success 'bad pprof files exit 2 naming the file, nothing written' '
	head -c 100 gp.pb.gz >trunc.pb.gz &&
	test_expect_code 2 pgo convert --to folded -i trunc.pb.gz -o out1 2>err1 &&
	test_grep "trunc.pb.gz" err1 && test ! -e out1 &&
	printf "\n\377\377\377\377" | gzip >bad.pb.gz &&
	test_expect_code 2 pgo convert --to autofdo -i bad.pb.gz -b "$CS" -o out2 2>err2 &&
	test_grep "bad.pb.gz.*pprof" err2 && test ! -e out2 &&
	test_expect_code 2 pgo convert --to folded -i "nothing/*.pb.gz" 2>err3 &&
	test_grep "no file matches" err3
'

test_expect_success 'hostile pprof: bad indices, billion-sample claims, unknown or repeated ids' '
	command -v python3 >/dev/null || { echo "python3 is needed to craft the files"; exit 1; }
	python3 "$PGO_ROOT/tests/e2e/pprof-craft.py" ok ok.pb &&
	pgo convert -q --to folded -i ok.pb >ok.folded &&
	echo "[true] 3000" >want && test_cmp want ok.folded &&
	for k in bad-string billion missing-location dup-location; do
		python3 "$PGO_ROOT/tests/e2e/pprof-craft.py" $k $k.pb &&
		test_expect_code 2 pgo convert --to folded -i $k.pb -o $k.out 2>$k.err &&
		test_grep "$k.pb" $k.err && test ! -e $k.out || exit 1
	done
'

test_done
