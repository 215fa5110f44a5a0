# SPDX-License-Identifier: MIT
# libyaml 0.2.5 (Debian): the library and its test suite's parse/emit driver
# (tests/example-reformatter.c: stdin -> events -> stdout); the version macros its CMake build
# writes to config.h.
setup() {
	local d
	d=$(deb_source libyaml) || exit 2
	SRCS=("$d"/src/{api,dumper,emitter,loader,parser,reader,scanner,writer}.c "$d/tests/example-reformatter.c")
	CPPFLAGS_P="-I$d/include -DYAML_DECLARE_STATIC -DYAML_VERSION_MAJOR=0 -DYAML_VERSION_MINOR=2"
	CPPFLAGS_P="$CPPFLAGS_P -DYAML_VERSION_PATCH=5 -DYAML_VERSION_STRING=\"0.2.5\"" LDLIBS_P=""
	gen_input "$BENCH_WORK/yaml-train-config.yaml" yaml-gen.awk N=60000 S=1 M=config
	gen_input "$BENCH_WORK/yaml-train-records.yaml" yaml-gen.awk N=15000 S=3 M=records
	gen_input "$BENCH_WORK/yaml-eval-records.yaml" yaml-gen.awk N=40000 S=2 M=records
}
# Training: a block-style configuration (yaml-gen.awk config, seed 1) and a smaller file of the
# evaluation's shape with another seed; evaluation: records (flow collections, anchors, tags,
# folded scalars), seed 2.
train() {
	local i
	for i in 1 2; do
		"$1" <"$BENCH_WORK/yaml-train-config.yaml" >/dev/null && "$1" <"$BENCH_WORK/yaml-train-records.yaml" >/dev/null ||
			return 1
	done
}
evaluate() { echo "$1" "<$BENCH_WORK/yaml-eval-records.yaml"; }
