#!/usr/bin/env bash
# pgo gate check --build (interleaved mode) in a real git repository with a Makefile, as
# the CI examples (examples/ci/) run it: the merge-base is checked out as a git worktree,
# built with the given command, and base and head run alternately. The truth is the
# construction: the head branch "slow" makes work_d's loop 60% longer (work_d is ~15% of
# the runs, so +9% of total), the branch "same" changes only a comment; main's second
# commit does not compile (its compiler error is the log's tail), the branch "fix" from it
# does. Exit codes as README documents: 0 pass, 1 regression, 2 error, 64 usage. The
# worktree and its temporary directory are gone afterwards, also after SIGTERM.
# q = 0.01 as in t3004: the machine is shared, the regression is far above the limit.
. "$(dirname "$0")/lib.sh"
RUN="-r 5 -F 1999 --q 0.01 --no-off-cpu"

if ! test_have_prereq PERF; then skip_all "perf events not available"; test_done; fi
command -v git >/dev/null || { skip_all "no git"; test_done; }
command -v cc >/dev/null || { skip_all "no C compiler"; test_done; }

commit() { git add -A && git -c user.name=t -c user.email=t@t commit -q -m "$1"; }
# no worktree but the main one, no temporary base directory left
no_leftovers() {
	if [ "$(git worktree list | wc -l)" != 1 ] || [ -n "$(ls "$TRASH/tmp")" ]; then
		echo "left over:" >&2; git worktree list >&2; ls -la "$TRASH/tmp" >&2; return 1
	fi
}
export TMPDIR=$TRASH/tmp

test_expect_success 'setup: a repository with a Makefile, main and three branches' '
	mkdir tmp repo && cd repo && git init -q -b main &&
	cat >bench.c <<-\EOF &&
	#include <stdio.h>
	#include <stdlib.h>
	#ifndef D_ITERS
	#define D_ITERS 15
	#endif
	static volatile unsigned long sink;
	#define WORK(name, iters) \
		__attribute__((noinline)) static void name(unsigned long n) \
		{ unsigned long i, x = sink; for (i = 0; i < n * (iters) * 1000UL; i++) \
		  x = x * 6364136223846793005UL + i; sink = x; }
	WORK(work_a, 40)
	WORK(work_b, 25)
	WORK(work_c, 20)
	WORK(work_d, D_ITERS)
	int main(int argc, char **argv)
	{
		unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 0, r;
		if (!n)
			n = 24; /* --fixed-work, as the CI examples run it */
		for (r = 0; r < n; r++) { work_a(100); work_b(100); work_c(100); work_d(100); }
		printf("%lu\n", sink);
		return 0;
	}
	EOF
	printf "bench: bench.c\n\tcc -O2 -g -fno-omit-frame-pointer \$(CFLAGS) -o bench bench.c\nbench-binary: bench\n" >Makefile &&
	echo bench >.gitignore &&
	commit base &&
	git checkout -q -b slow && sed -i "s/define D_ITERS 15/define D_ITERS 24/" bench.c && commit slow &&
	git checkout -q main && git checkout -q -b same && echo "/* a comment */" >>bench.c && commit same &&
	git checkout -q main && echo "syntax error here" >>bench.c && commit broken &&
	git checkout -q -b fix && sed -i "/syntax error here/d" bench.c && commit fix &&
	git checkout -q same && make -s && ./bench 1 >/dev/null
'
test_expect_success 'an unchanged head passes (exit 0); the verdict says interleaved' '
	cd repo && git checkout -q same && make -s &&
	test_expect_code 0 pgo gate check --build make $RUN --json v.json --markdown c.md \
		-- ./bench 24 >out 2>err &&
	test_grep "^verdict: pass" out &&
	test_grep "interleaved: base $(git rev-parse --short=12 main~1) .*5 \+ 5 runs alternating" err &&
	python3 -c "import json,sys; v=json.load(open(\"v.json\")); ok = v[\"mode\"]==\"interleaved\" and v[\"base_runs\"]==5 and v[\"head_runs\"]==5 and v[\"options\"][\"program_fail\"]; print(\"verdict JSON:\", v[\"mode\"], v[\"base_runs\"], v[\"head_runs\"], v[\"options\"]); sys.exit(0 if ok else 1)" &&
	test_grep "runs \(interleaved\)" c.md &&
	no_leftovers
'
test_expect_success 'a head with work_d 60% slower fails (exit 1) naming work_d' '
	cd repo && git checkout -q slow && make -s &&
	test_expect_code 1 pgo gate check --build make $RUN --json v.json -- ./bench 24 >out &&
	test_grep "^work_d +self .*ROOT CAUSE" out &&
	python3 -c "import json,sys; v=json.load(open(\"v.json\")); print(\"root causes:\", v[\"root_causes\"]); sys.exit(0 if \"work_d\" in v[\"root_causes\"] else 1)" &&
	no_leftovers
'
test_expect_success 'the confirmation of a flag runs both sides again, alternately' '
	cd repo && git checkout -q slow && make -s &&
	test_expect_code 1 pgo gate check --build make $RUN --confirm --json v.json -- ./bench 24 \
		>out 2>err &&
	test_grep "confirming on more runs of both sides, interleaved" err &&
	test_grep "interleaved \(confirmation\): base .*5 \+ 5 runs alternating" err &&
	python3 -c "import json,sys; v=json.load(open(\"v.json\")); print(\"runs:\", v[\"base_runs\"], v[\"head_runs\"]); sys.exit(0 if v[\"base_runs\"] == 10 and v[\"head_runs\"] == 10 and \"work_d\" in v[\"root_causes\"] else 1)" &&
	test_expect_code 1 pgo gate check --build make $RUN --no-confirm --json v.json -- ./bench 24 \
		>out 2>err &&
	test_grep -v "confirm" err &&
	python3 -c "import json,sys; v=json.load(open(\"v.json\")); sys.exit(0 if v[\"base_runs\"] == 5 and v[\"head_runs\"] == 5 else 1)" &&
	no_leftovers
'
test_expect_success 'each side runs its own build: the base binary is the merge-base one' '
	cd repo && git checkout -q slow && make -s &&
	git show main~1:bench.c >expect.c && grep -q "define D_ITERS 15" expect.c &&
	test_expect_code 1 pgo gate check --build "make && cp bench.c $TRASH/built.c" $RUN \
		-- ./bench 24 >/dev/null 2>&1 &&
	test_cmp expect.c "$TRASH/built.c"
'
test_expect_success 'both sides run under the head'"'"'s argv, argv[0] included, each its own build' '
	mkdir argv && cd argv && git init -q -b main &&
	printf "%s\n" "#include <stdio.h>" "#include <stdlib.h>" "#include \"side.h\"" \
		"int main(int argc, char **argv) { volatile unsigned long x = 1, i; FILE *f;" \
		"	for (i = 0; i < 20000000UL; i++) x = x * 3 + i;" \
		"	f = fopen(getenv(\"ARGV_LOG\"), \"a\"); if (!f) return 1;" \
		"	fprintf(f, \"%s %s %s\\n\", SIDE, argv[0], argc > 1 ? argv[1] : \"-\"); return fclose(f) != 0; }" >bench.c &&
	echo "#define SIDE \"base\"" >side.h &&
	printf "bench: bench.c side.h\n\tcc -O2 -o bench bench.c\n" >Makefile && echo bench >.gitignore &&
	commit base && git checkout -q -b head && echo "#define SIDE \"head\"" >side.h && commit head &&
	make -s && ARGV_LOG=$TRASH/argv.log pgo gate check --build make $RUN -- ./bench 7 >/dev/null 2>err &&
	sort "$TRASH/argv.log" | uniq -c | sed "s/^ *//" >got &&
	printf "5 base ./bench 7\n5 head ./bench 7\n" >expect && test_cmp expect got
'
test_expect_success 'a base that does not build is exit 2 with the tail of the build log' '
	cd repo && git checkout -q fix && make -s &&
	test_expect_code 2 pgo gate check --build make $RUN -- ./bench 24 >out 2>err &&
	test_grep "does not build" err && test_grep "syntax error here|expected" err &&
	test_grep -v "^verdict" out &&
	no_leftovers
'
test_expect_success 'a build that leaves no benchmark, or a benchmark from PATH, is an error' '
	cd repo && git checkout -q same && make -s &&
	test_expect_code 2 pgo gate check --build true $RUN -- ./bench 24 2>err &&
	test_grep "left no executable" err &&
	test_expect_code 2 pgo gate check --build make $RUN -- bench 40 2>err &&
	test_grep "found in PATH" err &&
	no_leftovers
'
test_expect_success '--build with --profile, or on record, is a usage error (64)' '
	cd repo &&
	test_expect_code 64 pgo gate check --build make --profile x.json 2>err &&
	test_expect_code 64 pgo gate record --build make -- ./bench 2>err &&
	test_expect_code 64 pgo gate compare --build make a.json b.json 2>err
'
# The check command of a CI example, as written there (continuation lines joined), with
# the target branch main: the Makefile above has its bench-binary target, bench.c takes
# --fixed-work.
example_check() {
	python3 - "$PGO_ROOT/examples/ci/$1" <<-\EOF
	import re, sys
	lines = open(sys.argv[1]).read().split("\n")
	i = next(i for i, l in enumerate(lines) if l.strip().lstrip("- ").startswith("pgo gate check --build"))
	ind = len(lines[i]) - len(lines[i].lstrip())
	cmd = lines[i].strip().lstrip("- ")
	while cmd.endswith("\\") or (i + 1 < len(lines) and lines[i + 1].strip() and
	        len(lines[i + 1]) - len(lines[i + 1].lstrip()) > ind and
	        not lines[i + 1].lstrip().startswith("- ")):
	    cmd = cmd.rstrip("\\").rstrip() + " " + lines[i + 1].strip()
	    i += 1
	cmd = re.sub(r"\|\| status=\$\?", "", cmd)
	cmd = re.sub(r"\"?origin/(\$\{\{ github.base_ref \}\}|\$CI_MERGE_REQUEST_TARGET_BRANCH_NAME)\"?", "main", cmd)
	print(cmd)
	EOF
}
for ex in github-actions.yml gitlab-ci.yml; do
test_expect_success "examples/ci/$ex: its check fails a slow head (exit 1), a broken base is exit 2" '
	cd repo && example_check '$ex' >cmd && cat cmd &&
	test_grep "^pgo gate check --build .make bench-binary. .*--base main .*-- ./bench --fixed-work" cmd &&
	git checkout -q slow && make -s bench-binary &&
	test_expect_code 1 sh cmd >out 2>err &&
	test_grep "^work_d +self .*ROOT CAUSE" out && test_grep "runs \(interleaved\)" gate.md &&
	python3 -c "import json,sys; sys.exit(0 if json.load(open(\"gate.json\"))[\"mode\"] == \"interleaved\" else 1)" &&
	test -s gate.svg &&
	git checkout -q fix && make -s bench-binary &&
	test_expect_code 2 sh cmd >out 2>err &&
	test_grep "does not build" err && test_grep "syntax error here|expected" err &&
	no_leftovers
'
done
test_expect_success 'SIGTERM during the build ends it and removes the worktree (exit 2)' '
	cd repo && git checkout -q same && make -s &&
	{ pgo gate check --build "sleep 37" $RUN -- ./bench 24 2>err & } &&
	pid=$! &&
	test_wait_until 100 "ls \"$TRASH\"/tmp/pgo-gate-base.*/tree/bench.c >/dev/null 2>&1" &&
	sleep 0.3 && kill -TERM $pid &&
	test_expect_code 2 wait $pid &&
	test_grep "interrupted" err &&
	! pgrep -f "sleep 37" >/dev/null &&
	no_leftovers
'
test_done
