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

/* The output so far (borrowed: moves when the next feed grows it). */
const uint8_t *collect_pdzstd_data(const struct collect_pdzstd *z, size_t *len);

#endif
