/* SPDX-License-Identifier: MIT */
/*
 * The perf.data reader: validates a file written by `perf record` or `pgo collect`
 * and hands out its records one by one, in time order, fully parsed.
 *
 * Every length and offset in the file is checked against the file and the record it
 * sits in; bad input is reported through pgo_error() naming the file and the byte
 * offset, never a crash or a hang. Unknown record types are skipped and counted.
 * Not supported (clear error): pipe-mode files (`perf record -o -`), byte-swapped
 * files from a host of the other endianness.
 *
 * Compressed files (`perf record -z`): open() decompresses every compressed record
 * (collect/pdzstd.h) and indexes the records inside like any other; their offsets in
 * messages and events are those of the compressed record they came from. Past 4 MB the
 * decompressed records go to an unnamed file in $TMPDIR (else /tmp), mapped and walked
 * like the file itself, so memory stays bounded for them too (without such a file they
 * stay in memory, as in perf report).
 *
 * Directory recordings (`perf record --threads`): `path` may be a directory holding
 * `data` (the header, features and the records perf synthesized) and `data.0`, `data.1`,
 * ... (each the records of one reader thread, a zstd stream of its own with -z). All are
 * indexed together, in time order; messages name the data file and an offset in it.
 *
 * Ownership: collect_pdread_open() returns a new reader, freed with
 * collect_pdread_free(). Everything the reader hands out (attrs, names, build-ids,
 * event payloads, the pointers inside a struct collect_pd_event) is borrowed and valid
 * until collect_pdread_free(): the file is mapped read-only for the reader's lifetime.
 * Arrays inside events (callchain, branches, registers) are 8-byte aligned.
 *
 * Memory: the reader drops the pages of the records its walk has passed from the
 * mapping, so its resident memory is about one round of records (the span over which
 * time order and file order differ), not the file. The pointers of an event are meant
 * to be used until the next collect_pdread_next() call: they stay valid after it, but
 * reading through them then re-reads the file's pages (and keeps them resident until
 * the walk passes them again). Callers copy what they keep (convert/ interns names and
 * paths, the unwinder reads the stack copy only inside symbolize_unwind_sample()).
 */
#ifndef PGO_COLLECT_PDREAD_H
#define PGO_COLLECT_PDREAD_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>

#include "collect/pdformat.h"

struct collect_pdread;

/* One event source of the file (perf_file_attr), with what the features say about it. */
struct collect_pd_attr {
	struct perf_event_attr attr; /* zero-extended when the file's attr is older/shorter */
	const char *name;            /* EVENT_DESC name, else derived ("task-clock", "cycles", ...) */
	const uint64_t *ids;         /* ids of this attr's kernel events (may be 0 of them) */
	size_t nr_ids;
};

/* One HEADER_BUILD_ID entry (perf writes one per DSO that had samples). */
struct collect_pd_build_id {
	int32_t pid;
	uint8_t size;                /* 20 for sha1, 16 for md5; bytes of id[] in use */
	uint8_t id[20];
	const char *filename;
};

/* PERF_RECORD_SAMPLE, fields present according to attr->sample_type. */
struct collect_pd_sample {
	const struct collect_pd_attr *attr;
	size_t attr_index;
	uint64_t sample_type;        /* copy of attr->attr.sample_type */
	uint16_t cpumode;            /* misc & PERF_RECORD_MISC_CPUMODE_MASK */
	uint64_t id, ip, time, addr, stream_id, period;
	uint32_t pid, tid, cpu;
	uint64_t nr_callchain;       /* entries >= PERF_CONTEXT_MAX are context markers */
	const uint64_t *callchain;
	/* the fields most recordings lack, from here on (the reader clears them together) */
	uint64_t weight, data_src, transaction, phys_addr;
	uint32_t raw_size;
	const void *raw;
	uint64_t nr_branches;
	const struct perf_branch_entry *branches;
	uint64_t user_regs_abi;      /* PERF_SAMPLE_REGS_ABI_*; 0 = no registers */
	uint64_t user_regs_mask;     /* attr.sample_regs_user */
	size_t nr_user_regs;
	const uint64_t *user_regs;   /* one per set bit of user_regs_mask, low bit first */
	uint64_t user_stack_size;    /* bytes copied */
	uint64_t user_stack_dyn_size;/* bytes that were valid (<= size) */
	const void *user_stack;
};

/* MMAP and MMAP2 (MMAP sets has_build_id = 0 and no device info). */
struct collect_pd_mmap {
	uint32_t pid, tid;
	uint64_t start, len, pgoff;
	uint32_t prot, flags;        /* MMAP2 only (MMAP: prot = PROT_EXEC assumed when misc says so) */
	uint32_t maj, min;
	uint64_t ino, ino_generation;
	int has_build_id;            /* misc & PERF_RECORD_MISC_MMAP_BUILD_ID */
	uint8_t build_id_size;
	uint8_t build_id[20];
	int executable;              /* not PERF_RECORD_MISC_MMAP_DATA */
	const char *filename;        /* NUL-terminated inside the record */
};

struct collect_pd_comm {
	uint32_t pid, tid;
	int exec;                    /* PERF_RECORD_MISC_COMM_EXEC: the process image was replaced */
	const char *comm;
};

/* FORK and EXIT. */
struct collect_pd_task {
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
};

/* LOST (id, lost) and LOST_SAMPLES (lost; id = 0). */
struct collect_pd_lost {
	uint64_t id, lost;
};

/* THROTTLE / UNTHROTTLE. */
struct collect_pd_throttle {
	uint64_t time, id, stream_id;
};

struct collect_pd_event {
	uint32_t type;               /* PERF_RECORD_* (kernel) */
	uint16_t misc;
	uint64_t offset;             /* byte offset of the record in its file, for messages (of
					the compressed record it came from; in a directory, in
					its data file: the reader's messages name that file) */
	uint64_t time;               /* sample/sample_id time, or the last time seen before it */
	const struct collect_pd_attr *attr; /* attr the record belongs to, if known, else NULL */
	union {
		struct collect_pd_sample sample;
		struct collect_pd_mmap mmap;
		struct collect_pd_comm comm;
		struct collect_pd_task task;
		struct collect_pd_lost lost;
		struct collect_pd_throttle throttle;
	} u;
};

/* Counts of what was seen, for summaries and tests. */
struct collect_pdread_stats {
	uint64_t records;            /* all records walked */
	uint64_t samples, mmaps, comms, forks, exits;
	uint64_t lost_records;       /* PERF_RECORD_LOST records ... */
	uint64_t lost;               /* ... and the sum of their counts */
	uint64_t lost_samples;       /* sum of PERF_RECORD_LOST_SAMPLES */
	uint64_t throttles;
	uint64_t unknown;            /* records of types the reader does not know, skipped */
	uint64_t released;           /* bytes of the mapping dropped behind the walks (open's too) */
	uint64_t compressed;         /* PERF_RECORD_COMPRESSED(2) records decompressed (perf record -z) */
	uint64_t unpacked;           /* bytes they decompressed to */
	int unpacked_in_file;        /* those are in a temporary file, else in memory */
	uint64_t max_window;         /* most bytes of the data section that next() had mapped at
					once (in whole chunks: an upper bound of what it kept
					resident) */
	uint64_t by_type[128];       /* per record type (< 128) */
};

/*
 * Open and validate `path`: header, attrs and their ids, data section bounds, feature
 * sections (BUILD_ID, CMDLINE, EVENT_DESC), and a first walk over every record header
 * (so a truncated or corrupt stream is an error here, not halfway through a
 * conversion). Records are then sorted by time (stable: records without time keep
 * their place after the previous timed record). Returns 0 and a new reader in *out,
 * or -1 after reporting.
 */
int collect_pdread_open(const char *path, struct collect_pdread **out);
void collect_pdread_free(struct collect_pdread *r);

/*
 * Fetch the next record in time order. Returns 1 with *ev filled (borrowed contents),
 * 0 at the end, -1 after reporting a malformed record (file and offset named).
 * Records the reader does not deliver (perf's user records such as FINISHED_ROUND, and
 * unknown types) are skipped and counted in the stats.
 */
int collect_pdread_next(struct collect_pdread *r, struct collect_pd_event *ev);
/* Start again from the first record (for a second pass; its pages are read again). */
void collect_pdread_rewind(struct collect_pdread *r);

const char *collect_pdread_path(const struct collect_pdread *r);
size_t collect_pdread_nr_attrs(const struct collect_pdread *r);
const struct collect_pd_attr *collect_pdread_attr(const struct collect_pdread *r, size_t i);
/* The event counts nanoseconds (task-clock, cpu-clock): a sample period is a time. */
int collect_attr_is_ns_clock(const struct perf_event_attr *attr);
/* The recorded command line (CMDLINE feature, words joined by spaces), or NULL. */
const char *collect_pdread_cmdline(const struct collect_pdread *r);
/* pgo collect's metadata text (PD_FEAT_PGO_META, collect/pdformat.h), or NULL. */
const char *collect_pdread_pgo_meta(const struct collect_pdread *r);
/* argv[0] of the recorded command line, or NULL. */
const char *collect_pdread_argv0(const struct collect_pdread *r);
size_t collect_pdread_nr_build_ids(const struct collect_pdread *r);
const struct collect_pd_build_id *collect_pdread_build_id(const struct collect_pdread *r, size_t i);
/* Stats so far; complete once collect_pdread_next() returned 0. */
const struct collect_pdread_stats *collect_pdread_stats(const struct collect_pdread *r);

/* Lower-case hex of a build-id into buf (2 * size + 1 bytes). Returns buf. */
char *collect_build_id_hex(const uint8_t *id, size_t size, char *buf);

#endif
