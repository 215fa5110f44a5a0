/* SPDX-License-Identifier: MIT */
/*
 * The entry block of a function: its instructions from the entry up to and including the
 * first one that ends a basic block (a jump, conditional jump, return or trap; a call does
 * not end it). Every call runs each of them exactly once, so the largest sampled count of
 * their lines is the count gcc 12 gives the function's first block, and the entry count it
 * compares the head count with (convert/sampleprof.c). A nop ends the block before it: it
 * is alignment padding before a branch target, usually a loop head, and has that target's
 * line. Decoded with Zydis (loaded when first needed); x86-64 only.
 */
#ifndef PGO_SYMBOLIZE_ENTRYBLOCK_H
#define PGO_SYMBOLIZE_ENTRYBLOCK_H

#include <stddef.h>
#include <stdint.h>

struct symbolize_symtab;
struct symbolize_entryblock;

/*
 * A decoder for the machine code of st. Returns 0 and sets *out, NULL when st's machine is
 * not one this can decode or Zydis cannot be loaded (warned once; then every function's
 * entry block is unknown); -1 when out of memory or Zydis fails (reported).
 */
int symbolize_entryblock_open(struct symbolize_symtab *st, struct symbolize_entryblock **out);
void symbolize_entryblock_free(struct symbolize_entryblock *eb);

/*
 * The addresses of the instructions of the entry block of the function at [start, start +
 * size), at most max of them, in order: returns how many were stored, 0 if the block is
 * unknown (no decoder, unreadable or undecodable code, or no block end within max
 * instructions or the function's size).
 */
size_t symbolize_entryblock_insns(struct symbolize_entryblock *eb, uint64_t start, uint64_t size,
				uint64_t *insns, size_t max);

#endif
