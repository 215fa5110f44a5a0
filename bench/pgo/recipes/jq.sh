# SPDX-License-Identifier: MIT
# jq 1.6 (Debian): the command line and its library; oniguruma from Debian (libonig-dev).
setup() {
	local d g=$BENCH_WORK/jq-gen f m=""
	# The security update of bookworm is not on the source mirror here; the point release is.
	d=$(deb_source jq 1.6-2.1+deb12u2) || exit 2
	need_pkgs libonig-dev
	# jq 1.6's Debian source has no configure: the two generated headers as its Makefile.am makes
	# them, and the HAVE_ macros its configure would find with glibc.
	if [ ! -s "$g/src/builtin.inc" ]; then
		mkdir -p "$g/src"
		sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$/\\n"/' "$d/src/builtin.jq" >"$g/src/builtin.inc" &&
			echo '#define JQ_VERSION "1.6"' >"$g/src/version.h" || die "jq: cannot generate $g/src"
	fi
	for f in acos acosh asin asinh atan2 atan atanh cbrt ceil copysign cos cosh drem erf erfc exp10 exp2 exp \
		expm1 fabs fdim floor fma fmax fmin fmod frexp gamma hypot j0 j1 jn ldexp lgamma log10 log1p log2 log \
		logb modf lgamma_r nearbyint nextafter nexttoward pow remainder rint round scalb scalbln significand \
		sin sinh sqrt tan tanh tgamma trunc y0 y1 yn alloca_h alloca timegm tm_tm_gmt_off strptime gmtime_r \
		gmtime localtime_r strftime gettimeofday libonig; do m="$m -DHAVE_${f^^}"; done
	SRCS=()
	for f in builtin bytecode compile execute jq_test jv jv_alloc jv_aux jv_dtoa jv_file jv_parse jv_print \
		jv_unicode linker locfile util lexer parser main; do SRCS+=("$d/src/$f.c"); done
	CPPFLAGS_P="-I$g -I$d -I$d/src -D_GNU_SOURCE -DIEEE_8087$m" LDLIBS_P="-lonig -lm"
	gen_input "$BENCH_WORK/orders-train.json" orders-gen.awk N=40000 S=1
	gen_input "$BENCH_WORK/orders-eval.json" orders-gen.awk N=25000 S=2
}
# Orders as JSON lines (orders-gen.awk): training on train.jq (slurped, grouped) and on eval.jq
# over the training orders; evaluation: eval.jq (a CSV row per order) on other orders.
train() {
	"$1" -s -c -f "$INPUTS/train.jq" "$BENCH_WORK/orders-train.json" >/dev/null &&
		"$1" -r -f "$INPUTS/eval.jq" "$BENCH_WORK/orders-train.json" >/dev/null
}
evaluate() { echo "$1" -r -f "$INPUTS/eval.jq" "$BENCH_WORK/orders-eval.json"; }
