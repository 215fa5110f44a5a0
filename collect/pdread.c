// SPDX-License-Identifier: MIT
/*
 * perf.data reader (collect/pdread.h). The file is mapped read-only; open() checks the
 * header, attrs, features and every record header once, then sorts a small index of
 * (time, offset, size) entries, so next() only has to parse one record at a time.
 *
 * Resident memory stays bounded however big the file is: the data section is cut into
 * chunks of PD_CHUNK bytes, each with a count of the index entries that touch it and have
 * not been walked yet. When a count falls to 0 the chunk's pages are dropped from the
 * mapping (MADV_DONTNEED); they re-fault from the file if anything reads them again (a
 * rewind, or a caller holding an old pointer), so pointers stay valid. The time order
 * differs from the file order only within a round of per-CPU buffers, so the chunks still
 * mapped are those of about one round. The first walk in open() drops what it leaves
 * behind the same way. Dropping pages rather than mapping windows of the file keeps
 * every pointer handed out valid (a window's munmap would not) and needs no record to
 * be copied where it crosses a window's end; the price is that each page faults twice,
 * once per walk.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collect/pdread.h"
#include "collect/pdzstd.h"
#include "lib/alloc.h"
#include "lib/buf.h"
#include "lib/hashmap.h"
#include "lib/report.h"

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

static uint64_t rec_off(const struct pd_rec *pr)
{
	return pr->pos & PD_OFF_MASK;
}

static uint16_t rec_size(const struct pd_rec *pr)
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
static const uint8_t *rec_at(const struct collect_pdread *r, uint64_t loc)
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
static const struct pd_zpiece *zpiece_of(const struct collect_pdread *r, uint64_t at)
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
static uint64_t file_offset(const struct collect_pdread *r, uint64_t loc, const char **where)
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

static uint64_t rd64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static uint32_t rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static uint16_t rd16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return v;
}

char *collect_build_id_hex(const uint8_t *id, size_t size, char *buf)
{
	static const char hex[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < size; i++) {
		buf[2 * i] = hex[id[i] >> 4];
		buf[2 * i + 1] = hex[id[i] & 15];
	}
	buf[2 * size] = '\0';
	return buf;
}

/* [off, off + len) lies inside the file (overflow-safe). */
static int in_file(const struct collect_pdread *r, uint64_t off, uint64_t len)
{
	return off <= r->size && len <= r->size - off;
}

static const char *default_event_name(const struct perf_event_attr *a, char *buf, size_t n)
{
	static const char *const hw[] = { "cycles", "instructions", "cache-references",
					  "cache-misses", "branches", "branch-misses",
					  "bus-cycles", "stalled-cycles-frontend",
					  "stalled-cycles-backend", "ref-cycles" };
	static const char *const sw[] = { "cpu-clock", "task-clock", "page-faults",
					  "context-switches", "cpu-migrations", "minor-faults",
					  "major-faults", "alignment-faults", "emulation-faults",
					  "dummy", "bpf-output", "cgroup-switches" };

	if (a->type == PERF_TYPE_HARDWARE && a->config < PGO_ARRAY_SIZE(hw))
		return hw[a->config];
	if (a->type == PERF_TYPE_SOFTWARE && a->config < PGO_ARRAY_SIZE(sw))
		return sw[a->config];
	snprintf(buf, n, "type%u:0x%llx", a->type, (unsigned long long)a->config);
	return buf;
}

/* A perf header string {u32 len; char str[len]} at *off within [.., end). */
static int read_feat_string(struct collect_pdread *r, uint64_t *off, uint64_t end, char **out)
{
	uint32_t len;

	if (*off + 4 > end)
		return -1;
	len = rd32(r->map + *off);
	*off += 4;
	if (len > end - *off)
		return -1;
	*out = pgo_strndup((const char *)r->map + *off, len);
	if (!*out)
		return -1;
	*off += len;
	return 0;
}

static int parse_cmdline(struct collect_pdread *r, uint64_t off, uint64_t size)
{
	uint64_t end = off + size;
	struct pgo_buf b = PGO_BUF_INIT;
	uint32_t nr, i;

	if (size < 4)
		return -1;
	nr = rd32(r->map + off);
	off += 4;
	if (nr > size / 4)
		return -1;
	for (i = 0; i < nr; i++) {
		char *s;

		if (read_feat_string(r, &off, end, &s) < 0) {
			pgo_buf_release(&b);
			return -1;
		}
		if (i == 0)
			r->argv0 = pgo_strdup(s);
		if ((i && pgo_buf_addch(&b, ' ') < 0) || pgo_buf_adds(&b, s) < 0) {
			free(s);
			pgo_buf_release(&b);
			return -1;
		}
		free(s);
	}
	r->cmdline = pgo_buf_detach(&b);
	if (!r->cmdline)
		r->cmdline = pgo_strdup("");
	return 0;
}

static int parse_event_desc(struct collect_pdread *r, uint64_t off, uint64_t size)
{
	uint64_t end = off + size;
	uint32_t nr, asz, i;

	if (size < 8)
		return -1;
	nr = rd32(r->map + off);
	asz = rd32(r->map + off + 4);
	off += 8;
	if (asz < 8 || asz > PD_MAX_ATTR_SIZE || nr > size / asz)
		return -1;
	for (i = 0; i < nr; i++) {
		uint32_t nr_ids;
		char *name;

		if (asz > end - off)
			return -1;
		off += asz;
		if (off + 4 > end)
			return -1;
		nr_ids = rd32(r->map + off);
		off += 4;
		if (read_feat_string(r, &off, end, &name) < 0)
			return -1;
		if ((uint64_t)nr_ids * 8 > end - off) {
			free(name);
			return -1;
		}
		off += (uint64_t)nr_ids * 8;
		if (i < r->nr_attrs && name[0]) {
			free(r->names[i]);
			r->names[i] = name;
			r->attrs[i].name = name;
		} else {
			free(name);
		}
	}
	return 0;
}

static int parse_build_ids(struct collect_pdread *r, uint64_t off, uint64_t size)
{
	uint64_t end = off + size;

	while (off < end) {
		struct collect_pd_build_id *b;
		uint16_t misc, sz;
		size_t flen;

		if (end - off < 8 + 4 + 24)
			return -1;
		misc = rd16(r->map + off + 4);
		sz = rd16(r->map + off + 6);
		if (sz < 8 + 4 + 24 || sz > end - off)
			return -1;
		if (PGO_ALLOC_GROW(r->bids, r->nr_bids + 1, r->alloc_bids) < 0)
			return -1;
		b = &r->bids[r->nr_bids];
		memset(b, 0, sizeof(*b));
		b->pid = (int32_t)rd32(r->map + off + 8);
		memcpy(b->id, r->map + off + 12, 20);
		b->size = 20;
		if (misc & PD_MISC_BUILD_ID_SIZE) {
			b->size = r->map[off + 12 + 20];
			if (b->size > 20)
				return -1;
		}
		flen = strnlen((const char *)r->map + off + 36, sz - 36);
		if (flen == (size_t)(sz - 36))
			return -1;
		b->filename = (const char *)r->map + off + 36;
		r->nr_bids++;
		off += sz;
	}
	return 0;
}

/* HEADER_COMPRESSED: {u32 version, type, level, ratio, mmap_len}; the method is kept. */
static int parse_compressed(struct collect_pdread *r, uint64_t off, uint64_t size)
{
	if (size < 8)
		return -1;
	r->comp_type = rd32(r->map + off + 4);
	return 0;
}

static int parse_features(struct collect_pdread *r, const struct pd_file_header *h)
{
	uint64_t sec = r->data_end;
	int bit;

	for (bit = 0; bit < PD_FEAT_BITS; bit++) {
		uint64_t off, size;
		int err = 0;

		if (!(h->adds_features[bit / 64] & (1ULL << (bit % 64))))
			continue;
		if (!in_file(r, sec, 16))
			return pgo_error("'%s': feature table at offset %llu runs past the end of the file "
					 "(truncated?)", r->path, (unsigned long long)sec);
		off = rd64(r->map + sec);
		size = rd64(r->map + sec + 8);
		if (!in_file(r, off, size))
			return pgo_error("'%s': feature %d section (offset %llu, %llu bytes) is outside "
					 "the file (truncated?)", r->path, bit, (unsigned long long)off,
					 (unsigned long long)size);
		if (bit == PD_FEAT_BUILD_ID)
			err = parse_build_ids(r, off, size);
		else if (bit == PD_FEAT_CMDLINE)
			err = parse_cmdline(r, off, size);
		else if (bit == PD_FEAT_EVENT_DESC)
			err = parse_event_desc(r, off, size);
		else if (bit == PD_FEAT_COMPRESSED)
			err = parse_compressed(r, off, size);
		else if (bit == PD_FEAT_PGO_META && !r->pgo_meta &&
			 read_feat_string(r, &off, off + size, &r->pgo_meta) < 0)
			r->pgo_meta = NULL; /* pgo's own notes: without them the file still reads */
		if (err)
			return pgo_error("'%s': malformed feature %d section at offset %llu", r->path, bit,
					 (unsigned long long)off);
		sec += 16;
	}
	return 0;
}

/* Size of the sample_id_all trailer of non-sample records. */
static unsigned trailer_size(uint64_t st)
{
	unsigned n = 0;

	n += !!(st & PERF_SAMPLE_TID) + !!(st & PERF_SAMPLE_TIME) + !!(st & PERF_SAMPLE_ID) +
	     !!(st & PERF_SAMPLE_STREAM_ID) + !!(st & PERF_SAMPLE_CPU) +
	     !!(st & PERF_SAMPLE_IDENTIFIER);
	return n * 8;
}

/*
 * Per-record work that depends only on the attr: the trailer's size and where a sample's
 * fields are (recounting the trailer's fields, twice a record, took ~50 of the ~650
 * instructions the reader spent per record).
 */
static void set_layout(struct pd_layout *l, const struct perf_event_attr *a)
{
	uint64_t st = a->sample_type;

	l->trailer = a->sample_id_all ? trailer_size(st) : 0;
	l->sample_time = 8 + 8 * (!!(st & PERF_SAMPLE_IDENTIFIER) + !!(st & PERF_SAMPLE_IP) +
				  !!(st & PERF_SAMPLE_TID));
	l->sample_fixed = 8 * __builtin_popcountll(st & (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
							  PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
							  PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |
							  PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |
							  PERF_SAMPLE_PERIOD));
}

static int parse_attrs(struct collect_pdread *r, const struct pd_file_header *h)
{
	uint64_t asz = h->attr_size, i;

	if (asz < 16 + PERF_ATTR_SIZE_VER0 || asz > PD_MAX_ATTR_SIZE)
		return pgo_error("'%s': unsupported attr size %llu in the header", r->path,
				 (unsigned long long)asz);
	if (!h->attrs.size || h->attrs.size % asz || !in_file(r, h->attrs.offset, h->attrs.size))
		return pgo_error("'%s': bad attrs section (offset %llu, %llu bytes)", r->path,
				 (unsigned long long)h->attrs.offset, (unsigned long long)h->attrs.size);
	r->nr_attrs = h->attrs.size / asz;
	if (r->nr_attrs > PD_MAX_ATTRS)
		return pgo_error("'%s': too many attrs (%zu)", r->path, r->nr_attrs);
	r->attrs = pgo_calloc(r->nr_attrs, sizeof(*r->attrs));
	r->names = pgo_calloc(r->nr_attrs, sizeof(*r->names));
	r->ids = pgo_calloc(r->nr_attrs, sizeof(*r->ids));
	r->layout = pgo_calloc(r->nr_attrs, sizeof(*r->layout));
	if (!r->attrs || !r->names || !r->ids || !r->layout)
		return -1;
	for (i = 0; i < r->nr_attrs; i++) {
		const uint8_t *p = r->map + h->attrs.offset + i * asz;
		struct collect_pd_attr *a = &r->attrs[i];
		uint64_t ids_off = rd64(p + asz - 16), ids_size = rd64(p + asz - 8), k;
		size_t n = asz - 16;
		char buf[64];

		memcpy(&a->attr, p, n < sizeof(a->attr) ? n : sizeof(a->attr));
		r->names[i] = pgo_strdup(default_event_name(&a->attr, buf, sizeof(buf)));
		if (!r->names[i])
			return -1;
		a->name = r->names[i];
		if (ids_size % 8 || !in_file(r, ids_off, ids_size))
			return pgo_error("'%s': bad ids section of attr %llu", r->path,
					 (unsigned long long)i);
		a->nr_ids = ids_size / 8;
		if (a->nr_ids) {
			r->ids[i] = pgo_calloc(a->nr_ids, 8);
			if (!r->ids[i])
				return -1;
			memcpy(r->ids[i], r->map + ids_off, ids_size);
		}
		a->ids = r->ids[i];
		set_layout(&r->layout[i], &a->attr);
		for (k = 0; k < a->nr_ids; k++)
			if (pgo_u64map_put(&r->id2attr, r->ids[i][k], i + 1) < 0)
				return -1;
	}
	return 0;
}

static const struct collect_pd_attr *attr_by_id(const struct collect_pdread *r, uint64_t id)
{
	const uint64_t *v = pgo_u64map_find(&r->id2attr, id);

	return v ? &r->attrs[*v - 1] : NULL;
}

/* Byte offset of the event id in a SAMPLE body for this sample_type, or -1. */
static int sample_id_pos(uint64_t st)
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

/*
 * Drop the pages of [lo, hi) of a mapping (the recording's, a data file's or the
 * decompressed records'), none at or past the page holding `end`: the recording's feature
 * sections follow its data section and are read during the walk (build-id file names).
 */
static void drop_pages(struct collect_pdread *r, const uint8_t *map, uint64_t lo, uint64_t hi,
		       uint64_t end)
{
	end &= ~(uint64_t)(r->page - 1);
	if (hi > end)
		hi = end;
	if (!r->page || lo >= hi)
		return;
	if (!madvise((void *)(map + lo), hi - lo, MADV_DONTNEED))
		r->stats.released += hi - lo;
}

/* Drop chunk c: of the recording, of the decompressed records, or of a data file. */
static void release_chunk(struct collect_pdread *r, size_t c)
{
	const uint8_t *map = r->map;
	uint64_t end = r->data_end;
	size_t c0 = 0, k = r->nr_dfiles;

	if (r->z_in_file && c >= r->zchunk0) {
		map = r->zdata;
		end = r->zsize;
		c0 = r->zchunk0;
	} else if (c >= r->main_chunks) {
		while (k > 0 && r->dfiles[k - 1].chunk0 > c)
			k--;
		if (!k)
			return;
		map = r->dfiles[k - 1].map;
		end = r->dfiles[k - 1].size;
		c0 = r->dfiles[k - 1].chunk0;
	}
	drop_pages(r, map, (uint64_t)(c - c0) << PD_CHUNK_SHIFT, (uint64_t)(c - c0 + 1) << PD_CHUNK_SHIFT,
		   end);
}

/* The chunks of the files an index entry touches: [*first, *last], empty for records the
 * reader decompressed or copied (they stay in memory). */
static inline void rec_chunks(const struct collect_pdread *r, const struct pd_rec *pr,
			      size_t *first, size_t *last)
{
	uint64_t loc = rec_off(pr), off = loc, base = 0;

	if (!(loc & PD_LOC_TAG)) {
		/* the recording's own records, the common case: inline, no dispatch */
	} else if ((loc & PD_LOC_TAG) == PD_LOC_DIR) {
		base = r->dfiles[(loc & ~PD_LOC_TAG) >> PD_DIR_SHIFT].chunk0;
		off = loc & PD_DIR_OFF_MASK;
	} else if ((loc & PD_LOC_TAG) == PD_LOC_Z && r->z_in_file) {
		base = r->zchunk0;
		off = loc & ~PD_LOC_TAG;
	} else if (loc & PD_LOC_TAG) {
		*first = 1;
		*last = 0;
		return;
	}
	*first = base + (off >> PD_CHUNK_SHIFT);
	*last = base + ((off + rec_size(pr) - 1) >> PD_CHUNK_SHIFT);
}

/* Count, per chunk, the index entries a walk from the start still has to pass. */
static void chunks_reset(struct collect_pdread *r)
{
	size_t i, c, e;

	memset(r->chunk_left, 0, r->nr_chunks * sizeof(*r->chunk_left));
	memset(r->chunk_live, 0, r->nr_chunks);
	r->live = 0;
	for (i = 0; i < r->nr_recs; i++) {
		uint64_t pos = r->recs[i].pos;

		/* the recording's own records, nearly all: their chunks without the dispatch */
		if (!(pos & PD_LOC_TAG)) {
			uint64_t off = pos & PD_OFF_MASK;

			c = off >> PD_CHUNK_SHIFT;
			e = (off + (pos >> PD_OFF_BITS) - 1) >> PD_CHUNK_SHIFT;
		} else {
			rec_chunks(r, &r->recs[i], &c, &e);
			if (c > e)
				continue;
		}
		r->chunk_left[c]++;
		if (e != c)
			r->chunk_left[e]++;
	}
}

/* An index entry with chunks [c, e] (rec_chunks()) is about to be read: they are in the window. */
static inline void chunks_touch(struct collect_pdread *r, size_t c, size_t e)
{
	/* the common case, a record inside one chunk already in the window: nothing changes */
	if (c == e && r->chunk_live[c])
		return;
	for (; c <= e; c++) {
		if (r->chunk_live[c])
			continue;
		r->chunk_live[c] = 1;
		r->live++;
	}
	if ((uint64_t)r->live << PD_CHUNK_SHIFT > r->stats.max_window)
		r->stats.max_window = (uint64_t)r->live << PD_CHUNK_SHIFT;
}

/* chunks_passed() when a chunk may be dropped */
static __attribute__((noinline)) void chunks_drop(struct collect_pdread *r, size_t c, size_t e)
{
	for (; c <= e; c++) {
		if (--r->chunk_left[c])
			continue;
		if (r->chunk_live[c]) {
			r->chunk_live[c] = 0;
			r->live--;
		}
		release_chunk(r, c);
	}
}

/*
 * The walk has passed an index entry with chunks [c, e]: drop those no entry ahead of it
 * needs. Inline for the common case, one chunk that entries ahead still need (a call per
 * record was 24 instructions of the ~270 the reader spent on a sample).
 */
static inline void chunks_passed(struct collect_pdread *r, size_t c, size_t e)
{
	if (c == e && r->chunk_left[c] > 1) {
		r->chunk_left[c]--;
		return;
	}
	chunks_drop(r, c, e);
}

static int cmp_rec(const void *a, const void *b)
{
	const struct pd_rec *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return rec_off(x) < rec_off(y) ? -1 : rec_off(x) > rec_off(y);
}

static int rec_before(const struct pd_rec *x, const struct pd_rec *y)
{
	return x->time < y->time || (x->time == y->time && rec_off(x) < rec_off(y));
}

/* The first of a[lo, hi) (in order) that x comes before; hi if none. */
static size_t first_after(const struct pd_rec *a, size_t lo, size_t hi, const struct pd_rec *x)
{
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (rec_before(x, &a[mid]))
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* The first of a[lo, hi) (in order) that does not come before x; hi if none. */
static size_t first_not_before(const struct pd_rec *a, size_t lo, size_t hi, const struct pd_rec *x)
{
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (rec_before(&a[mid], x))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Merge the ordered runs a[lo, mid) and a[mid, hi) in place. Only the parts that overlap
 * in time move: the head of the left run before the right run's first entry and the tail
 * of the right run after the left run's last stay where they are. The left part goes to
 * tmp first, so the merge can write forward over a.
 */
static void merge_runs(struct pd_rec *a, size_t lo, size_t mid, size_t hi, struct pd_rec *tmp)
{
	size_t p0 = first_after(a, lo, mid, &a[mid]), q1, nl, i = 0, q = mid, k = p0;

	if (p0 == mid)
		return;
	q1 = first_not_before(a, mid, hi, &a[mid - 1]);
	nl = mid - p0;
	memcpy(tmp, a + p0, nl * sizeof(*a));
	while (i < nl && q < q1)
		a[k++] = rec_before(&a[q], &tmp[i]) ? a[q++] : tmp[i++];
	while (i < nl)
		a[k++] = tmp[i++];
}

/*
 * Sort by time (then file offset), as cmp_rec orders. perf writes each CPU's buffer in
 * turn, so the records come as runs already in order: merging the runs is n log(runs)
 * comparisons, inline, where qsort was n log n through a callback (9 of 191 M
 * instructions of a 23517-sample convert). Neighbouring runs overlap in time only in part
 * (a CPU's buffer of one round against the next CPU's): merge_runs() moves that part only,
 * where merging whole runs through a second array moved every entry in each pass and once
 * more back (3.5% of a 21k-sample convert with three runs). Returns 0 (without memory for
 * the merge, qsort sorts).
 */
static int sort_records(struct collect_pdread *r)
{
	size_t n = r->nr_recs, i, nr_runs = 1, k;
	struct pd_rec *a = r->recs, *tmp;
	size_t *start;

	for (i = 1; i < n; i++)
		nr_runs += rec_before(&a[i], &a[i - 1]);
	if (nr_runs == 1)
		return 0;
	tmp = malloc(n * sizeof(*tmp));
	start = malloc((nr_runs + 1) * sizeof(*start));
	if (!tmp || !start) {
		free(tmp);
		free(start);
		qsort(a, n, sizeof(*a), cmp_rec);
		return 0;
	}
	/* start[k]: where run k begins; start[nr_runs] = n */
	start[0] = 0;
	for (i = 1, k = 1; i < n; i++)
		if (rec_before(&a[i], &a[i - 1]))
			start[k++] = i;
	start[nr_runs] = n;
	/* bottom-up: merge neighbouring runs until one is left */
	while (nr_runs > 1) {
		size_t m = 0;

		for (k = 0; k + 1 < nr_runs; k += 2) {
			merge_runs(a, start[k], start[k + 1], start[k + 2], tmp);
			start[m++] = start[k];
		}
		if (k < nr_runs)
			start[m++] = start[k];
		start[m] = n;
		nr_runs = m;
	}
	free(tmp);
	free(start);
	return 0;
}

/* Room for one more index entry: PGO_ALLOC_GROW but without zeroing what add_rec() writes. */
static __attribute__((noinline)) int grow_recs(struct collect_pdread *r)
{
	size_t n = r->alloc_recs ? 2 * r->alloc_recs : 1024;
	struct pd_rec *p = n <= SIZE_MAX / sizeof(*p) ? realloc(r->recs, n * sizeof(*p)) : NULL;

	if (!p)
		return pgo_error("out of memory (%zu index entries)", n);
	r->recs = p;
	r->alloc_recs = n;
	return 0;
}

/*
 * Add the record at location loc (rec points at it) to the index, in file order. Inline,
 * the growth apart: the call was a third of the ~125 instructions indexing took a record.
 */
static inline __attribute__((always_inline)) int add_rec(struct collect_pdread *r, uint64_t loc,
							 const uint8_t *rec, uint32_t type,
							 uint16_t size, uint64_t *last_time)
{
	uint64_t t;

	if (record_time(r, rec, type, size, &t))
		*last_time = t;
	if (r->nr_recs == r->alloc_recs && grow_recs(r) < 0)
		return -1;
	r->recs[r->nr_recs].time = *last_time;
	r->recs[r->nr_recs].pos = loc | (uint64_t)size << PD_OFF_BITS;
	r->nr_recs++;
	return 0;
}

/* What a record's header says that no stream of records may hold. */
static int check_rec_header(struct collect_pdread *r, uint64_t off, uint32_t type, uint16_t size,
			    const char *what)
{
	if (size < 8)
		return pgo_error("'%s': record of size %u at offset %llu%s (corrupt file)", r->where,
				 size, (unsigned long long)off, what);
	if (size % 8)
		return pgo_error("'%s': misaligned record size %u at offset %llu%s (corrupt file)",
				 r->where, size, (unsigned long long)off, what);
	if (type == PD_RECORD_HEADER_ATTR)
		return pgo_error("'%s': pipe-mode records at offset %llu are not supported; "
				 "record to a file (perf record -o FILE)", r->where,
				 (unsigned long long)off);
	return 0;
}

/* The end of the records decompressed so far (their space's length). */
static uint64_t zend(const struct collect_pdread *r)
{
	size_t len;

	if (!r->z)
		return 0;
	collect_pdzstd_data(r->z, &len);
	return collect_pdzstd_base(r->z) + len;
}

/*
 * A compressed record (perf record -z) at file offset off: decompress its payload onto
 * the stream's output and index the records it completes. PERF_RECORD_COMPRESSED's
 * payload is the rest of the record, whose size need not be a multiple of 8 (so records
 * after it may sit at any offset); PERF_RECORD_COMPRESSED2 (perf 6.16) says the payload's
 * length and pads the record to 8 bytes.
 */
static int unzip_record(struct collect_pdread *r, uint64_t off, const uint8_t *rec, uint32_t type,
			uint16_t size, uint64_t *last_time)
{
	const char *why = NULL;
	const uint8_t *payload = rec + 8, *zd;
	size_t len = size - 8, zlen;
	uint64_t base;

	if (r->comp_type && r->comp_type != PD_FEAT_COMPRESSED_ZSTD)
		return pgo_error("'%s': records are compressed with method %u, which is not zstd; "
				 "not supported", r->where, r->comp_type);
	if (type == PD_RECORD_COMPRESSED2) {
		if (size < 16 || size % 8 || rd64(rec + 8) > (uint64_t)size - 16)
			return pgo_error("'%s': malformed compressed record (%u bytes) at offset %llu "
					 "(corrupt file)", r->where, size, (unsigned long long)off);
		payload = rec + 16;
		len = (size_t)rd64(rec + 8);
	}
	if (!r->z && !(r->z = collect_pdzstd_new()))
		return -1;
	if (PGO_ALLOC_GROW(r->zpieces, r->nr_zpieces + 1, r->alloc_zpieces) < 0)
		return -1;
	r->zpieces[r->nr_zpieces].at = zend(r);
	r->zpieces[r->nr_zpieces].where = r->where;
	r->zpieces[r->nr_zpieces++].file_off = off;
	r->stats.compressed++;
	base = collect_pdzstd_base(r->z);
	if (collect_pdzstd_feed(r->z, payload, len, PD_LOC_MAX - base, &why) < 0)
		return pgo_error("'%s': compressed record at offset %llu does not decompress: %s "
				 "(corrupt file)", r->where, (unsigned long long)off, why);
	zd = collect_pdzstd_data(r->z, &zlen);
	/* the whole records it completed; a record split between two waits for the next */
	while (base + zlen - r->znext >= 8) {
		const uint8_t *zr = zd + (r->znext - base);
		uint32_t ztype = rd32(zr);
		uint16_t zsize = rd16(zr + 6);

		if (check_rec_header(r, off, ztype, zsize, " (decompressed)") < 0)
			return -1;
		if (zsize > base + zlen - r->znext)
			break;
		if (ztype == PD_RECORD_COMPRESSED || ztype == PD_RECORD_COMPRESSED2)
			return pgo_error("'%s': a compressed record inside the compressed record at "
					 "offset %llu (corrupt file)", r->where, (unsigned long long)off);
		if (add_rec(r, PD_LOC_Z | r->znext, zr, ztype, zsize, last_time) < 0)
			return -1;
		r->znext += zsize;
	}
	r->stats.unpacked = base + zlen;
	/* what is indexed may go to disk */
	return collect_pdzstd_spill(r->z, r->znext, 0);
}

/* A record perf left at an offset that is not a multiple of 8: index an aligned copy. */
static int add_copy(struct collect_pdread *r, uint64_t off, const uint8_t *rec, uint32_t type,
		    uint16_t size, uint64_t *last_time)
{
	struct pd_copy *c;

	if (PGO_ALLOC_GROW(r->copies, r->nr_copies + 1, r->alloc_copies) < 0)
		return -1;
	c = &r->copies[r->nr_copies];
	c->file_off = off;
	c->where = r->where;
	c->bytes = malloc(size);
	if (!c->bytes)
		return pgo_error("out of memory");
	memcpy(c->bytes, rec, size);
	r->nr_copies++;
	return add_rec(r, PD_LOC_COPY | (r->nr_copies - 1), (const uint8_t *)c->bytes, type, size,
		       last_time);
}

/*
 * Index the records of [off, end) of a mapping: the main file's data section (tag 0), or
 * a whole data file k of a directory (tag PD_LOC_DIR | k << PD_DIR_SHIFT). Pages
 * behind the walk are dropped. Messages name `where` and offsets in that file.
 */
static int index_span(struct collect_pdread *r, const uint8_t *map, uint64_t off, uint64_t end,
		      uint64_t tag, const char *where, uint64_t *last_time)
{
	uint64_t dropped = off & ~((1ULL << PD_CHUNK_SHIFT) - 1);
	/*
	 * The samples of a recording of one event whose samples carry their time, nearly every
	 * record of most files, take a path of only the tests they need: the general one below
	 * spent ~80 instructions on each.
	 */
	int fast = r->nr_attrs == 1 && (r->attrs[0].attr.sample_type & PERF_SAMPLE_TIME);
	unsigned tpos = r->layout[0].sample_time;

	r->where = where;
	/* perf compresses each data file's records as a stream of their own (the span before
	 * ended at a record boundary: checked at its end) */
	if (r->z && collect_pdzstd_reset(r->z) < 0)
		return -1;
	while (off < end) {
		const uint8_t *rec;
		uint32_t type;
		uint16_t size;

		if (fast && end - off >= 8 && off - dropped < (1ULL << PD_CHUNK_SHIFT) && !(off % 8) &&
		    r->nr_recs < r->alloc_recs) {
			rec = map + off;
			size = rd16(rec + 6);
			if (rd32(rec) == PERF_RECORD_SAMPLE && size >= 8 && !(size % 8) && size <= end - off) {
				/* add_rec() as record_time() reads a sample of the one attr */
				if (tpos + 8 <= size)
					*last_time = rd64(rec + tpos);
				r->recs[r->nr_recs].time = *last_time;
				r->recs[r->nr_recs++].pos = tag | off | (uint64_t)size << PD_OFF_BITS;
				off += size;
				continue;
			}
		}
		if (end - off < 8)
			return pgo_error("'%s': truncated record header at offset %llu", where,
					 (unsigned long long)off);
		if (off - dropped >= (1ULL << PD_CHUNK_SHIFT)) {
			uint64_t to = off & ~((1ULL << PD_CHUNK_SHIFT) - 1);

			drop_pages(r, map, dropped, to, end);
			dropped = to;
		}
		rec = map + off;
		type = rd32(rec);
		size = rd16(rec + 6);
		if (type == PD_RECORD_COMPRESSED && size < 8)
			return pgo_error("'%s': record of size %u at offset %llu (corrupt file)", where,
					 size, (unsigned long long)off);
		/* check_rec_header()'s tests, the message only when one fails */
		if (type != PD_RECORD_COMPRESSED && (size < 8 || size % 8 || type == PD_RECORD_HEADER_ATTR) &&
		    check_rec_header(r, off, type, size, "") < 0)
			return -1;
		if (size > end - off)
			return pgo_error("'%s': record at offset %llu (type %u, %u bytes) runs past the "
					 "end of the data section (truncated?)", where,
					 (unsigned long long)off, type, size);
		if (type == PD_RECORD_COMPRESSED || type == PD_RECORD_COMPRESSED2) {
			if (unzip_record(r, off, rec, type, size, last_time) < 0)
				return -1;
		} else if (off % 8 && type < 64) {
			if (add_copy(r, off, rec, type, size, last_time) < 0)
				return -1;
		} else if (add_rec(r, tag | off, rec, type, size, last_time) < 0) {
			return -1;
		}
		off += size;
	}
	if (r->z && r->znext != zend(r))
		return pgo_error("'%s': the compressed records end inside a record (%llu of its "
				 "bytes; truncated?)", where, (unsigned long long)(zend(r) - r->znext));
	return 0;
}

static int index_records(struct collect_pdread *r)
{
	uint64_t last_time = 0;
	size_t k, chunks;

	if (index_span(r, r->map, r->data_off, r->data_end, 0, r->path, &last_time) < 0)
		return -1;
	chunks = r->main_chunks = (r->data_end >> PD_CHUNK_SHIFT) + 1;
	for (k = 0; k < r->nr_dfiles; k++) {
		r->dfiles[k].chunk0 = chunks;
		chunks += (r->dfiles[k].size >> PD_CHUNK_SHIFT) + 1;
		if (index_span(r, r->dfiles[k].map, 0, r->dfiles[k].size,
			       PD_LOC_DIR | (uint64_t)k << PD_DIR_SHIFT, r->dfiles[k].path,
			       &last_time) < 0)
			return -1;
	}
	r->where = r->path;
	if (r->z) {
		uint64_t total;

		r->zdata = collect_pdzstd_finish(r->z, &total, &r->z_in_file);
		if (!r->zdata)
			return -1;
		r->stats.unpacked_in_file = r->z_in_file;
		/* in a file, their pages are dropped behind the walk like the file's own */
		if (r->z_in_file) {
			r->zchunk0 = chunks;
			chunks += (total >> PD_CHUNK_SHIFT) + 1;
			r->zsize = total;
		}
	}
	if (r->nr_recs > 1 && sort_records(r) < 0)
		return -1;
	r->nr_chunks = chunks;
	r->chunk_left = pgo_calloc(r->nr_chunks, sizeof(*r->chunk_left));
	r->chunk_live = pgo_calloc(r->nr_chunks, 1);
	if (!r->chunk_left || !r->chunk_live)
		return -1;
	chunks_reset(r);
	return 0;
}

static int check_header(struct collect_pdread *r, struct pd_file_header *h)
{
	uint64_t magic;

	if (r->size < 16)
		return pgo_error("'%s' is not a perf.data file (%zu bytes)", r->path, r->size);
	magic = rd64(r->map);
	if (magic == PD_MAGIC_SWAPPED)
		return pgo_error("'%s' was recorded on a host of the other byte order; not supported",
				 r->path);
	if (magic != PD_MAGIC_U64) {
		if (!memcmp(r->map, "PERFFILE", 8))
			return pgo_error("'%s' is in the old perf.data v1 format; not supported", r->path);
		return pgo_error("'%s' is not a perf.data file (bad magic)", r->path);
	}
	if (rd64(r->map + 8) == 16)
		return pgo_error("'%s' is a pipe-mode perf.data (perf record -o -); not supported, "
				 "record to a file", r->path);
	if (r->size < sizeof(*h) || rd64(r->map + 8) != sizeof(*h))
		return pgo_error("'%s': unexpected header size %llu (truncated?)", r->path,
				 (unsigned long long)(r->size < 16 ? 0 : rd64(r->map + 8)));
	memcpy(h, r->map, sizeof(*h));
	if (!in_file(r, h->data.offset, h->data.size))
		return pgo_error("'%s': data section (offset %llu, %llu bytes) runs past the end of "
				 "the file (%zu bytes; truncated?)", r->path,
				 (unsigned long long)h->data.offset, (unsigned long long)h->data.size,
				 r->size);
	if (h->data.offset % 8)
		return pgo_error("'%s': misaligned data section offset %llu", r->path,
				 (unsigned long long)h->data.offset);
	if (h->data.offset + h->data.size > PD_LOC_MAX)
		return pgo_error("'%s': data section (offset %llu, %llu bytes) is too large", r->path,
				 (unsigned long long)h->data.offset, (unsigned long long)h->data.size);
	r->data_off = h->data.offset;
	r->data_end = h->data.offset + h->data.size;
	return 0;
}

/*
 * The data files of a directory recording (perf record --threads): DIR/data.0, data.1, ...
 * up to the first missing one, each records only, mapped (empty ones skipped).
 */
static int open_dfiles(struct collect_pdread *r, const struct pd_file_header *h)
{
	size_t n;

	if (!(h->adds_features[PD_FEAT_DIR_FORMAT / 64] & (1ULL << (PD_FEAT_DIR_FORMAT % 64))))
		return pgo_error("'%s' is a directory whose 'data' file lacks perf's directory "
				 "format feature: not a perf record --threads recording", r->path);
	for (n = 0;; n++) {
		struct stat sb;
		char *p;
		void *m;
		int fd;

		if (asprintf(&p, "%s/data.%zu", r->path, n) < 0)
			return pgo_error("out of memory");
		fd = open(p, O_RDONLY | O_CLOEXEC);
		if (fd < 0 && errno == ENOENT) {
			free(p);
			return 0;
		}
		if (fd < 0 || fstat(fd, &sb) < 0) {
			pgo_error_errno("cannot open '%s'", p);
			free(p);
			if (fd >= 0)
				close(fd);
			return -1;
		}
		if (n >= PD_DIR_MAX_FILES || (uint64_t)sb.st_size > PD_DIR_OFF_MASK) {
			close(fd);
			free(p);
			return pgo_error("'%s': more than %d data files, or one over 64 GB; not "
					 "supported", r->path, PD_DIR_MAX_FILES);
		}
		m = sb.st_size ? mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0) : NULL;
		close(fd);
		if (m == MAP_FAILED) {
			pgo_error_errno("cannot map '%s'", p);
			free(p);
			return -1;
		}
		if (PGO_ALLOC_GROW(r->dfiles, r->nr_dfiles + 1, r->alloc_dfiles) < 0) {
			if (m)
				munmap(m, (size_t)sb.st_size);
			free(p);
			return -1;
		}
		r->dfiles[r->nr_dfiles].path = p;
		r->dfiles[r->nr_dfiles].map = m;
		r->dfiles[r->nr_dfiles].size = (size_t)sb.st_size;
		r->dfiles[r->nr_dfiles++].chunk0 = 0;
	}
}

int collect_pdread_open(const char *path, struct collect_pdread **out)
{
	struct collect_pdread *r;
	struct pd_file_header h;
	struct stat stbuf;
	char *head = NULL;
	int is_dir = 0;
	void *m;

	*out = NULL;
	r = pgo_calloc(1, sizeof(*r));
	if (!r)
		return -1;
	r->fd = -1;
	r->hold_c = 1;
	{
		long pg = sysconf(_SC_PAGESIZE);

		/* chunks must be whole pages, else nothing is released */
		if (pg > 0 && !(pg & (pg - 1)) && pg <= (1L << PD_CHUNK_SHIFT))
			r->page = (size_t)pg;
	}
	r->path = pgo_strdup(path);
	if (!r->path)
		goto fail;
	r->where = r->path;
	if (stat(path, &stbuf) == 0 && S_ISDIR(stbuf.st_mode)) {
		/* perf record --threads: the header and its data section in DIR/data */
		if (asprintf(&head, "%s/data", path) < 0) {
			head = NULL;
			pgo_error("out of memory");
			goto fail;
		}
		is_dir = 1;
	}
	r->fd = open(head ? head : path, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0) {
		if (is_dir && errno == ENOENT)
			pgo_error("'%s' is a directory without a 'data' file: not a perf.data directory "
				  "(perf record --threads)", path);
		else
			pgo_error_errno("cannot open '%s'", head ? head : path);
		goto fail;
	}
	if (fstat(r->fd, &stbuf) < 0) {
		pgo_error_errno("cannot stat '%s'", path);
		goto fail;
	}
	if (!S_ISREG(stbuf.st_mode)) {
		pgo_error("'%s' is not a regular file", path);
		goto fail;
	}
	r->size = stbuf.st_size;
	if (!r->size) {
		pgo_error("'%s' is empty (was the recording interrupted?)", path);
		goto fail;
	}
	m = mmap(NULL, r->size, PROT_READ, MAP_PRIVATE, r->fd, 0);
	if (m == MAP_FAILED) {
		pgo_error_errno("cannot map '%s'", path);
		goto fail;
	}
	r->map = m;
	if (check_header(r, &h) < 0 || parse_attrs(r, &h) < 0 || parse_features(r, &h) < 0 ||
	    (is_dir && open_dfiles(r, &h) < 0) || index_records(r) < 0)
		goto fail;
	free(head);
	*out = r;
	return 0;
fail:
	free(head);
	collect_pdread_free(r);
	return -1;
}

void collect_pdread_free(struct collect_pdread *r)
{
	size_t i;

	if (!r)
		return;
	if (r->map)
		munmap((void *)r->map, r->size);
	if (r->fd >= 0)
		close(r->fd);
	for (i = 0; i < r->nr_attrs; i++) {
		if (r->names)
			free(r->names[i]);
		if (r->ids)
			free(r->ids[i]);
	}
	free(r->names);
	free(r->ids);
	free(r->attrs);
	free(r->layout);
	pgo_u64map_release(&r->id2attr);
	free(r->cmdline);
	free(r->pgo_meta);
	free(r->argv0);
	free(r->bids);
	free(r->recs);
	free(r->chunk_left);
	free(r->chunk_live);
	collect_pdzstd_free(r->z);
	for (i = 0; i < r->nr_dfiles; i++) {
		if (r->dfiles[i].map)
			munmap((void *)r->dfiles[i].map, r->dfiles[i].size);
		free(r->dfiles[i].path);
	}
	free(r->dfiles);
	free(r->zpieces);
	for (i = 0; i < r->nr_copies; i++)
		free(r->copies[i].bytes);
	free(r->copies);
	free(r->path);
	free(r);
}

/* Cursor over a record body with bounds checks. */
struct cur {
	const uint8_t *p, *end;
	int bad;
};

static uint64_t cur64(struct cur *c)
{
	uint64_t v;

	if (c->end - c->p < 8) {
		c->bad = 1;
		return 0;
	}
	v = rd64(c->p);
	c->p += 8;
	return v;
}

/* cur64 where the caller has checked that 8 bytes are left */
static uint64_t next64(struct cur *c)
{
	uint64_t v = rd64(c->p);

	c->p += 8;
	return v;
}

static const void *cur_bytes(struct cur *c, uint64_t n)
{
	const void *p = c->p;

	if ((uint64_t)(c->end - c->p) < n) {
		c->bad = 1;
		return NULL;
	}
	c->p += n;
	return p;
}

static int read_format_size(uint64_t rf, struct cur *c)
{
	uint64_t per = 8 * (1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST));
	uint64_t nr = 1;

	if (rf & PERF_FORMAT_GROUP)
		nr = cur64(c);
	if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
		cur64(c);
	if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
		cur64(c);
	if (c->bad || nr > (uint64_t)(c->end - c->p) / per)
		return -1;
	c->p += nr * per;
	return 0;
}

static int parse_sample(struct collect_pdread *r, const uint8_t *rec, uint16_t size,
			struct collect_pd_event *ev)
{
	struct collect_pd_sample *s = &ev->u.sample;
	const struct collect_pd_attr *a = ev->attr;
	struct cur c = { rec + 8, rec + size, 0 };
	uint64_t st, v;

	if (!a)
		return pgo_error("'%s': sample at offset %llu has an unknown event id", r->where,
				 (unsigned long long)ev->offset);
	st = a->attr.sample_type;
	s->attr = a;
	s->attr_index = r->nr_attrs == 1 ? 0 : (size_t)(a - r->attrs);
	s->sample_type = st;
	s->cpumode = ev->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	/*
	 * Every field is written here, absent ones as 0, rather than the whole sample cleared
	 * first: clearing its 232 bytes was 33 instructions of the ~220 a sample took to read.
	 * The u64 fields up to PERIOD are all there or the sample is short: one check for them.
	 */
	if ((uint64_t)size - 8 < r->layout[s->attr_index].sample_fixed)
		goto bad;
	s->id = (st & PERF_SAMPLE_IDENTIFIER) ? next64(&c) : 0;
	s->ip = (st & PERF_SAMPLE_IP) ? next64(&c) : 0;
	if (st & PERF_SAMPLE_TID) {
		v = next64(&c);
		memcpy(&s->pid, &v, 4);
		memcpy(&s->tid, (const uint8_t *)&v + 4, 4);
	} else {
		s->pid = s->tid = 0;
	}
	s->time = (st & PERF_SAMPLE_TIME) ? next64(&c) : 0;
	s->addr = (st & PERF_SAMPLE_ADDR) ? next64(&c) : 0;
	if (st & PERF_SAMPLE_ID)
		s->id = next64(&c);
	s->stream_id = (st & PERF_SAMPLE_STREAM_ID) ? next64(&c) : 0;
	if (st & PERF_SAMPLE_CPU) {
		v = next64(&c);
		memcpy(&s->cpu, &v, 4);
	} else {
		s->cpu = 0;
	}
	s->period = (st & PERF_SAMPLE_PERIOD) ? next64(&c) : 0;
	if ((st & PERF_SAMPLE_READ) && read_format_size(a->attr.read_format, &c) < 0)
		goto bad;
	s->nr_callchain = 0;
	s->callchain = NULL;
	if (st & PERF_SAMPLE_CALLCHAIN) {
		s->nr_callchain = cur64(&c);
		if (c.bad || s->nr_callchain > (uint64_t)(c.end - c.p) / 8)
			goto bad;
		s->callchain = (const uint64_t *)c.p;
		c.p += s->nr_callchain * 8;
	}
	/* the fields from weight on, which most recordings lack: cleared together */
	s->weight = s->data_src = s->transaction = s->phys_addr = 0;
	s->raw_size = 0;
	s->raw = NULL;
	s->nr_branches = 0;
	s->branches = NULL;
	s->user_regs_abi = s->user_regs_mask = 0;
	s->nr_user_regs = 0;
	s->user_regs = NULL;
	s->user_stack_size = s->user_stack_dyn_size = 0;
	s->user_stack = NULL;
	/* most recordings have none of the rest: one test instead of ten */
	if (!(st & (PERF_SAMPLE_RAW | PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_REGS_USER |
		    PERF_SAMPLE_STACK_USER | PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT |
		    PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_TRANSACTION | PERF_SAMPLE_REGS_INTR |
		    PERF_SAMPLE_PHYS_ADDR)))
		goto done;
	if (st & PERF_SAMPLE_RAW) {
		if (c.end - c.p < 4)
			goto bad;
		s->raw_size = rd32(c.p);
		c.p += 4;
		s->raw = cur_bytes(&c, s->raw_size);
		if (c.bad)
			goto bad;
		/* u32 size + data are padded together to 8 bytes */
		c.p = rec + 8 + (((c.p - (rec + 8)) + 7) & ~(uint64_t)7);
		if (c.p > c.end)
			goto bad;
	}
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		s->nr_branches = cur64(&c);
		if (a->attr.branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX)
			cur64(&c);
		if (c.bad || s->nr_branches > (uint64_t)(c.end - c.p) / sizeof(struct perf_branch_entry))
			goto bad;
		s->branches = (const struct perf_branch_entry *)c.p;
		c.p += s->nr_branches * sizeof(struct perf_branch_entry);
	}
	if (st & PERF_SAMPLE_REGS_USER) {
		s->user_regs_abi = cur64(&c);
		s->user_regs_mask = a->attr.sample_regs_user;
		if (s->user_regs_abi) {
			s->nr_user_regs = __builtin_popcountll(s->user_regs_mask);
			s->user_regs = cur_bytes(&c, 8 * (uint64_t)s->nr_user_regs);
		}
	}
	if (st & PERF_SAMPLE_STACK_USER) {
		s->user_stack_size = cur64(&c);
		if (c.bad)
			goto bad;
		s->user_stack = cur_bytes(&c, s->user_stack_size);
		if (c.bad)
			goto bad;
		if (s->user_stack_size) {
			/* the kernel pads the copy to 8 bytes */
			if (s->user_stack_size % 8)
				goto bad;
			s->user_stack_dyn_size = cur64(&c);
			if (s->user_stack_dyn_size > s->user_stack_size)
				s->user_stack_dyn_size = s->user_stack_size;
		}
	}
	if (st & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT))
		s->weight = cur64(&c);
	if (st & PERF_SAMPLE_DATA_SRC)
		s->data_src = cur64(&c);
	if (st & PERF_SAMPLE_TRANSACTION)
		s->transaction = cur64(&c);
	if (st & PERF_SAMPLE_REGS_INTR) {
		if (cur64(&c))
			cur_bytes(&c, 8 * (uint64_t)__builtin_popcountll(a->attr.sample_regs_intr));
	}
	if (st & PERF_SAMPLE_PHYS_ADDR)
		s->phys_addr = cur64(&c);
done:
	if (c.bad)
		goto bad;
	ev->time = (st & PERF_SAMPLE_TIME) ? s->time : ev->time;
	return 0;
bad:
	return pgo_error("'%s': sample at offset %llu is shorter than its fields (corrupt file)",
			 r->where, (unsigned long long)ev->offset);
}

/* Body end of a non-sample record: before the sample_id_all trailer. */
static const uint8_t *body_end(const struct collect_pdread *r, const struct collect_pd_event *ev,
			       const uint8_t *rec, uint16_t size)
{
	unsigned ts = r->layout[ev->attr ? (size_t)(ev->attr - r->attrs) : 0].trailer;

	if (ts + 8 > size)
		return rec + 8;
	return rec + size - ts;
}

static const char *record_string(const uint8_t *p, const uint8_t *end)
{
	if (p >= end || !memchr(p, '\0', end - p))
		return NULL;
	return (const char *)p;
}

static inline int parse_record(struct collect_pdread *r, const uint8_t *rec, uint16_t size,
			       struct collect_pd_event *ev)
{
	const uint8_t *end, *p = rec + 8;
	size_t body;

	/* ev->u is cleared here, one member, not the whole event per record (its largest
	 * member, the sample, is what nearly every record is: parse_sample() writes each of
	 * its fields) */
	if (ev->type == PERF_RECORD_SAMPLE) {
		r->stats.samples++;
		return parse_sample(r, rec, size, ev);
	}
	end = body_end(r, ev, rec, size);
	body = end - p;
	switch (ev->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2: {
		struct collect_pd_mmap *m = &ev->u.mmap;
		size_t fixed = ev->type == PERF_RECORD_MMAP ? 32 : 32 + 24 + 8;

		*m = (struct collect_pd_mmap){ 0 };

		if (body < fixed + 1)
			goto bad;
		m->pid = rd32(p);
		m->tid = rd32(p + 4);
		m->start = rd64(p + 8);
		m->len = rd64(p + 16);
		m->pgoff = rd64(p + 24);
		m->executable = !(ev->misc & PERF_RECORD_MISC_MMAP_DATA);
		if (ev->type == PERF_RECORD_MMAP2) {
			if (ev->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
				m->has_build_id = 1;
				m->build_id_size = p[32];
				if (m->build_id_size > 20)
					m->build_id_size = 20;
				memcpy(m->build_id, p + 36, 20);
			} else {
				m->maj = rd32(p + 32);
				m->min = rd32(p + 36);
				m->ino = rd64(p + 40);
				m->ino_generation = rd64(p + 48);
			}
			m->prot = rd32(p + 56);
			m->flags = rd32(p + 60);
		}
		m->filename = record_string(p + fixed, end);
		if (!m->filename)
			goto bad;
		r->stats.mmaps++;
		return 0;
	}
	case PERF_RECORD_COMM:
		if (body < 9)
			goto bad;
		ev->u.comm = (struct collect_pd_comm){ 0 };
		ev->u.comm.pid = rd32(p);
		ev->u.comm.tid = rd32(p + 4);
		ev->u.comm.exec = !!(ev->misc & PERF_RECORD_MISC_COMM_EXEC);
		ev->u.comm.comm = record_string(p + 8, end);
		if (!ev->u.comm.comm)
			goto bad;
		r->stats.comms++;
		return 0;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		if (body < 24)
			goto bad;
		ev->u.task.pid = rd32(p);
		ev->u.task.ppid = rd32(p + 4);
		ev->u.task.tid = rd32(p + 8);
		ev->u.task.ptid = rd32(p + 12);
		ev->u.task.time = rd64(p + 16);
		if (ev->type == PERF_RECORD_FORK)
			r->stats.forks++;
		else
			r->stats.exits++;
		return 0;
	case PERF_RECORD_LOST:
		if (body < 16)
			goto bad;
		ev->u.lost.id = rd64(p);
		ev->u.lost.lost = rd64(p + 8);
		r->stats.lost_records++;
		r->stats.lost += ev->u.lost.lost;
		return 0;
	case PERF_RECORD_LOST_SAMPLES:
		if (body < 8)
			goto bad;
		ev->u.lost.id = 0;
		ev->u.lost.lost = rd64(p);
		r->stats.lost_samples += ev->u.lost.lost;
		return 0;
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		if (body < 24)
			goto bad;
		ev->u.throttle.time = rd64(p);
		ev->u.throttle.id = rd64(p + 8);
		ev->u.throttle.stream_id = rd64(p + 16);
		if (ev->type == PERF_RECORD_THROTTLE)
			r->stats.throttles++;
		return 0;
	default:
		return 1;
	}
bad:
	return pgo_error("'%s': malformed record (type %u, %u bytes) at offset %llu", r->where,
			 ev->type, size, (unsigned long long)ev->offset);
}

int collect_pdread_next(struct collect_pdread *r, struct collect_pd_event *ev)
{
	struct collect_pdread_stats save;

	chunks_passed(r, r->hold_c, r->hold_e);
	r->hold_c = 1;
	r->hold_e = 0;
	while (r->pos < r->nr_recs) {
		const struct pd_rec *pr = &r->recs[r->pos++];
		uint64_t loc = rec_off(pr);
		uint16_t size = rec_size(pr);
		int counting = r->pos > r->stats_pos;
		const uint8_t *rec;
		size_t c, e;
		int ret;

		rec_chunks(r, pr, &c, &e);
		chunks_touch(r, c, e);
		/* parse_record() clears the member of ev->u it fills */
		if (!(loc & PD_LOC_TAG)) {
			/* the recording's own records, the common case: no dispatch on the tag */
			rec = r->map + loc;
			ev->offset = loc;
			r->where = r->path;
		} else {
			rec = rec_at(r, loc);
			ev->offset = file_offset(r, loc, &r->where);
		}
		ev->type = rd32(rec);
		ev->misc = rd16(rec + 4);
		ev->time = pr->time;
		if (counting) {
			r->stats_pos = r->pos;
			r->stats.records++;
			if (ev->type < PGO_ARRAY_SIZE(r->stats.by_type))
				r->stats.by_type[ev->type]++;
			if (!(ev->type >= 1 && ev->type <= 21) && !(ev->type >= 64 && ev->type <= 83))
				r->stats.unknown++;
		}
		if (ev->type >= 64) {
			chunks_passed(r, c, e);
			continue;
		}
		ev->attr = record_attr(r, rec, ev->type, size);
		/* one call, inline: the statistics of a second walk are put back after it */
		if (!counting)
			save = r->stats;
		ret = parse_record(r, rec, size, ev);
		if (!counting)
			r->stats = save;
		if (ret == 0) {
			r->hold_c = c;
			r->hold_e = e;
			return 1;
		}
		chunks_passed(r, c, e);
		if (ret < 0)
			return -1;
	}
	return 0;
}

void collect_pdread_rewind(struct collect_pdread *r)
{
	r->pos = 0;
	r->hold_c = 1;
	r->hold_e = 0;
	chunks_reset(r);
}

const char *collect_pdread_path(const struct collect_pdread *r)
{
	return r->path;
}

size_t collect_pdread_nr_attrs(const struct collect_pdread *r)
{
	return r->nr_attrs;
}

int collect_attr_is_ns_clock(const struct perf_event_attr *attr)
{
	return attr->type == PERF_TYPE_SOFTWARE &&
	       (attr->config == PERF_COUNT_SW_TASK_CLOCK || attr->config == PERF_COUNT_SW_CPU_CLOCK);
}

const struct collect_pd_attr *collect_pdread_attr(const struct collect_pdread *r, size_t i)
{
	return i < r->nr_attrs ? &r->attrs[i] : NULL;
}

const char *collect_pdread_pgo_meta(const struct collect_pdread *r)
{
	return r->pgo_meta;
}

const char *collect_pdread_cmdline(const struct collect_pdread *r)
{
	return r->cmdline;
}

const char *collect_pdread_argv0(const struct collect_pdread *r)
{
	return r->argv0;
}

size_t collect_pdread_nr_build_ids(const struct collect_pdread *r)
{
	return r->nr_bids;
}

const struct collect_pd_build_id *collect_pdread_build_id(const struct collect_pdread *r, size_t i)
{
	return i < r->nr_bids ? &r->bids[i] : NULL;
}

const struct collect_pdread_stats *collect_pdread_stats(const struct collect_pdread *r)
{
	return &r->stats;
}
