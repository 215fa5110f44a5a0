/* SPDX-License-Identifier: MIT */
/*
 * perf.data writer: records go to the file as they arrive (verbatim kernel ring records or
 * synthesized ones), attrs, ids and feature sections are written at commit.
 *
 * File layout: header (104 B) | data records | feature section table | feature payloads |
 * id arrays | attrs. perf finds the feature table at data.offset + data.size, and the attrs
 * and ids through their sections, so everything after the data can be written last.
 *
 * Features written: BUILD_ID (from MMAP2 records carrying build-ids, plus the kernel's),
 * HOSTNAME, OSRELEASE, ARCH, NRCPUS, CMDLINE, EVENT_DESC, SAMPLE_TIME, CLOCKID and
 * CLOCK_DATA (when an attr uses use_clockid), and PD_FEAT_PGO_META (collect/pdformat.h).
 *
 * Errors: every function reports through lib/report.h and returns -1; after an error the
 * only valid call is collect_writer_abort(). The output appears only on a successful
 * collect_writer_commit() (lib/atomicfile.h), never half-written.
 */
#ifndef PGO_COLLECT_PDWRITE_H
#define PGO_COLLECT_PDWRITE_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>

struct collect_writer;

/* Create the temporary output next to `path` (reports if the directory is not writable). */
int collect_writer_open(struct collect_writer **w, const char *path);

/*
 * Add an event attr named `name` (shown by perf as the event name, through EVENT_DESC).
 * Copies attr and name. Returns the attr's index (>= 0) or -1. With more than one attr,
 * every attr must have PERF_SAMPLE_IDENTIFIER so perf can route records.
 */
int collect_writer_add_attr(struct collect_writer *w, const struct perf_event_attr *attr,
			    const char *name);
/* Append event ids (PERF_EVENT_IOC_ID, or collect_writer_new_id()) to attr `idx`. */
int collect_writer_add_ids(struct collect_writer *w, int idx, const uint64_t *ids, size_t n);
/* A fresh id for synthesized events, distinct from kernel ids (which count up from 0). */
uint64_t collect_writer_new_id(struct collect_writer *w);

/*
 * Compress the records from here on at zstd level `level` (perf record -z's format:
 * collect/pdzstd.h), writing the HEADER_COMPRESSED feature. Call before the first record.
 */
int collect_writer_compress(struct collect_writer *w, int level);
/* Bytes of records given so far (before compression). */
uint64_t collect_writer_raw_size(const struct collect_writer *w);

/* Append one record (header.size bytes, 8-byte multiple). */
int collect_writer_record(struct collect_writer *w, const struct perf_event_header *rec);
/* A PERF_RECORD_FINISHED_ROUND: perf may sort and flush everything before it. */
int collect_writer_round(struct collect_writer *w);

/* pgo's command line, for the CMDLINE feature (copied). */
int collect_writer_set_cmdline(struct collect_writer *w, int argc, char *const *argv);
/* Append a "key value" line to the PD_FEAT_PGO_META text (printf-style). */
int collect_writer_meta(struct collect_writer *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Write attrs, ids and features, then rename into place. Always frees w. */
int collect_writer_commit(struct collect_writer *w);
/* Drop everything; no file is left. Accepts NULL. Frees w. */
void collect_writer_abort(struct collect_writer *w);

#endif
