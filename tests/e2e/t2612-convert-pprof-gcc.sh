#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Black-box: a gperftools CPU profile of a C program, turned into pprof by go tool pprof
# (symbolized, and addresses only), converts to an AutoFDO profile that gcc 12 accepts
# with no diagnostic and that puts "(auto FDO)" counts on the hot loop's lines.
. "$(dirname "$0")/lib.sh"
. "$PGO_ROOT/tests/e2e/afdo-lib.sh"
afdo_require
PROFILER=/usr/lib/x86_64-linux-gnu/libprofiler.so.0
if ! command -v go >/dev/null || [ ! -e $PROFILER ]; then
	skip_all "needs go tool pprof and gperftools (apt-get install golang-go libgoogle-perftools-dev)"
	test_done
fi
export GOCACHE=$TRASH/.gocache HOME=$TRASH

for sym in yes none; do
	test_expect_success "gperftools -> go tool pprof -proto (symbolize=$sym) -> autofdo: gcc uses it" '
		gcc -O2 -g -o loop loop.c &&
		CPUPROFILE=loop.prof CPUPROFILE_FREQUENCY=4000 LD_PRELOAD='$PROFILER' ./loop 150000000 >/dev/null &&
		if [ '$sym' = yes ]; then go tool pprof -proto ./loop loop.prof >loop.pb.gz 2>/dev/null;
		else go tool pprof -proto -symbolize=none ./loop loop.prof >loop.pb.gz 2>/dev/null; fi &&
		pgo convert --to autofdo -i loop.pb.gz -b loop -o loop.afdo 2>err &&
		afdo_gcc_clean loop.afdo loop.c &&
		gcc -O2 -fauto-profile=loop.afdo -c loop.c -o loop.o \
			-fdump-tree-fixup_cfg3-blocks-details-lineno=loop.dump &&
		body=$(afdo_line_count loop.dump work loop.c 15) &&
		ret=$(afdo_line_count loop.dump work loop.c 16) &&
		echo "work body $body, return $ret" &&
		test_ge "$body" 20 "count of the loop body (work+4)" &&
		test_ge "$body" $((2 * ret + 1)) "loop body vs return (an offset error swaps them)"
	'
done
test_done
