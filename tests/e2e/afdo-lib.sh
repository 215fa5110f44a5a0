#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Helpers of the t25xx black-box gcc/clang verification tests of `pgo convert`: source this after
# lib.sh. Fixtures live in tests/e2e/afdo/. Recording modes (AFDO_RECORDERS):
#   perf    perf record -e task-clock -c 100000            (IP only)
#   perfg   perf record -e task-clock -c 100000 -g         (with call stacks)
#   collect pgo collect -F 10000 -g                         (only when pgo collect is built)
# and, for the tests of call-stack features, two modes with DWARF-unwound stacks (afdo_stack_recorders):
#   dwarf   perf record -e task-clock -c 100000 --call-graph dwarf,4096
#   collect-dwarf pgo collect -F 10000                      (its default unwinding: DWARF for -O2)
# The compiler: the host's gcc, or with PGO_TEST_GCC=gcc-13 (gcc-14, gcc-15, gcc-16) that gcc
# of the chroots tests/tools/compilers.sh builds in $PGO_COMPILERS_DIR (trixie: 13, 14; sid:
# 15, 16), or PGO_TEST_GCC="ROOT gcc-N" for a chroot elsewhere: `gcc` and `g++` in the tests
# then run it (tests/e2e/chroot-cc.sh), and AFDO_GCC holds its major version.
AFDO_SRC=$PGO_ROOT/tests/e2e/afdo
PGO_COMPILERS_DIR=${PGO_COMPILERS_DIR:-/var/cache/pgo-compilers}

# afdo_gcc_root GCC: the chroot that has GCC (gcc-13 ...) under $PGO_COMPILERS_DIR.
afdo_gcc_root() {
	case "$1" in
	gcc-13 | gcc-14) echo "$PGO_COMPILERS_DIR/trixie" ;;
	gcc-15 | gcc-16) echo "$PGO_COMPILERS_DIR/sid" ;;
	*) return 1 ;;
	esac
}

# afdo_use_gcc: point gcc and g++ at PGO_TEST_GCC's compiler; skip the script, visibly, when
# its chroot is absent. Sets AFDO_GCC (the major version).
afdo_use_gcc() {
	local spec=${PGO_TEST_GCC:-} root cc bin
	AFDO_GCC=$(gcc -dumpversion | cut -d. -f1)
	case "$spec" in
	"" | gcc) return 0 ;;
	*" "*) root=${spec% *} cc=${spec##* } ;;
	*) cc=$spec; root=$(afdo_gcc_root "$cc") || {
		echo "PGO_TEST_GCC=$spec: gcc-13, gcc-14, gcc-15, gcc-16 or \"ROOT gcc-N\"" >&2; exit 2; } ;;
	esac
	if ! chroot "$root" sh -c "command -v $cc" >/dev/null 2>&1; then
		skip_all "$cc chroot absent: make compilers"
		test_done
	fi
	if ! test_have_prereq MOUNTNS; then
		skip_all "$cc: running its chroot's compiler needs root (a private mount namespace)"
		test_done
	fi
	bin=$TRASH/.cc
	mkdir -p "$bin"
	printf '#!/bin/sh\nexec "%s" "%s" %s "$@"\n' "$PGO_ROOT/tests/e2e/chroot-cc.sh" "$root" "$cc" >"$bin/gcc"
	printf '#!/bin/sh\nexec "%s" "%s" %s "$@"\n' "$PGO_ROOT/tests/e2e/chroot-cc.sh" "$root" "g++-${cc#gcc-}" >"$bin/g++"
	chmod +x "$bin/gcc" "$bin/g++"
	export PATH="$bin:$PATH"
	AFDO_GCC=${cc#gcc-}
	say "compiler: $(gcc --version | head -1)"
}

# afdo_require: skip the whole script, visibly, until `pgo convert` and perf are there.
afdo_require() {
	if pgo convert --help 2>&1 | grep -q 'not built yet' || ! pgo convert --help >/dev/null 2>&1; then
		skip_all "pgo convert is not built yet"
		test_done
	fi
	if ! test_have_prereq PERF || ! perf record -q -e task-clock -o "$TRASH/probe.data" true >/dev/null 2>&1; then
		skip_all "perf record does not work here"
		test_done
	fi
	afdo_use_gcc
	# Compile the fixtures by relative name: gcc dumps print locations as they were given.
	cp "$AFDO_SRC"/*.c .
	AFDO_RECORDERS="perf perfg"
	if ! pgo collect --help 2>&1 | grep -q 'not built yet'; then
		AFDO_RECORDERS="$AFDO_RECORDERS collect"
	fi
}

# afdo_record MODE OUT CMD...: profile CMD into OUT.
afdo_record() {
	local mode=$1 out=$2; shift 2
	case "$mode" in
	perf) perf record -q -e task-clock -c 100000 -o "$out" -- "$@" >/dev/null ;;
	perfg) perf record -q -e task-clock -c 100000 -g -o "$out" -- "$@" >/dev/null ;;
	collect) pgo collect -q -F 10000 -g -o "$out" -- "$@" >/dev/null ;;
	dwarf) perf record -q --call-graph dwarf,4096 -e task-clock -c 100000 -o "$out" -- "$@" >/dev/null 2>&1 ;;
	collect-dwarf) pgo collect -q -F 10000 -o "$out" -- "$@" >/dev/null ;;
	*) echo "afdo_record: unknown mode $mode" >&2; return 1 ;;
	esac
}

# afdo_profile MODE BIN ARGS...: profile ./BIN ARGS with afdo_record MODE and convert it:
# MODE.data, MODE.afdo, its --dump listing MODE.dump and main's record in it, MODE.main.
afdo_profile() {
	local mode=$1 bin=$2; shift 2
	afdo_record "$mode" "$mode.data" "./$bin" "$@" &&
	pgo convert --to autofdo -i "$mode.data" -b "$bin" -o "$mode.afdo" &&
	pgo convert --dump "$mode.afdo" >"$mode.dump" &&
	afdo_section "$mode.dump" main >"$mode.main"
}

# afdo_stack_recorders: the afdo_record modes with DWARF-unwound call stacks that work here.
afdo_stack_recorders() {
	if echo "$AFDO_RECORDERS" | grep -q collect; then echo dwarf collect-dwarf; else echo dwarf; fi
}

# afdo_section DUMP FN: the top-level record of FN in a `pgo convert --dump` listing.
afdo_section() { awk -v fn="$2:" '$1 == fn { p = 1; print; next } /^[^ ]/ { p = 0 } p' "$1"; }

# afdo_disas BIN FUNC: objdump's disassembly of FUNC in BIN.
afdo_disas() { objdump -d "$1" | awk -v f="<$2>:" '$2 == f { m = 1 } /^$/ { m = 0 } m'; }

# afdo_size BIN NAME: the ELF size in bytes of the global function NAME in BIN.
afdo_size() {
	local h
	h=$(nm -S "$1" | awk -v n="$2" '$3 == "T" && $4 == n { print $2 }') && [ -n "$h" ] && echo $((16#$h))
}

# afdo_empty FILE: a valid AutoFDO profile with no functions (the control), for the gcc
# the tests use: version 2 (gcc 12-15), or version 3 with its summary section (gcc 16:
# auto-profile.cc summary_info::read: tag 0xa8000000, 6 u64, 16 x {u32, u64, u64}).
afdo_empty() {
	local i
	if [ "${AFDO_GCC:-12}" -ge 16 ]; then
		{
			printf 'adcg\003\0\0\0\0\0\0\0\0\0\0\250'
			printf '\0\0\0\0\0\0\0\0%.0s' 1 2 3 4 5
			printf '\020\0\0\0\0\0\0\0'
			for i in $(seq 16); do printf '\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0'; done
			printf '\0\0\0\252\0\0\0\0\0\0\0\0\0\0\0\0'
			printf '\0\0\0\254\0\0\0\0\0\0\0\0\0\0\0\256\0\0\0\0\0\0\0\0'
		} >"$1"
		return
	fi
	printf 'adcg\002\0\0\0\0\0\0\0\0\0\0\252\0\0\0\0\0\0\0\0\0\0\0\254\0\0\0\0\0\0\0\0\0\0\0\256\0\0\0\0\0\0\0\0' >"$1"
}

# afdo_gcc_clean PROFILE SRC [FLAGS...]: gcc -O2 -fauto-profile must accept PROFILE silently.
afdo_gcc_clean() {
	local prof=$1 src=$2; shift 2
	gcc -O2 -Wall -Wextra -fauto-profile="$prof" "$@" -c "$src" -o afdo-clean.o 2>gcc.err || {
		cat gcc.err >&2; echo "gcc rejected $prof" >&2; return 1; }
	if [ -s gcc.err ]; then
		echo "gcc printed diagnostics for $prof:" >&2; cat gcc.err >&2; return 1
	fi
}

# afdo_line_count DUMP FUNC FILE LINE: the largest "(auto FDO)" count of a basic block of FUNC
# (its name, or its assembler name for C++) holding a statement at FILE:LINE in a
# -fdump-tree-*-blocks-details-lineno dump; -1 if none.
afdo_line_count() {
	awk -v fn="$2" -v loc="[$3:$4:" '
		/^;; Function / { infn = ($3 == fn || index($0, "(" fn ",") || index($0, "(" fn ".")); c = -1; next }
		infn && /^;;   basic block / {
			c = -1
			if (match($0, /count [0-9]+ \(auto FDO[,)]/)) c = substr($0, RSTART + 6, RLENGTH - 17) + 0
			next
		}
		infn && index($0, loc) && c > max { max = c }
		BEGIN { max = -1 }
		END { printf "%.0f\n", max }' "$1"
}

# afdo_entry_lines BIN FUNC: the source lines of FUNC's entry block as objdump decodes it
# (-d -l): its instructions up to the first jump, conditional jump, return, trap or nop
# (padding before a branch target); one a line.
afdo_entry_lines() {
	objdump -d -l --no-show-raw-insn "$1" | awk -v fn="<$2>:" '
		$2 == fn { infn = 1; next }
		!infn { next }
		/^$/ { exit }
		/^\// { l = $1; sub(/.*:/, "", l); next }
		/^ +[0-9a-f]+:\t/ {
			print l
			m = ($2 == "bnd" || $2 == "notrack") ? $3 : $2
			if (m ~ /^(j|ret|ud2|hlt|int3|nop|data16)/ || $0 ~ /(cs nop|xchg +%ax,%ax)/) exit
		}'
}

# afdo_head_count DUMP FUNC: the "(auto FDO)" count of FUNC's first basic block; -1 if none.
afdo_head_count() {
	awk -v fn="$2" '
		/^;; Function / { infn = ($3 == fn); next }
		infn && /^;;   basic block 2,/ {
			if (match($0, /count [0-9]+ \(auto FDO[,)]/)) { printf "%.0f\n", substr($0, RSTART + 6, RLENGTH - 17) + 0; found = 1 }
			exit
		}
		END { if (!found) print -1 }' "$1"
}

# afdo_skip TITLE REASON: a test that cannot run with this compiler, shown as skipped.
afdo_skip() {
	test_count=$((test_count + 1)) test_skipped=$((test_skipped + 1))
	echo "ok $test_count - $1 # SKIP $2"
}

# test_ge A B [what]: A >= B, numerically, with a message saying what was compared.
test_ge() {
	[ "$1" -ge "$2" ] 2>/dev/null || { echo "expected ${3:-value} >= $2, got $1" >&2; return 1; }
}
