#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The gcc convert tests with gcc 16 (Debian's gcc-16, from the chroot `make compilers` builds).
. "$(dirname "$0")/lib.sh"
. "$PGO_ROOT/tests/e2e/afdo-gcc-lib.sh"
afdo_gcc_suite gcc-16 \
	"t2530=not yet examined with gcc 16 (4 of 5 checks pass)" \
	"t2540=gcc 16 builds the loop's i+1 into the inlined helper's line, so the profiled binary's samples make the rare branch look 3-9% taken" \
	"t2570=the profiled g++-16 binary's stacks do not show total calling both overriders, which the test assumes"
