# SPDX-License-Identifier: MIT
# What a recipe (bench/pgo/recipes/NAME.sh) may use besides bench/lib.sh (deb_source, need_pkgs,
# die): INPUTS, gen_input, and the default build. Sourced by bench/pgo/run.sh and bench/convert.sh.
INPUTS=$PGO_ROOT/bench/inputs
export INPUTS BENCH_WORK

# gen_input FILE GENERATOR VAR=VALUE...: FILE from bench/inputs/GENERATOR (awk -v VAR=VALUE ...),
# once: kept across runs, written whole or not at all.
gen_input() {
	local f=$1 g=$2 a=() v
	shift 2
	[ -s "$f" ] && return 0
	for v in "$@"; do a+=(-v "$v"); done
	awk "${a[@]}" -f "$INPUTS/$g" >"$f.tmp" && mv "$f.tmp" "$f" || { rm -f "$f.tmp"; die "$g failed (for $f)"; }
}

# build OBJDIR FLAGS...: the recipe's SRCS to OBJDIR/NAME.o (named by basename, 2 jobs) with
# -O2 -g FLAGS and the recipe's CPPFLAGS_P, warnings off (-w; BUILD_W='' keeps them: the gcov
# variant's profile diagnostics). A recipe whose program is not a list of sources
# defines its own build with the same interface (objects in OBJDIR, linked by the caller with
# LDLIBS_P).
build() {
	local o=$1; shift
	local flags="-O2 -g $* ${CPPFLAGS_P:-}"
	printf '%s\n' "${SRCS[@]}" | D=$o FLAGS=$flags W=${BUILD_W--w} xargs -P 2 -I{} sh -c \
		'gcc $FLAGS $W -c "$1" -o "$D/$(basename "$1" .c).o"' _ {}
}
