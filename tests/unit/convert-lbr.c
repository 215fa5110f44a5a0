// SPDX-License-Identifier: MIT
/*
 * LBR branch stacks (perf record -b; none on this VM, so hand-built): samples whose
 * branch stack says "t_entry ran from its start to its call of t_callee, then called
 * it". The AutoFDO profile must count t_entry's lines by range expansion, take
 * t_callee's head count from the call edges, and record t_callee as the call target.
 */
#include <stdint.h>
#include <unistd.h>

#include "convert/afdo.h"
#include "convert/profile.h"
#include "lib/atomicfile.h"
#include "lib/report.h"
#include "pdbuild.h"
#include "test.h"

#define ST (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
	    PERF_SAMPLE_PERIOD | PERF_SAMPLE_BRANCH_STACK)
#define NR_SAMPLES 10

unsigned long t_callee(unsigned long x);
unsigned long t_entry(unsigned long x);

static volatile uintptr_t ret_addr;
static volatile unsigned long sink;

__attribute__((noinline)) unsigned long t_callee(unsigned long x)
{
	ret_addr = (uintptr_t)__builtin_return_address(0);
	return x * 3 + 1;
}

__attribute__((noinline)) unsigned long t_entry(unsigned long x)
{
	unsigned long r = x + sink;

	r = t_callee(r);
	return r ^ sink;
}

static void lbr_sample(struct pgo_buf *b, uint64_t time, uint64_t ip,
		       const struct perf_branch_entry *br, uint64_t nr)
{
	pdb_hdr(b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 8 + 8 * 6 + 24 * nr);
	pdb_put64(b, 7);
	pdb_put64(b, ip);
	pdb_put32(b, 100);
	pdb_put32(b, 100);
	pdb_put64(b, time);
	pdb_put64(b, 1000);
	pdb_put64(b, nr);
	pdb_put(b, br, 24 * nr);
}

static int test_lbr(void)
{
	struct pgo_buf rec = PGO_BUF_INIT, b = PGO_BUF_INIT;
	struct perf_branch_entry br[3];
	struct convert_options o = { 0 };
	struct convert_afdo_options ao = { 0 };
	struct convert_afdo_summary sum;
	struct convert_profile *p;
	uint64_t start, end, pgoff, call_insn;
	char exe[4096], file[64], afdo[80], *text = NULL, *data = NULL;
	const char *inputs[1] = { file }, *bins[1] = { exe };
	size_t tlen = 0, dlen;
	FILE *mem;
	int i;

	sink = 0;
	t_entry(1);
	call_insn = ret_addr - 5;
	T_ASSERT(pdb_self_map((uintptr_t)&t_entry, &start, &end, &pgoff, exe, sizeof(exe)) == 0);
	pdb_comm(&rec, 100, 1);
	pdb_mmap2(&rec, 100, start, end - start, pgoff, exe, 2);
	memset(br, 0, sizeof(br));
	br[0].from = (uintptr_t)&t_callee + 3; /* newest: back from t_callee */
	br[0].to = ret_addr;
	br[1].from = call_insn;                /* the call */
	br[1].to = (uintptr_t)&t_callee;
	br[2].from = (uintptr_t)&test_lbr;     /* before: someone called t_entry */
	br[2].to = (uintptr_t)&t_entry;
	for (i = 0; i < NR_SAMPLES; i++)
		lbr_sample(&rec, 10 + i, ret_addr, br, 3);
	pdb_file(&b, &rec, ST, PERF_SAMPLE_BRANCH_ANY);
	T_ASSERT(pdb_write(&b, "lbr", file, sizeof(file)) == 0);

	o.inputs = inputs;
	o.nr_inputs = 1;
	o.binaries = bins;
	o.nr_binaries = 1;
	T_ASSERT(convert_profile_load(&o, &p) == 0);
	unlink(file);
	T_ASSERT(convert_profile_info(p)->has_branch_stack);
	snprintf(afdo, sizeof(afdo), "/tmp/pgo-lbr-%d.afdo", (int)getpid());
	T_ASSERT(convert_afdo_write(p, &ao, afdo, &sum) == 0);
	convert_profile_free(p);
	T_ASSERT(pgo_read_file(afdo, 1 << 20, &data, &dlen) == 0);
	unlink(afdo);
	mem = open_memstream(&text, &tlen);
	T_ASSERT(mem);
	T_ASSERT(convert_afdo_parse((const uint8_t *)data, dlen, afdo, mem, &sum) == 0);
	fclose(mem);
	if (getenv("VERBOSE"))
		fputs(text, stderr);
	/* t_callee entered NR_SAMPLES times (LBR call edges), not an estimate */
	T_ASSERT(strstr(text, "t_callee: head 10,"));
	/* the call site in t_entry names its target */
	T_ASSERT(strstr(text, "targets: t_callee=10"));
	/* t_entry's straight-line code ran NR_SAMPLES times: range expansion */
	T_ASSERT(strstr(text, "t_entry: head 10,"));
	/* functions that only branched (test_lbr) are left out */
	T_ASSERT(!strstr(text, "test_lbr"));
	T_ASSERT_EQ_U64(sum.max_count, NR_SAMPLES);
	free(text);
	free(data);
	pgo_buf_release(&rec);
	pgo_buf_release(&b);
	return T_OK;
}

static const struct t_case cases[] = {
	{ "LBR: range expansion, call-edge head counts, call targets", test_lbr },
};

T_MAIN(cases)
