#!/usr/bin/env bash
# pgo collect's off-CPU options: explicit request without privileges, opting out, stack modes.
. "$(dirname "$0")/lib.sh"
. "$PGO_ROOT/tests/e2e/offcpu-lib.sh"
offcpu_require

H=$PGO_HELPERS/offcpu-sleep
chmod 777 "$TRASH"

test_expect_success ROOT 'unprivileged --off-cpu says why and exits 2, writing nothing' '
	test_expect_code 2 setpriv --reuid=65534 --regid=65534 --clear-groups \
		pgo collect --off-cpu -o u.data -- true 2>err &&
	test_grep "cannot record off-CPU time: needs root" err &&
	test ! -e u.data
'

test_expect_success ROOT,PERF 'unprivileged by default: a one-line note, on-CPU still recorded' '
	setpriv --reuid=65534 --regid=65534 --clear-groups pgo collect -o d.data -- "$H" 1 20 >out 2>err &&
	test "$(grep -c "note: on-CPU only" err)" = 1 &&
	test -s d.data
'

test_expect_success BPF,PERF '--no-off-cpu writes the on-CPU event only' '
	pgo collect --no-off-cpu -o n.data -- "$H" 2 20 >out 2>err &&
	test_grep -v "off-CPU" err &&
	perf report -i n.data --stats 2>/dev/null >stats &&
	test_grep -v "offcpu-time" stats
'

test_expect_success BPF,PERF '--off-cpu-stacks user: no kernel frames, caller still there' '
	pgo collect --off-cpu --off-cpu-stacks user -o u.data -- "$H" 3 30 >out 2>err &&
	perf_stacks u.data offcpu-time >off &&
	test_grep "^[0-9]+ clock_nanosleep[^;]*;(__nanosleep;)?wait_for_io;main" off &&
	test_grep -v "schedule" off
'

test_expect_success BPF,PERF '--off-cpu-stacks none: the time is there, without stacks' '
	pgo collect --off-cpu --off-cpu-stacks none -o z.data -- "$H" 3 30 >out 2>err &&
	perf_stacks z.data offcpu-time >off &&
	test_grep -v "wait_for_io" off &&
	test "$(awk "{ s += \$1 } END { print s }" off)" -ge 90000000
'

test_expect_success BPF,PERF '--off-cpu-min drops short intervals and counts them' '
	pgo collect --off-cpu --off-cpu-min 20ms -o m.data -- "$PGO_HELPERS/offcpu-pingpong" 2000 >out 2>err &&
	test_grep "[1-9][0-9]* under --off-cpu-min" err
'

test_expect_success BPF '--off-cpu-sample 0 is rejected' '
	test_expect_code 64 pgo collect --off-cpu-sample 0 -- true 2>err &&
	test_grep "invalid sampling factor" err
'

test_expect_success BPF,PERF 'child processes are followed (fork tracepoint)' '
	pgo collect --off-cpu -o f.data -- sh -c "\"$H\" 2 30; \"$H\" 2 30" >out 2>err &&
	perf_stacks f.data offcpu-time >off &&
	waited=$(sum_matching ";wait_for_io;" <off) && echo "waited $waited ns" &&
	{ test "$waited" -ge 100000000 || { cat err off; false; }; }
'

# pgo gate record/check collect with pgo collect's off-CPU options (collect/offcpuopts.c)
commit() { git -c user.name=t -c user.email=t@t commit -q --allow-empty -m "$1"; }
test_expect_success BPF,PERF 'gate record --off-cpu-min: waits shorter than it are not in the stored profile' '
	mkdir g && cd g && git init -q -b main && commit one &&
	pgo gate record -r 2 -- "$H" 3 30 2>err &&
	git notes --ref refs/notes/pgo show HEAD >all.json &&
	test_grep "wait_for_io;[^\"]*\\[sleep\\]" all.json &&
	commit two &&
	pgo gate record -r 2 --off-cpu-min 1s -- "$H" 3 30 2>err &&
	cat err &&
	test_grep "off-CPU: .* [1-9][0-9]* intervals under --off-cpu-min" err &&
	git notes --ref refs/notes/pgo show HEAD >min.json &&
	test_grep "\"offcpu\"" min.json &&
	test_grep -v "wait_for_io;[^\"]*\\[sleep\\]" min.json
'

test_expect_success BPF,PERF 'gate check takes them too: --off-cpu-stacks none; bad values are usage errors (64), as gate options are' '
	cd g &&
	test_expect_code 64 pgo gate check -r 2 --off-cpu-sample 0 -- "$H" 1 10 2>err &&
	test_grep "invalid sampling factor" err &&
	test_expect_code 64 pgo gate check -r 2 --off-cpu-stacks most -- "$H" 1 10 2>err &&
	test_grep "invalid off-CPU stacks" err &&
	# the verdict (0 pass, 1 regression) is the noise of two short runs: only exit 2 fails
	rc=0 && { pgo gate check -r 2 --off-cpu-stacks none --view offcpu --base HEAD~1 -- "$H" 3 30 >out 2>err || rc=$?; } &&
	cat err && test "$rc" -le 1 &&
	test_grep "off-CPU: .* in [1-9][0-9]* samples" err
'

test_done
