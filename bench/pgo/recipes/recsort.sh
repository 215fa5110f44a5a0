# SPDX-License-Identifier: MIT
# recsort (examples/recsort): record parsing, hashing and sorting; this repository's example.
setup() { SRCS=("$PGO_ROOT/examples/recsort/recsort.c"); }
# Training runs long enough for ~5000 samples: a sparse profile leaves warm code with zero
# counts, which gcc then optimises for size (docs/decisions-convert.md).
train() { "$1" train 1000000 1 && "$1" train 1000000 3 && "$1" train 1000000 5; }
evaluate() { echo "$1" eval 400000 2; }
