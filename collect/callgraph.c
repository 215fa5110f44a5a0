// SPDX-License-Identifier: MIT
/*
 * Call-graph modes of the collector (collect/callgraph.h): option parsing, attr bits,
 * and ring sizing. The "auto" choice reads the binary's CFI: symbolize/fpcensus.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collect/callgraph.h"
#include "lib/buf.h"
#include "lib/parse.h"
#include "lib/report.h"

/*
 * Why 8192 bytes by default: measured, with `--call-graph dwarf,65528` and `pgo convert
 * -v`, which prints the stack bytes each complete unwind read (from the sampled %rsp to
 * the highest stack word the CFI needed, up to _start or clone) and the share of
 * complete unwinds that a copy of 1..32 KiB holds (bench/unwind.sh section 1):
 *
 *   program (gcc -O2, Debian 12 libs)          p50    p95     max  <=2K <=4K <=6K <=8K <=16K
 *   tests/helpers/unwind-chain (no FP build)   376    384     384   100  100  100  100  100
 *   examples/threads, shares; offcpu-mutex    <600   <600    <610   100  100  100  100  100
 *   tests/helpers/gate-synth                  2808   2808    2808     0  100  100  100  100
 *   examples/forks (char self[4096] in main)  4512   4512    4576     0    0  100  100  100
 *   sqlite 3.40 in-memory insert/index/join   1136   2160    2808    93  100  100  100  100
 *   gcc 12 cc1 -O2 on convert/profile.c       1632   6784   43568    66   91   94   96   98
 *   python3 3.11 json + sort                  1752   7792   21016    85   87   92   95   99
 *
 * Small programs need a few hundred bytes, but one PATH_MAX buffer in a caller (forks)
 * pushes that past 4 KiB, and compilers and interpreters need 7-8 KiB for 95%. 8 KiB is
 * the smallest power of two that keeps >= 95% of the stacks complete in every program
 * measured; it is also perf's default, but for this reason, not by habit. convert counts
 * the stacks that ran past the copy, warns above 5% and prints the p95 bytes needed, so a
 * user can go up (dwarf,16384) or, for small programs, down (dwarf,4096: half the bytes).
 */

int collect_callgraph_parse(const char *s, enum collect_callgraph *mode, uint32_t *stack_size)
{
	const char *comma;
	size_t base;
	uint64_t v;

	*stack_size = COLLECT_DWARF_STACK_DEFAULT;
	if (!strcmp(s, "none")) {
		*mode = COLLECT_CALLGRAPH_NONE;
		return 0;
	}
	if (!strcmp(s, "fp")) {
		*mode = COLLECT_CALLGRAPH_FP;
		*stack_size = COLLECT_FP_STACK_DEFAULT;
		return 0;
	}
	if (!strcmp(s, "auto")) {
		*mode = COLLECT_CALLGRAPH_AUTO;
		*stack_size = 0; /* the default of the mode auto picks */
		return 0;
	}
	if (!strncmp(s, "dwarf-unwound", 13) && (!s[13] || s[13] == ',')) {
		*mode = COLLECT_CALLGRAPH_DWARF_UNWOUND;
		*stack_size = COLLECT_UNWOUND_STACK_DEFAULT;
		base = 13;
	} else if (!strncmp(s, "dwarf", 5) && (!s[5] || s[5] == ',')) {
		*mode = COLLECT_CALLGRAPH_DWARF;
		base = 5;
	} else {
		return pgo_error("invalid call-graph mode '%s' (use auto, fp, dwarf[,SIZE], "
				 "dwarf-unwound[,SIZE] or none)", s);
	}
	if (!s[base])
		return 0;
	comma = s + base;
	{
		char num[32];
		size_t n = strlen(comma + 1);
		uint64_t mul = 1;

		if (n && (comma[n] == 'k' || comma[n] == 'K')) {
			mul = 1024;
			n--;
		}
		if (!n || n >= sizeof(num))
			goto bad;
		memcpy(num, comma + 1, n);
		num[n] = '\0';
		if (pgo_parse_u64_range(num, 1, COLLECT_DWARF_STACK_MAX, &v))
			goto bad;
		v *= mul;
		if (v < 8 || v > COLLECT_DWARF_STACK_MAX || v % 8)
			goto bad;
	}
	*stack_size = (uint32_t)v;
	return 0;
bad:
	return pgo_error("invalid stack size in '%s' (bytes to copy per sample: a multiple of 8 "
			 "from 8 to %u, e.g. dwarf,16384)", s, COLLECT_DWARF_STACK_MAX);
}

const char *collect_callgraph_name(enum collect_callgraph mode)
{
	switch (mode) {
	case COLLECT_CALLGRAPH_NONE:
		return "none";
	case COLLECT_CALLGRAPH_FP:
		return "fp";
	case COLLECT_CALLGRAPH_DWARF:
		return "dwarf";
	case COLLECT_CALLGRAPH_AUTO:
		return "auto";
	case COLLECT_CALLGRAPH_DWARF_UNWOUND:
		return "dwarf-unwound";
	}
	return "?";
}

void collect_callgraph_attr(struct perf_event_attr *a, enum collect_callgraph mode,
			    uint32_t stack_size)
{
	switch (mode) {
	case COLLECT_CALLGRAPH_FP:
		a->sample_type |= PERF_SAMPLE_CALLCHAIN;
		if (!stack_size)
			break;
		/* repaired at collection: the top of the stack, to unwind the frameless leaf */
		a->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		a->sample_regs_user = COLLECT_DWARF_REGS_X86_64;
		a->sample_stack_user = stack_size;
		break;
	case COLLECT_CALLGRAPH_DWARF_UNWOUND:
		/* unwound by the collector, which reads the files itself: no data mappings */
		a->sample_type |= PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		a->exclude_callchain_user = 1;
		a->sample_regs_user = COLLECT_DWARF_REGS_X86_64;
		a->sample_stack_user = stack_size;
		break;
	case COLLECT_CALLGRAPH_DWARF:
		/* the kernel part of the stack still comes from the kernel's own walk */
		a->sample_type |= PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		a->exclude_callchain_user = 1;
		a->sample_regs_user = COLLECT_DWARF_REGS_X86_64;
		a->sample_stack_user = stack_size;
		/*
		 * perf record does the same: perf's unwinders read .eh_frame_hdr through the
		 * process maps, and that lives in a read-only (not executable) segment.
		 */
		a->mmap_data = 1;
		break;
	default:
		break;
	}
}

void collect_callgraph_file_attr(struct perf_event_attr *a)
{
	if (!(a->sample_type & PERF_SAMPLE_STACK_USER) || a->mmap_data)
		return; /* dwarf keeps its copies; other modes have none */
	a->sample_type &= ~(uint64_t)(PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER);
	a->exclude_callchain_user = 0;
	a->sample_regs_user = 0;
	a->sample_stack_user = 0;
}

static unsigned int pow2_at_least(uint64_t v)
{
	unsigned int p = 1;

	while (p < v && p < (1U << 30))
		p <<= 1;
	return p;
}

unsigned int collect_callgraph_ring_pages(enum collect_callgraph mode, uint32_t stack_size,
					  unsigned int freq, unsigned int poll_ms,
					  unsigned int min_pages)
{
	uint64_t per_sample, bytes, pages;

	if (mode == COLLECT_CALLGRAPH_NONE || !stack_size)
		return min_pages;
	/* header + ip/tid/time/cpu/period/id + kernel chain + 17 regs + stack + sizes */
	per_sample = 8 + 48 + 8 * 32 + 8 + 8 * 17 + 16 + stack_size;
	/*
	 * One ring per CPU gets at most one running thread's samples at a time, so about
	 * freq per second; hold four drain periods so a late wakeup loses nothing.
	 */
	bytes = per_sample * freq * (uint64_t)poll_ms * 4 / 1000;
	pages = pow2_at_least((bytes + 4095) / 4096);
	if (pages < min_pages)
		pages = min_pages;
	if (pages > 4096) /* 16 MiB per CPU is plenty up to 20 kHz with the default size */
		pages = 4096;
	return (unsigned int)pages;
}
