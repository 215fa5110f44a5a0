#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# pgo collect -a --binary PATH and --cgroup PATH: every process running the binary, one
# started after the recording began included, and none other (a load generator that is a
# copy of it under another name); a cgroup's processes only. perf script is the truth.
. "$(dirname "$0")/lib.sh"
. "$PGO_ROOT/tests/e2e/afdo-lib.sh"

if ! test_have_prereq PERF ROOT; then skip_all "attaching to every CPU needs perf and root here: $test_missing"; test_done; fi
SRC=$PGO_ROOT/tests/e2e/attach/server.c
CG=""

start_server() {
	"$3" serve "$1.port" "$2" >/dev/null 2>&1 &
	echo $! >"$1.pid"
	test_wait_until 50 "test -s $1.port"
}
cleanup() {
	for f in *.pid; do [ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null; done
	[ -n "$CG" ] && [ -d "$CG" ] && { sleep 0.2; rmdir "$CG" 2>/dev/null; }
	:
}
trap 'cleanup; cd /; rm -rf "$TRASH"' EXIT

test_expect_success 'build the server and a load generator (a copy under another name)' '
	cp "$SRC" server.c &&
	gcc -O2 -g -pthread -o server server.c &&
	cp server loadgen &&
	start_server old 2 ./server
'

test_expect_success '-a --binary: the running server and one started while recording' '
	./loadgen load "$(cat old.port)" 1 5 50 >old.load &
	lp=$! &&
	{ pgo collect -a --binary ./server --duration 4 -o all.data 2>all.err & } &&
	test_wait_until 100 "grep -q recording all.err 2>/dev/null" &&
	start_server new 2 "$TRASH/server" &&
	./loadgen load "$(cat new.port)" 1 1.5 50 >new.load &&
	test_wait_until 150 "grep -q detached all.err" &&
	wait $lp &&
	cat all.err &&
	test_grep "recording 1 process" all.err &&
	test_grep "attached to 2 processes" all.err &&
	perf script -i all.data -F comm,pid,ip,sym >all.s 2>all.s.err &&
	test_grep -v "out of order" all.s.err &&
	for p in old new; do
		pid=$(cat $p.pid) &&
		n=$(grep -c "^ *server *$pid *\$" all.s) &&
		h=$(grep -A1 "^ *server *$pid *\$" all.s | grep -c handle_request) &&
		echo "$p server (pid $pid): $n samples, $h in handle_request" &&
		test_ge "$n" 50 "samples of the $p server" &&
		test_ge "$h" $((n / 3)) "handle_request samples of the $p server" || exit 1
	done &&
	test_grep -v "^ *loadgen" all.s &&
	perf script -i all.data -F pid 2>/dev/null | sort -u >all.pids &&
	test "$(wc -l <all.pids)" = 2 &&
	perf script -i all.data --show-task-events -F comm,pid,tid,event 2>/dev/null >task.s &&
	test_grep "PERF_RECORD_COMM exec: server:$(cat new.pid)/$(cat new.pid)" task.s &&
	pgo convert --to folded -i all.data -o all.folded &&
	test_grep "start_thread;worker;(serve_conn;)?handle_request " all.folded &&
	kill -0 "$(cat old.pid)" && kill -0 "$(cat new.pid)"
'

test_expect_success '--cgroup: the processes of the cgroup only' '
	cgroot=$(awk "\$3 == \"cgroup2\" { print \$2; exit }" /proc/mounts) &&
	{ test -n "$cgroot" || { echo "no cgroup2 mount"; exit 1; }; } &&
	CG=$cgroot/pgo-t1302-$$ &&
	mkdir "$CG" &&
	start_server cg 2 ./server &&
	echo "$(cat cg.pid)" >"$CG/cgroup.procs" &&
	# the loads outlast the recording, whose start (BPF, unwind tables) takes seconds when busy
	{ ./loadgen load "$(cat cg.port)" 1 8 50 >cg.load & } &&
	l1=$! &&
	{ ./loadgen load "$(cat old.port)" 1 8 50 >old2.load & } &&
	l2=$! &&
	{ pgo collect --cgroup "$CG" --duration 2 -o cg.data 2>cg.err || { cat cg.err; false; }; } &&
	{ wait $l1 $l2 || { echo "a load generator failed:"; cat cg.load old2.load; false; }; } &&
	kill "$(cat cg.pid)" &&
	perf script -i cg.data -F pid 2>/dev/null | sort | uniq -c >cg.pids &&
	cat cg.pids cg.err &&
	test "$(wc -l <cg.pids)" = 1 &&
	test_grep " $(cat cg.pid) *\$" cg.pids &&
	sleep 0.3 && rmdir "$CG"
'
test_done
