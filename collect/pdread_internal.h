/* SPDX-License-Identifier: MIT */
/*
 * Internals of the perf.data reader (collect/pdread.h is its contract), shared by
 *
 *   pdread_header.c  the file header's attrs and feature sections
 *   pdread_index.c   open(): the checks, the (time, offset) index of every record, the
 *                    decompressed and --threads pieces; free()
 *   pdread.c         next(): one record at a time, and the chunks of the mapping it drops
 *                    behind it
 *
 * and nothing outside them. The index's locations (PD_LOC_*) say where a record is: in
 * the mapped file, in the decompressed records, in a copy, or in a data file of a
 * directory recording.
 */
#ifndef PGO_COLLECT_PDREAD_INTERNAL_H
#define PGO_COLLECT_PDREAD_INTERNAL_H

#include <stdint.h>
#include <string.h>

#include "collect/pdformat.h"
#include "collect/pdread.h"
#include "collect/pdzstd.h"
#include "lib/hashmap.h"

#ifndef PERF_RECORD_MISC_MMAP_BUILD_ID
#define PERF_RECORD_MISC_MMAP_BUILD_ID (1 << 14)
#endif
#define PD_MAX_ATTR_SIZE 4096
#define PD_MAX_ATTRS 4096
/* chunks of the data section dropped as a whole once the walk has left them */
#define PD_CHUNK_SHIFT 20
/* locations are kept in the low 48 bits of pd_rec.pos, record sizes in the high 16 */
#define PD_OFF_BITS 48
#define PD_OFF_MASK ((1ULL << PD_OFF_BITS) - 1)
/*
 * A location is a record's offset in the file, or, in a file from perf record -z, its
 * offset in the decompressed records (PD_LOC_Z) or the index of a copy (PD_LOC_COPY: a
 * record perf left at an offset that is not a multiple of 8, after a compressed record
 * of odd size; the reader hands out 8-byte aligned arrays).
 */
#define PD_LOC_Z (1ULL << 46)
#define PD_LOC_COPY (2ULL << 46)
#define PD_LOC_TAG (3ULL << 46)
#define PD_LOC_MAX (PD_LOC_Z - 1)
/* a record in data file k of a directory recording (perf record --threads): PD_LOC_DIR |
 * k << PD_DIR_SHIFT | its offset there */
#define PD_LOC_DIR (3ULL << 46)
#define PD_DIR_SHIFT 36
#define PD_DIR_MAX_FILES 1024
#define PD_DIR_OFF_MASK ((1ULL << PD_DIR_SHIFT) - 1)
#define PD_FEAT_COMPRESSED_ZSTD 1     /* HEADER_COMPRESSED's type for zstd */

struct pd_rec {
	uint64_t time;
	uint64_t pos;                  /* offset | size << PD_OFF_BITS */
};

static inline uint64_t rec_off(const struct pd_rec *pr)
{
	return pr->pos & PD_OFF_MASK;
}

static inline uint16_t rec_size(const struct pd_rec *pr)
{
	return (uint16_t)(pr->pos >> PD_OFF_BITS);
}

struct collect_pdread {
	char *path;
	int fd;
	const uint8_t *map;
	size_t size;
	struct collect_pd_attr *attrs;
	size_t nr_attrs;
	struct pd_layout {             /* per attr, what every record of it needs, worked out once */
		unsigned trailer;      /* bytes of the sample_id_all trailer of non-sample
					  records (0 without sample_id_all) */
		unsigned sample_time;  /* where a sample's time is (with PERF_SAMPLE_TIME) */
		unsigned sample_fixed; /* bytes of a sample's u64 fields before PERF_SAMPLE_READ */
	} *layout;
	char **names;                  /* owned event names, one per attr */
	uint64_t **ids;                /* owned id arrays, one per attr */
	struct pgo_u64map id2attr;     /* id -> attr index + 1 */
	char *cmdline;
	char *pgo_meta;                /* PD_FEAT_PGO_META text, or NULL */
	char *argv0;
	struct collect_pd_build_id *bids;
	size_t nr_bids, alloc_bids;
	uint64_t data_off, data_end;
	struct pd_rec *recs;
	size_t nr_recs, alloc_recs, pos;
	uint32_t *chunk_left;          /* per chunk: index entries touching it not walked yet */
	uint8_t *chunk_live;           /* per chunk: touched by this walk and not dropped yet */
	size_t nr_chunks, live;
	size_t hold_c, hold_e;         /* chunks of the record the last next() returned (c > e:
					  none) */
	size_t page;
	struct collect_pdread_stats stats;
	uint64_t stats_pos;            /* records counted so far (stats filled once per pass) */
	int stats_done;
	uint32_t comp_type;            /* HEADER_COMPRESSED's method, 0 without the feature */
	struct collect_pdzstd *z;      /* perf record -z: the records decompressed, in order */
	uint64_t znext;                /* where the next whole record starts in them */
	const uint8_t *zdata;          /* their final place (set once open() has read them all) */
	struct pd_zpiece {
		uint64_t at, file_off; /* the output of the compressed record at file_off begins at */
		const char *where;     /* the file that record is in */
	} *zpieces;
	size_t nr_zpieces, alloc_zpieces;
	struct pd_copy {
		uint64_t file_off;
		const char *where;     /* the file it was in */
		uint64_t *bytes;       /* the record, 8-byte aligned */
	} *copies;
	size_t nr_copies, alloc_copies;
	struct pd_dfile {              /* perf record --threads: the directory's data.N files */
		char *path;
		const uint8_t *map;
		size_t size;
		size_t chunk0;         /* its first chunk in the chunk tables */
	} *dfiles;
	size_t nr_dfiles, alloc_dfiles;
	size_t main_chunks;            /* chunks of the main file (then each data file's) */
	const char *where;             /* the file of the record being read, for messages */
	int z_in_file;                 /* zdata maps a temporary file (collect/pdzstd.h) */
	size_t zchunk0;                /* then its first chunk in the chunk tables */
	uint64_t zsize;
};

/* Where the record at location loc is (open() has finished decompressing). */
static inline const uint8_t *rec_at(const struct collect_pdread *r, uint64_t loc)
{
	switch (loc & PD_LOC_TAG) {
	case PD_LOC_Z:
		return r->zdata + (loc & ~PD_LOC_TAG);
	case PD_LOC_COPY:
		return (const uint8_t *)r->copies[loc & ~PD_LOC_TAG].bytes;
	case PD_LOC_DIR:
		return r->dfiles[(loc & ~PD_LOC_TAG) >> PD_DIR_SHIFT].map + (loc & PD_DIR_OFF_MASK);
	default:
		return r->map + loc;
	}
}

/* The compressed record a decompressed record's first byte (at) came from. */
static inline const struct pd_zpiece *zpiece_of(const struct collect_pdread *r, uint64_t at)
{
	size_t lo = 0, hi = r->nr_zpieces;

	while (hi - lo > 1) {          /* the last piece starting at or before at */
		size_t mid = lo + (hi - lo) / 2;

		if (r->zpieces[mid].at <= at)
			lo = mid;
		else
			hi = mid;
	}
	return r->nr_zpieces ? &r->zpieces[lo] : NULL;
}

/*
 * Where to say the record at loc is: its file (the recording, or a data file of a
 * directory) into *where, and the offset there; a decompressed record's is that of the
 * compressed record its first byte came from.
 */
static inline uint64_t file_offset(const struct collect_pdread *r, uint64_t loc, const char **where)
{
	uint64_t at = loc & ~PD_LOC_TAG;
	const struct pd_zpiece *z;

	*where = r->path;
	switch (loc & PD_LOC_TAG) {
	case PD_LOC_COPY:
		*where = r->copies[at].where;
		return r->copies[at].file_off;
	case PD_LOC_DIR:
		*where = r->dfiles[at >> PD_DIR_SHIFT].path;
		return loc & PD_DIR_OFF_MASK;
	case PD_LOC_Z:
		if (!(z = zpiece_of(r, at)))
			return 0;
		*where = z->where;
		return z->file_off;
	default:
		return loc;
	}
}

static inline uint64_t rd64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static inline uint32_t rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static inline uint16_t rd16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return v;
}

static inline const struct collect_pd_attr *attr_by_id(const struct collect_pdread *r, uint64_t id)
{
	const uint64_t *v = pgo_u64map_find(&r->id2attr, id);

	return v ? &r->attrs[*v - 1] : NULL;
}

/* Byte offset of the event id in a SAMPLE body for this sample_type, or -1. */
static inline int sample_id_pos(uint64_t st)
{
	int pos = 0;

	if (st & PERF_SAMPLE_IDENTIFIER)
		return 0;
	if (!(st & PERF_SAMPLE_ID))
		return -1;
	if (st & PERF_SAMPLE_IP)
		pos += 8;
	if (st & PERF_SAMPLE_TID)
		pos += 8;
	if (st & PERF_SAMPLE_TIME)
		pos += 8;
	if (st & PERF_SAMPLE_ADDR)
		pos += 8;
	return pos;
}

/* The attr a record belongs to (NULL if it cannot be told). */
static inline const struct collect_pd_attr *record_attr(const struct collect_pdread *r, const uint8_t *rec,
						 uint32_t type, uint16_t size)
{
	const struct collect_pd_attr *a0 = &r->attrs[0];
	uint64_t st = a0->attr.sample_type;

	if (r->nr_attrs == 1)
		return a0;
	if (type == PERF_RECORD_SAMPLE) {
		int pos = sample_id_pos(st);

		if (pos < 0 || 8 + pos + 8 > size)
			return NULL;
		return attr_by_id(r, rd64(rec + 8 + pos));
	}
	if (!a0->attr.sample_id_all || !(st & PERF_SAMPLE_IDENTIFIER) || size < 16)
		return NULL;
	return attr_by_id(r, rd64(rec + size - 8));
}

/* Timestamp of a record, if it carries one. Inline in add_rec(): a call per record. */
static inline __attribute__((always_inline)) int record_time(const struct collect_pdread *r, const uint8_t *rec, uint32_t type,
		       uint16_t size, uint64_t *time)
{
	const struct collect_pd_attr *a = record_attr(r, rec, type, size);
	const struct pd_layout *l;
	uint64_t st;

	if (!a)
		a = &r->attrs[0];
	st = a->attr.sample_type;
	if (!(st & PERF_SAMPLE_TIME))
		return 0;
	l = &r->layout[a - r->attrs];
	if (type == PERF_RECORD_SAMPLE) {
		unsigned pos = l->sample_time;

		if (pos + 8 > size)
			return 0;
		*time = rd64(rec + pos);
		return 1;
	}
	if (type >= 64 || !a->attr.sample_id_all)
		return 0;
	{
		unsigned ts = l->trailer, pos;

		if (8 + ts > size)
			return 0;
		pos = size - ts + 8 * !!(st & PERF_SAMPLE_TID);
		*time = rd64(rec + pos);
	}
	return 1;
}

/* pdread_header.c */
/* [off, off + len) lies inside the file (overflow-safe). */
int collect_pd_in_file(const struct collect_pdread *r, uint64_t off, uint64_t len);
int collect_pd_parse_attrs(struct collect_pdread *r, const struct pd_file_header *h);
int collect_pd_parse_features(struct collect_pdread *r, const struct pd_file_header *h);

/* pdread.c */
/* Count, per chunk, the index entries a walk from the start still has to pass. */
void collect_pd_chunks_reset(struct collect_pdread *r);
/*
 * Drop the pages of [lo, hi) of a mapping (the recording's, a data file's or the
 * decompressed records'), none at or past the page holding `end`: the recording's feature
 * sections follow its data section and are read during the walk (build-id file names).
 */
void collect_pd_drop_pages(struct collect_pdread *r, const uint8_t *map, uint64_t lo, uint64_t hi,
		       uint64_t end);

#endif
