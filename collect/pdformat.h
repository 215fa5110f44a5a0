/* SPDX-License-Identifier: MIT */
/*
 * The perf.data on-disk format (tools/perf/Documentation/perf.data-file-format.txt):
 * the structures and constants shared by the writer (pdwrite) and the reader (pdread).
 * Kernel record layouts come from <linux/perf_event.h>; this header adds what only
 * perf's tools define: the file header, feature bits and user record types.
 * All fields are native-endian; a byte-swapped magic means a foreign host.
 */
#ifndef PGO_COLLECT_PDFORMAT_H
#define PGO_COLLECT_PDFORMAT_H

#include <linux/perf_event.h>
#include <stdint.h>

#define PD_MAGIC "PERFILE2"
#define PD_MAGIC_U64 0x32454c4946524550ULL  /* "PERFILE2" read as a little-endian u64 */
#define PD_MAGIC_SWAPPED 0x50455246494c4532ULL

struct pd_file_section {
	uint64_t offset;
	uint64_t size;
};

struct pd_file_header {          /* 104 bytes */
	char magic[8];
	uint64_t size;           /* sizeof(struct pd_file_header) */
	uint64_t attr_size;      /* sizeof(perf_event_attr) as written + sizeof(pd_file_section) */
	struct pd_file_section attrs;
	struct pd_file_section data;
	struct pd_file_section event_types; /* legacy, {0, 0} */
	uint64_t adds_features[4];
};
_Static_assert(sizeof(struct pd_file_header) == 104, "perf.data header is 104 bytes");

/* Feature bits (adds_features), perf's enum HEADER_*; sections follow the data in bit order. */
enum pd_feature {
	PD_FEAT_TRACING_DATA = 1,
	PD_FEAT_BUILD_ID = 2,
	PD_FEAT_HOSTNAME = 3,
	PD_FEAT_OSRELEASE = 4,
	PD_FEAT_VERSION = 5,
	PD_FEAT_ARCH = 6,
	PD_FEAT_NRCPUS = 7,
	PD_FEAT_CPUDESC = 8,
	PD_FEAT_CPUID = 9,
	PD_FEAT_TOTAL_MEM = 10,
	PD_FEAT_CMDLINE = 11,
	PD_FEAT_EVENT_DESC = 12,
	PD_FEAT_CPU_TOPOLOGY = 13,
	PD_FEAT_NUMA_TOPOLOGY = 14,
	PD_FEAT_BRANCH_STACK = 15,
	PD_FEAT_PMU_MAPPINGS = 16,
	PD_FEAT_GROUP_DESC = 17,
	PD_FEAT_AUXTRACE = 18,
	PD_FEAT_STAT = 19,
	PD_FEAT_CACHE = 20,
	PD_FEAT_SAMPLE_TIME = 21,
	PD_FEAT_MEM_TOPOLOGY = 22,
	PD_FEAT_CLOCKID = 23,
	PD_FEAT_DIR_FORMAT = 24,
	PD_FEAT_BPF_PROG_INFO = 25,
	PD_FEAT_BPF_BTF = 26,
	PD_FEAT_COMPRESSED = 27,
	PD_FEAT_CPU_PMU_CAPS = 28,
	PD_FEAT_CLOCK_DATA = 29,
	PD_FEAT_HYBRID_TOPOLOGY = 30,
	PD_FEAT_PMU_CAPS = 31,
	/*
	 * pgo's metadata, written by collect/pdwrite.c: one perf string (u32 padded length, then
	 * NUL-terminated text) of lines "<kind> key=value key=value ...". perf only processes
	 * feature bits below its own HEADER_LAST_FEATURE and skips this one silently (checked
	 * with perf 6.1 report, script, report --header-only). Kinds (unknown ones: ignore):
	 *   pgo version=0.1.0
	 *   event name=task-clock type=1 config=1 freq=999 period=1001001 callgraph=fp
	 *         has_pmu=0 has_lbr=0 kernel=1
	 *   totals runs=3 samples=2990 lost=0 lost_samples=0 throttled=0 cpu_ns=... duration_ns=...
	 *   run index=1 pid=4242 start=<ns> end=<ns> status=0 samples=997
	 * Times are on the samples' clock (CLOCK_MONOTONIC). status is the shell-style exit status
	 * (128+N: killed by signal N). A sample belongs to run i iff start <= time <= end.
	 */
	PD_FEAT_PGO_META = 255,
	PD_FEAT_BITS = 256,
};

/* Records perf's tools add to the stream (type >= 64). */
enum pd_user_record {
	PD_RECORD_HEADER_ATTR = 64,
	PD_RECORD_HEADER_EVENT_TYPE = 65,
	PD_RECORD_HEADER_TRACING_DATA = 66,
	PD_RECORD_HEADER_BUILD_ID = 67,
	PD_RECORD_FINISHED_ROUND = 68,
	PD_RECORD_ID_INDEX = 69,
	PD_RECORD_AUXTRACE_INFO = 70,
	PD_RECORD_AUXTRACE = 71,
	PD_RECORD_AUXTRACE_ERROR = 72,
	PD_RECORD_THREAD_MAP = 73,
	PD_RECORD_CPU_MAP = 74,
	PD_RECORD_STAT_CONFIG = 75,
	PD_RECORD_STAT = 76,
	PD_RECORD_STAT_ROUND = 77,
	PD_RECORD_EVENT_UPDATE = 78,
	PD_RECORD_TIME_CONV = 79,
	PD_RECORD_HEADER_FEATURE = 80,
	PD_RECORD_COMPRESSED = 81,      /* perf record -z: zstd payload, any size */
	PD_RECORD_FINISHED_INIT = 82,
	PD_RECORD_COMPRESSED2 = 83,     /* perf 6.16 -z: u64 payload size, padded to 8 */
};

/* HEADER_BUILD_ID payload entry: header, pid, 20-byte id (+4 pad), then the filename. */
struct pd_build_id_event {
	struct perf_event_header header;
	int32_t pid;
	uint8_t build_id[24];    /* with misc & PD_MISC_BUILD_ID_SIZE, build_id[20] holds the size */
	char filename[];
};
#define PD_MISC_BUILD_ID_SIZE (1 << 15)

/* The off-CPU event, as perf record --off-cpu names it. */
#define PD_OFFCPU_EVENT_NAME "offcpu-time"

#endif
