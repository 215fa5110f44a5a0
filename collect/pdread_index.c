// SPDX-License-Identifier: MIT
/*
 * Opening a perf.data file (collect/pdread.h): its header checked, every record header
 * walked once into an index sorted by time (decompressing perf record -z's records and
 * reading perf record --threads' data files on the way), and freeing it.
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
#include "collect/pdread_internal.h"
#include "lib/alloc.h"
#include "lib/buf.h"
#include "lib/report.h"

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

			collect_pd_drop_pages(r, map, dropped, to, end);
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
	collect_pd_chunks_reset(r);
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
	if (!collect_pd_in_file(r, h->data.offset, h->data.size))
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
	if (check_header(r, &h) < 0 || collect_pd_parse_attrs(r, &h) < 0 || collect_pd_parse_features(r, &h) < 0 ||
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
