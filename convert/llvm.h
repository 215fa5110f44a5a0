/* SPDX-License-Identifier: MIT */
/*
 * LLVM text sample profiles for clang (-fprofile-sample-use=FILE), from the model of
 * convert/sampleprof.h with base discriminators (counts scaled by the duplication
 * factor that clang encodes in the discriminator, as create_llvm_prof does):
 *   name:total:head
 *    offset[.discr]: count
 *    offset[.discr]: callee:total      (an inlined instance, its body one space deeper)
 * Offsets are line - DW_AT_decl_line; lines before the start line are dropped (the
 * format has no negative offsets).
 */
#ifndef PGO_CONVERT_LLVM_H
#define PGO_CONVERT_LLVM_H

#include <stdint.h>

struct convert_profile;

/* Write to path ("-" = stdout) atomically. *functions = top-level functions written. */
int convert_llvm_write(struct convert_profile *p, const char *path, uint64_t *functions);

#endif
