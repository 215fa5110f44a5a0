#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The gcc convert tests with gcc 15 (Debian's gcc-15, from the chroot `make compilers` builds).
. "$(dirname "$0")/lib.sh"
. "$PGO_ROOT/tests/e2e/afdo-gcc-lib.sh"
afdo_gcc_suite gcc-15
