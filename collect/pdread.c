// SPDX-License-Identifier: MIT
/*
 * perf.data reader (collect/pdread.h). The file is mapped read-only; open() checks the
 * header, attrs, features and every record header once, then sorts a small index of
 * (time, offset, size) entries, so next() only has to parse one record at a time. This
 * file is next(); pdread_index.c is open(), pdread_header.c the header's sections.
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
#include <string.h>
#include <sys/mman.h>

#include "collect/pdread.h"
#include "collect/pdread_internal.h"
#include "lib/alloc.h"
#include "lib/buf.h"
#include "lib/report.h"

/*
 * Drop the pages of [lo, hi) of a mapping (the recording's, a data file's or the
 * decompressed records'), none at or past the page holding `end`: the recording's feature
 * sections follow its data section and are read during the walk (build-id file names).
 */
void collect_pd_drop_pages(struct collect_pdread *r, const uint8_t *map, uint64_t lo, uint64_t hi,
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
	collect_pd_drop_pages(r, map, (uint64_t)(c - c0) << PD_CHUNK_SHIFT, (uint64_t)(c - c0 + 1) << PD_CHUNK_SHIFT,
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
void collect_pd_chunks_reset(struct collect_pdread *r)
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

/*
 * The fields of a sample from RAW on, which most recordings lack (s's are cleared): c
 * past the callchain. 0, or -1 if the sample is shorter than they are.
 */
static inline int parse_sample_rest(const struct collect_pd_attr *a, struct collect_pd_sample *s,
				    struct cur *c, const uint8_t *rec, uint64_t st)
{
	if (st & PERF_SAMPLE_RAW) {
		if (c->end - c->p < 4)
			return -1;
		s->raw_size = rd32(c->p);
		c->p += 4;
		s->raw = cur_bytes(c, s->raw_size);
		if (c->bad)
			return -1;
		/* u32 size + data are padded together to 8 bytes */
		c->p = rec + 8 + (((c->p - (rec + 8)) + 7) & ~(uint64_t)7);
		if (c->p > c->end)
			return -1;
	}
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		s->nr_branches = cur64(c);
		if (a->attr.branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX)
			cur64(c);
		if (c->bad || s->nr_branches > (uint64_t)(c->end - c->p) / sizeof(struct perf_branch_entry))
			return -1;
		s->branches = (const struct perf_branch_entry *)c->p;
		c->p += s->nr_branches * sizeof(struct perf_branch_entry);
	}
	if (st & PERF_SAMPLE_REGS_USER) {
		s->user_regs_abi = cur64(c);
		s->user_regs_mask = a->attr.sample_regs_user;
		if (s->user_regs_abi) {
			s->nr_user_regs = __builtin_popcountll(s->user_regs_mask);
			s->user_regs = cur_bytes(c, 8 * (uint64_t)s->nr_user_regs);
		}
	}
	if (st & PERF_SAMPLE_STACK_USER) {
		s->user_stack_size = cur64(c);
		if (c->bad)
			return -1;
		s->user_stack = cur_bytes(c, s->user_stack_size);
		if (c->bad)
			return -1;
		if (s->user_stack_size) {
			/* the kernel pads the copy to 8 bytes */
			if (s->user_stack_size % 8)
				return -1;
			s->user_stack_dyn_size = cur64(c);
			if (s->user_stack_dyn_size > s->user_stack_size)
				s->user_stack_dyn_size = s->user_stack_size;
		}
	}
	if (st & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT))
		s->weight = cur64(c);
	if (st & PERF_SAMPLE_DATA_SRC)
		s->data_src = cur64(c);
	if (st & PERF_SAMPLE_TRANSACTION)
		s->transaction = cur64(c);
	if (st & PERF_SAMPLE_REGS_INTR) {
		if (cur64(c))
			cur_bytes(c, 8 * (uint64_t)__builtin_popcountll(a->attr.sample_regs_intr));
	}
	if (st & PERF_SAMPLE_PHYS_ADDR)
		s->phys_addr = cur64(c);
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
	if (parse_sample_rest(a, s, &c, rec, st) < 0)
		goto bad;
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

/* An MMAP or MMAP2 record's body [p, end) into ev->u.mmap. 0, or -1 if malformed. */
static inline int parse_mmap(struct collect_pdread *r, struct collect_pd_event *ev, const uint8_t *p,
			     const uint8_t *end, size_t body)
{
	struct collect_pd_mmap *m = &ev->u.mmap;
	size_t fixed = ev->type == PERF_RECORD_MMAP ? 32 : 32 + 24 + 8;

	*m = (struct collect_pd_mmap){ 0 };

	if (body < fixed + 1)
		return -1;
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
		return -1;
	r->stats.mmaps++;
	return 0;
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
	case PERF_RECORD_MMAP2:
		if (parse_mmap(r, ev, p, end, body) < 0)
			goto bad;
		return 0;
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
	collect_pd_chunks_reset(r);
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
