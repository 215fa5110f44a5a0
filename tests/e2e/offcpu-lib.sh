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
	awk -v re="$1" '$2 ~ re { s += $1 } END { printf "%.0f\n", s }'
}

# test_must_be_empty_err FILE: FILE has no output (shown if it has).
test_must_be_empty_err() {
	if [ -s "$1" ]; then echo "unexpected output in $1:" >&2; cat "$1" >&2; return 1; fi
}

# offcpu_require: where the machine could do BPF but this pgo cannot (built with NO_BPF=1),
# skip the whole script visibly instead of failing it.
offcpu_require() {
	if test_have_prereq BPF && ! pgo collect -q --off-cpu -o "$TRASH/.probe.data" -- true >/dev/null 2>&1; then
		skip_all "this pgo cannot record off-CPU time (built with NO_BPF=1?)"
		test_done
	fi
	rm -f "$TRASH/.probe.data"
}
