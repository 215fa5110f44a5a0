// SPDX-License-Identifier: MIT
/*
 * The perf.data header's attrs and feature sections (build-ids, cmdline, event names,
 * compression), checked against the file's size (collect/pdread_internal.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/pdread.h"
#include "collect/pdread_internal.h"
#include "lib/alloc.h"
#include "lib/buf.h"
#include "lib/report.h"

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
int collect_pd_in_file(const struct collect_pdread *r, uint64_t off, uint64_t len)
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

int collect_pd_parse_features(struct collect_pdread *r, const struct pd_file_header *h)
{
	uint64_t sec = r->data_end;
	int bit;

	for (bit = 0; bit < PD_FEAT_BITS; bit++) {
		uint64_t off, size;
		int err = 0;

		if (!(h->adds_features[bit / 64] & (1ULL << (bit % 64))))
			continue;
		if (!collect_pd_in_file(r, sec, 16))
			return pgo_error("'%s': feature table at offset %llu runs past the end of the file "
					 "(truncated?)", r->path, (unsigned long long)sec);
		off = rd64(r->map + sec);
		size = rd64(r->map + sec + 8);
		if (!collect_pd_in_file(r, off, size))
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

int collect_pd_parse_attrs(struct collect_pdread *r, const struct pd_file_header *h)
{
	uint64_t asz = h->attr_size, i;

	if (asz < 16 + PERF_ATTR_SIZE_VER0 || asz > PD_MAX_ATTR_SIZE)
		return pgo_error("'%s': unsupported attr size %llu in the header", r->path,
				 (unsigned long long)asz);
	if (!h->attrs.size || h->attrs.size % asz || !collect_pd_in_file(r, h->attrs.offset, h->attrs.size))
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
		if (ids_size % 8 || !collect_pd_in_file(r, ids_off, ids_size))
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
