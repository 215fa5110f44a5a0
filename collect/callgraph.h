/* SPDX-License-Identifier: MIT */
/*
 * How the collector records call stacks: the --call-graph option, the attr bits of each
 * mode, the ring size a mode needs, and the "auto" choice made from the benchmark binary.
 *
 * Modes (enum collect_callgraph in collect/collect.h):
 *  - fp: PERF_SAMPLE_CALLCHAIN, the kernel walks frame pointers (about 85 B per sample);
 *  - dwarf: PERF_SAMPLE_CALLCHAIN for the kernel part only (exclude_callchain_user),
 *    plus PERF_SAMPLE_REGS_USER (perf's x86-64 mask) and PERF_SAMPLE_STACK_USER (a copy
 *    of the top SIZE bytes of the user stack); convert unwinds it with the CFI
 *    (symbolize/unwind.h). perf script reads and unwinds these files too;
 *  - dwarf-unwound: the same registers and stack copy, but only into the ring: the
 *    collector unwinds each sample while draining (collect_opts.unwinder) and writes a
 *    plain PERF_SAMPLE_CALLCHAIN (kernel part, PERF_CONTEXT_USER, user pcs), so the file
 *    is as small as an fp one and every perf tool reads it;
 *  - fp with an unwinder: the kernel's chain plus a small stack copy in the ring; the
 *    collector puts back the frames the kernel's walk skips where code keeps no frame
 *    pointer (a libc leaf), and writes the chain alone;
 *  - auto: fp when the main binary keeps frame pointers, dwarf-unwound otherwise; the
 *    command resolves it before collecting (symbolize_callgraph_auto(), symbolize/fpcensus.h).
 * No function here reports except collect_callgraph_parse(), which names the bad value.
 */
#ifndef PGO_COLLECT_CALLGRAPH_H
#define PGO_COLLECT_CALLGRAPH_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>

#include "collect/collect.h"

/*
 * Default bytes of user stack copied per sample in dwarf mode. Measured (bench/unwind.sh,
 * `pgo convert -v` prints the bytes each unwind needed): see the comment in callgraph.c.
 */
#define COLLECT_DWARF_STACK_DEFAULT 8192U
/*
 * dwarf-unwound: bytes of user stack copied per sample into the ring (never the file:
 * the collector unwinds it there), so it can be twice dwarf's: 16 KiB held every complete
 * unwind of Debian's bzip2 -9 (11.3 KiB needed: compressStream's 5000-byte buffer and
 * sendMTFValues' tables) where 8 KiB held 38% (bench/stacks-oncpu.sh, pgo convert -v).
 */
#define COLLECT_UNWOUND_STACK_DEFAULT 16384U
/*
 * Bytes of user stack copied into the ring (never the file) in fp mode, to unwind the
 * frames between the sampled IP and the first frame that keeps a frame pointer: libc's
 * leaf functions use a few hundred bytes at most (bench/stacks-oncpu.sh).
 */
#define COLLECT_FP_STACK_DEFAULT 2048U
/* The kernel keeps the whole sample within a u16 record size. */
#define COLLECT_DWARF_STACK_MAX 65528U

/* perf's x86-64 user register mask: AX..SS and R8..R15 (no DS/ES/FS/GS). */
#define COLLECT_DWARF_REGS_X86_64 0xff0fffULL

/*
 * Parse "none", "fp", "dwarf[,SIZE]", "dwarf-unwound[,SIZE]" or "auto" (SIZE in bytes, a
 * multiple of 8, 8..65528; suffixes k/K allowed: "dwarf,16k"). *stack_size is set for
 * all (the default when no SIZE; COLLECT_FP_STACK_DEFAULT for fp). Returns 0, or -1
 * after reporting the bad value.
 */
int collect_callgraph_parse(const char *s, enum collect_callgraph *mode, uint32_t *stack_size);

/* "none", "fp", "dwarf", "dwarf-unwound" or "auto". */
const char *collect_callgraph_name(enum collect_callgraph mode);

/*
 * Set the sample_type bits and stack/register fields of `a` for `mode` (not auto). For
 * fp, stack_size 0 records the kernel's chain alone, else a stack copy for the repair.
 */
void collect_callgraph_attr(struct perf_event_attr *a, enum collect_callgraph mode,
			    uint32_t stack_size);
/*
 * The attr the file gets when the collector unwinds (fp with a copy, dwarf-unwound):
 * its samples carry the call chain, without the registers and stack copy.
 */
void collect_callgraph_file_attr(struct perf_event_attr *a);

/*
 * Ring pages (a power of two) for `mode` at `freq` Hz: at least `min_pages`, and enough
 * to hold four drain periods of `poll_ms` at one sample per 1/freq s per CPU.
 */
unsigned int collect_callgraph_ring_pages(enum collect_callgraph mode, uint32_t stack_size,
					  unsigned int freq, unsigned int poll_ms,
					  unsigned int min_pages);

#endif
