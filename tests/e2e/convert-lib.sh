#!/usr/bin/env bash
# Shared setup of the t2xxx convert tests: build the fixture program (tests/fixtures/
# convert/hot.c + lib.c) and record it. Source after lib.sh.
FIX=$PGO_ROOT/tests/fixtures/convert

# build_hot OUT [CFLAGS...]: the training build (big() forced inline), libhot.so beside it.
build_hot() {
	local out=$1; shift
	gcc -O2 -g -fPIC -shared -o libhot.so "$FIX/lib.c" &&
	gcc -O2 "$@" -DTRAIN_INLINE -o "$out" "$FIX/hot.c" -L. -lhot -Wl,-rpath,"\$ORIGIN"
}

# record OUT.data CMD...: task-clock/cpu-clock samples every 50 us of CPU time.
record() {
	local data=$1; shift
	perf record -q -e cpu-clock -c 50000 -o "$data" "$@" >/dev/null 2>perf.err
}

# line_offset PATTERN FUNC: line of PATTERN in hot.c minus the line of "FUNC(".
line_offset() {
	local fl pl
	fl=$(grep -n "^$2(" "$FIX/hot.c" | head -1 | cut -d: -f1)
	pl=$(grep -nF -- "$1" "$FIX/hot.c" | head -1 | cut -d: -f1)
	echo $((pl - fl))
}

# dump_count DUMP FUNC OFFSET: the count printed for "+OFFSET" directly in top-level FUNC.
dump_count() {
	awk -v f="$2:" -v o="  +$3:" '
		/^[^ #]/ { in_f = ($1 == f) }
		in_f && index($0, o) == 1 { sub(/.*: /, ""); print $1; exit }' "$1"
}
