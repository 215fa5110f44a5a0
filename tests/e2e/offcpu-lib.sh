# Helpers for the t4xxx off-CPU tests (sourced after lib.sh).

# perf_stacks FILE EVENT: one line per EVENT sample, "period leaf;caller;...;root" (symbols).
perf_stacks() {
	perf script -i "$1" -F event,period,ip,sym 2>>perf-script.err | awk -v ev="$2:" '
		function flush() { if (want) print period, stack; want = 0 }
		/^ *[0-9]+ +[^ ]+: *$/ { flush(); want = ($2 == ev); period = $1; stack = ""; next }
		/^\t/ { if (want) { sym = $2; stack = stack (stack == "" ? "" : ";") sym } next }
		/^$/ { flush() }
		END { flush() }'
}

# sum_matching REGEX < stacks: total period of the stacks matching REGEX.
sum_matching() {
	awk -v re="$1" '$2 ~ re { s += $1 } END { printf "%d\n", s }'
}

# test_must_be_empty_err FILE: FILE has no output (shown if it has).
test_must_be_empty_err() {
	if [ -s "$1" ]; then echo "unexpected output in $1:" >&2; cat "$1" >&2; return 1; fi
}
