#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# pgo collect -p: attach to a running multi-threaded server (tests/e2e/attach/server.c, -O2 -g,
# no frame pointers) under load for a fixed time. perf report/script and gcc's AutoFDO dumps
# are the truth: the request handler's share with full stacks (thread start down to the
# handler), the waits in accept and read off-CPU, counts on the handler's hot lines; the
# server keeps serving after the detach; a process that exits midway is written whole;
# SIGINT ends the recording with a whole file.
. "$(dirname "$0")/lib.sh"
. "$PGO_ROOT/tests/e2e/offcpu-lib.sh"
. "$PGO_ROOT/tests/e2e/afdo-lib.sh"

if ! test_have_prereq PERF ROOT; then skip_all "attaching needs perf and root here: $test_missing"; test_done; fi
SRC=$PGO_ROOT/tests/e2e/attach/server.c
HOT=$(grep -n 'h \*= 1099511628211ULL;' "$SRC" | cut -d: -f1)

# start_server NAME THREADS: ./server serving on a free port in the background; $NAME.pid, $NAME.port
start_server() {
	./server serve "$1.port" "$2" >/dev/null 2>&1 &
	echo $! >"$1.pid"
	test_wait_until 50 "test -s $1.port"
}
# stop_server NAME: kill it (if still there) and reap it
stop_server() {
	kill "$(cat "$1.pid")" 2>/dev/null || :
	wait "$(cat "$1.pid")" 2>/dev/null || :
}
cleanup_servers() { for f in *.pid; do [ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null; done; :; }
trap 'cleanup_servers; cd /; rm -rf "$TRASH"' EXIT

test_expect_success 'build the server (-O2 -g, no frame pointers) and a load generator' '
	cp "$SRC" server.c &&
	gcc -O2 -g -pthread -o server server.c &&
	cp server loadgen &&
	start_server main 4 &&
	./loadgen load "$(cat main.port)" 1 0.3 >warm.out &&
	test_grep "errors 0" warm.out
'

test_expect_success 'attach -p for 2 s under load: exit 0, the server untouched' '
	./loadgen load "$(cat main.port)" 2 5 50 >load.out &
	lp=$! &&
	sleep 0.5 &&
	start=$(date +%s%N) &&
	pgo collect -p "$(cat main.pid)" --duration 2 -o live.data 2>err &&
	end=$(date +%s%N) &&
	wait $lp &&
	cat err &&
	test_grep "recording 1 process" err &&
	test_grep "attached to 1 process" err &&
	test_grep "errors 0" load.out &&
	test $(((end - start) / 1000000)) -lt 8000 &&
	kill -0 "$(cat main.pid)" &&
	test "$(ls /proc/$(cat main.pid)/task | wc -l)" = 5
'

test_expect_success 'perf report: the handler has most on-CPU samples, stacks from the thread start' '
	perf report -i live.data --stdio --no-children --sort sym -g none >rep 2>rep.err &&
	test_grep -v "out of order|unknown" rep.err &&
	share=$(awk "/\\] handle_request *\$/ { sub(/%/, \"\", \$1); s += \$1 } END { print int(s) }" rep) &&
	echo "handle_request: $share% of the samples" &&
	test_ge "$share" 40 "handle_request share (%)" &&
	perf_stacks live.data task-clock >on &&
	all=$(sum_matching "^handle_request" <on) &&
	full=$(sum_matching "^handle_request;(serve_conn;)?worker;start_thread;(__)?clone3\$" <on) &&
	echo "handle_request leaf: $all, with the full stack: $full" &&
	test_ge "$all" 1 && test_ge "$full" $((all * 95 / 100)) "complete stacks"
'

test_expect_success 'pgo convert --to folded: the handler under worker and start_thread' '
	pgo convert --to folded -i live.data -o cpu.folded &&
	total=$(awk "{ s += \$NF } END { printf \"%.0f\", s }" cpu.folded) &&
	hand=$(awk "/start_thread;worker;(serve_conn;)?handle_request( |;)/ { s += \$NF } END { printf \"%.0f\", s }" cpu.folded) &&
	echo "folded: handler $hand of $total" &&
	test_ge "$((hand * 100 / total))" 40 "handler share in the folded view (%)"
'

test_expect_success BPF 'off-CPU: the waits in accept and read, from the thread start' '
	perf_stacks live.data offcpu-time >off &&
	acc=$(sum_matching "(^|;)accept;worker;start_thread;(__)?clone3\$" <off) &&
	rd=$(sum_matching "(^|;)(__libc_)?read;(serve_conn;)?worker;start_thread;(__)?clone3\$" <off) &&
	echo "perf script: accept $acc ns, read $rd ns" &&
	test_ge "$acc" 1000000 "ns waiting in accept" &&
	test_ge "$rd" 1000000 "ns waiting in read" &&
	pgo convert --to folded --view offcpu -i live.data -o off.folded &&
	grep -E "^(__)?clone3;start_thread;worker;accept;" off.folded >/dev/null &&
	grep -E "^(__)?clone3;start_thread;worker;serve_conn;(read_full;)?[_A-Za-z]*read;" off.folded >/dev/null
'

test_expect_success 'AutoFDO from the attached recording: gcc counts the handler hot lines' '
	pgo convert --to autofdo -i live.data -b server -o live.afdo &&
	gcc -O2 -fauto-profile=live.afdo -c server.c -o server.o \
		-fdump-tree-fixup_cfg3-blocks-details-lineno=live.dump &&
	body=$(afdo_line_count live.dump handle_request server.c $HOT) &&
	head=$(afdo_head_count live.dump handle_request) &&
	echo "handle_request line $HOT: $body, head $head" &&
	test_ge "$body" 50 "count of the hot line" &&
	test_ge "$head" 1 "head count of handle_request"
'

test_expect_success 'after the detach the server keeps serving' '
	./loadgen load "$(cat main.port)" 2 0.5 >after.out &&
	cat after.out &&
	test_grep "errors 0" after.out &&
	n=$(awk "{ print \$2 }" after.out) &&
	test_ge "$n" 10 "requests served after the detach"
'

test_expect_success 'SIGINT ends an open-ended recording; the file is whole' '
	./loadgen load "$(cat main.port)" 1 4 >/dev/null &
	lp=$! &&
	{ pgo collect -p "$(cat main.pid)" -o int.data 2>int.err & } &&
	test_wait_until 100 "grep -q recording int.err 2>/dev/null" &&
	cp=$(pgrep -n -f "collect -p $(cat main.pid) -o int.data") &&
	sleep 0.5 &&
	kill -INT $cp &&
	{ test_wait_until 100 "! kill -0 $cp 2>/dev/null" || { grep Sig /proc/$cp/status; kill -KILL $cp; exit 1; }; } &&
	wait $lp &&
	test_grep "ended by a signal" int.err &&
	perf report -i int.data --stdio --no-children --sort sym -g none >int.rep 2>int.rep.err &&
	test_grep "handle_request" int.rep &&
	kill -0 "$(cat main.pid)"
'

test_expect_success 'a process that exits midway ends the recording, written whole' '
	start_server short 2 &&
	start=$(date +%s%N) &&
	{ pgo collect -p "$(cat short.pid)" --duration 30 -o short.data 2>short.cerr & } &&
	test_wait_until 300 "grep -q recording short.cerr 2>/dev/null" &&
	./loadgen load "$(cat short.port)" 1 1 >/dev/null &&
	kill "$(cat short.pid)" &&
	test_wait_until 200 "grep -q detached short.cerr" &&
	end=$(date +%s%N) &&
	cat short.cerr &&
	test_grep "1 exited while recording" short.cerr &&
	test $(((end - start) / 1000000)) -lt 25000 &&
	test_wait_until 50 "test -s short.data" &&
	perf script -i short.data --show-task-events -F comm,pid,tid,event >short.s 2>short.err &&
	test_grep -v "out of order|Warning" short.err &&
	test_grep "PERF_RECORD_EXIT\\($(cat short.pid):$(cat short.pid)\\)" short.s &&
	pgo convert --to folded -i short.data -o short.folded &&
	test_grep "handle_request" short.folded
'

test_expect_success 'usage and errors: no file is left' '
	test_expect_code 64 pgo collect -p 1 -- true 2>e1 &&
	test_grep "takes no command" e1 &&
	test_expect_code 64 pgo collect -a --duration 1 -o x.data 2>e2 &&
	test_grep "needs --binary" e2 &&
	test_expect_code 64 pgo collect --duration 1 -- true 2>e3 &&
	test_expect_code 64 pgo collect -p 1,x 2>e4 &&
	test_expect_code 2 pgo collect -p 999999999 --duration 1 -o x.data 2>e5 &&
	test_grep "no process 999999999" e5 &&
	test ! -e x.data && test ! -e pgo.data
'

OPEN=$(mktemp -d /tmp/pgo-t1301.XXXXXX)
trap 'cleanup_servers; rm -rf "$OPEN"; cd /; rm -rf "$TRASH"' EXIT
test_expect_success 'without the rights: a clear message, exit 2, no file' '
	chmod 777 "$OPEN" && cd "$OPEN" &&
	test_expect_code 2 setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$PGO_BIN/pgo" collect --no-off-cpu -p "$(cat $TRASH/main.pid)" --duration 1 -o x.data 2>$TRASH/p1 &&
	cat $TRASH/p1 &&
	test_grep "refused" $TRASH/p1 &&
	test_grep "root|CAP_PERFMON" $TRASH/p1 &&
	test_grep "perf_event_paranoid" $TRASH/p1 &&
	test -z "$(ls -A)" &&
	test_expect_code 2 setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$PGO_BIN/pgo" collect --no-off-cpu -a --binary /bin/sleep --duration 1 -o x.data 2>$TRASH/p2 &&
	cat $TRASH/p2 &&
	test_grep "whole CPUs" $TRASH/p2 &&
	test -z "$(ls -A)"
'
test_done
