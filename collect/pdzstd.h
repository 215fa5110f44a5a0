/* SPDX-License-Identifier: MIT */
/*
 * The zstd stream of a compressed perf.data (`perf record -z`).
 *
 * perf compresses the records of its ring buffers as ONE zstd stream for the whole
 * recording, flushed at the end of each PERF_RECORD_COMPRESSED record (at most 64 KB),
 * so a record's payload only decompresses after every earlier one, and a kernel record
 * may be split between two compressed records. This module feeds the payloads in file
 * order to one decompression stream (libzstd) and appends what comes out to one growing
 * buffer, which the reader indexes (collect/pdread.c).
 *
 * Errors return -1 with *why set to libzstd's description (static storage); nothing is
 * reported here, the caller names the file and offset.
 *
 * The other way (pgo collect -z): collect_pdzenc compresses batches of whole records as
 * perf 6.1 does: one zstd stream, flushed at the end of each batch, its output cut into
 * PERF_RECORD_COMPRESSED records of at most 64 KB (sizes not multiples of 8, as perf's).
 * A record then decompresses to at most one batch (COLLECT_PDZENC_BATCH + 64 KB), which
 * the HEADER_COMPRESSED feature declares as the size of perf's decompression buffer: each
 * record must fit it, and be consumed by one ZSTD_decompressStream() call (perf 6.1's
 * loop goes wrong on a second call), which rules out padding frames after the data.
 */
#ifndef PGO_COLLECT_PDZSTD_H
#define PGO_COLLECT_PDZSTD_H

#include <stddef.h>
#include <stdint.h>

struct collect_pdzstd;

/* A new stream with an empty output; NULL on allocation failure (reported). */
struct collect_pdzstd *collect_pdzstd_new(void);
void collect_pdzstd_free(struct collect_pdzstd *z);

/*
 * Decompress one record's payload, appending to the output, which may not grow past
 * limit bytes. Returns 0, or -1 with *why set (corrupt data, or the limit).
 */
int collect_pdzstd_feed(struct collect_pdzstd *z, const void *payload, size_t len, size_t limit,
			const char **why);

/* Start a new stream (the next data file of a directory recording), keeping the output.
 * Returns 0, or -1 after reporting. */
int collect_pdzstd_reset(struct collect_pdzstd *z);

/*
 * The output still in memory, bytes [base, base + *len) of all output (borrowed: moves when
 * the next feed grows it or a spill drops its start).
 */
const uint8_t *collect_pdzstd_data(const struct collect_pdzstd *z, size_t *len);
uint64_t collect_pdzstd_base(const struct collect_pdzstd *z);

/*
 * Output before `upto` (whole records the caller has indexed) is no longer needed in
 * memory: once 4 MB of it gathered (or with `all`), it is written to an unnamed file in
 * $TMPDIR (else /tmp), so that a large recording is not held in memory. Without such a
 * file the output stays in memory. 0, or -1 after reporting a write error.
 */
int collect_pdzstd_spill(struct collect_pdzstd *z, uint64_t upto, int all);

/*
 * All output, in one place: the file mapped read-only (*in_file = 1: pages may be
 * dropped, they are read again from it), or memory for output that never reached 4 MB
 * or found no file. *total: its length. NULL after reporting.
 */
const uint8_t *collect_pdzstd_finish(struct collect_pdzstd *z, uint64_t *total, int *in_file);

/* Batches are cut at the first record boundary past this many bytes. */
#define COLLECT_PDZENC_BATCH (256 * 1024)

struct pgo_buf;
struct collect_pdzenc;

/* A compressor at zstd level `level` (1..ZSTD_maxCLevel()); NULL after reporting. */
struct collect_pdzenc *collect_pdzenc_new(int level);
void collect_pdzenc_free(struct collect_pdzenc *e);
/* Compress len bytes of whole records into compressed records appended to out. 0 or -1
 * (reported). */
int collect_pdzenc_records(struct collect_pdzenc *e, const void *data, size_t len, struct pgo_buf *out);

#endif
