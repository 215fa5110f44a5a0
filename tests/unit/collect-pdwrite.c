// SPDX-License-Identifier: MIT
/* The perf.data writer: layout of what it writes, build-id table, metadata, atomicity,
 * compression (-z). */
#include <dirent.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zstd.h>

#include "collect/pdformat.h"
#include "collect/pdread.h"
#include "collect/pdwrite.h"
#include "lib/atomicfile.h"
#include "tests/unit/test.h"

static char dir[] = "/tmp/pgo-unit-pdwrite.XXXXXX";

static int count_files(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static void attr_init(struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_TASK_CLOCK;
	a->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	a->sample_id_all = 1;
}

struct sample {
	struct perf_event_header h;
	uint64_t id, ip;
	uint32_t pid, tid;
	uint64_t time;
};

static void sample_init(struct sample *s, uint64_t id, uint64_t time)
{
	memset(s, 0, sizeof(*s));
	s->h.type = PERF_RECORD_SAMPLE;
	s->h.size = sizeof(*s);
	s->id = id;
	s->ip = 0x401000;
	s->pid = s->tid = 42;
	s->time = time;
}

/* An MMAP2 with a build-id, laid out as the kernel writes it. */
struct mmap2 {
	struct perf_event_header h;
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	uint8_t bid_size, r1;
	uint16_t r2;
	uint8_t bid[20];
	uint32_t prot, flags;
	char filename[16];
	uint32_t spid, stid;
	uint64_t stime;
	uint64_t sid;
};

static int test_layout(void)
{
	struct collect_writer *w;
	struct perf_event_attr a;
	struct sample s1, s2;
	struct mmap2 m;
	const struct pd_file_header *h;
	const struct pd_file_section *secs, *ids;
	const struct perf_event_attr *fa;
	const uint64_t *idv;
	uint64_t st[2];
	char path[256], *data;
	size_t len, i, nsec = 0, meta_i = 0, bid_i = 0, st_i = 0;
	uint64_t want_ids[] = { 7, 8 };
	int idx, feat;

	snprintf(path, sizeof(path), "%s/a.data", dir);
	attr_init(&a);
	T_ASSERT(!collect_writer_open(&w, path));
	idx = collect_writer_add_attr(w, &a, "task-clock");
	T_ASSERT(idx == 0);
	T_ASSERT(!collect_writer_add_ids(w, idx, want_ids, 2));
	memset(&m, 0, sizeof(m));
	m.h.type = PERF_RECORD_MMAP2;
	m.h.misc = PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_BUILD_ID;
	m.h.size = sizeof(m);
	m.bid_size = 20;
	memset(m.bid, 0xab, 20);
	strcpy(m.filename, "/bin/bench");
	m.sid = 7;
	T_ASSERT(!collect_writer_record(w, &m.h));
	sample_init(&s1, 8, 2000);
	sample_init(&s2, 7, 1000);
	T_ASSERT(!collect_writer_record(w, &s1.h));
	T_ASSERT(!collect_writer_record(w, &s2.h));
	T_ASSERT(!collect_writer_round(w));
	T_ASSERT(!collect_writer_meta(w, "run index=%d pid=%d", 1, 42));
	T_ASSERT(!collect_writer_commit(w));

	T_ASSERT(!pgo_read_file(path, 1 << 20, &data, &len));
	h = (const void *)data;
	T_ASSERT(len > sizeof(*h));
	T_ASSERT(!memcmp(h->magic, PD_MAGIC, 8));
	T_ASSERT_EQ_U64(h->size, 104);
	T_ASSERT_EQ_U64(h->attr_size, sizeof(struct perf_event_attr) + 16);
	T_ASSERT_EQ_U64(h->data.offset, 104);
	T_ASSERT_EQ_U64(h->data.size, sizeof(m) + 2 * sizeof(s1) + 8);
	T_ASSERT_EQ_U64(h->attrs.size, h->attr_size);
	T_ASSERT(h->attrs.offset + h->attrs.size <= len);
	T_ASSERT(h->attrs.offset % 8 == 0);
	fa = (const void *)(data + h->attrs.offset);
	T_ASSERT_EQ_U64(fa->sample_type, a.sample_type);
	T_ASSERT_EQ_U64(fa->size, sizeof(*fa));
	ids = (const void *)(data + h->attrs.offset + sizeof(*fa));
	T_ASSERT_EQ_U64(ids->size, 16);
	idv = (const void *)(data + ids->offset);
	T_ASSERT_EQ_U64(idv[0], 7);
	T_ASSERT_EQ_U64(idv[1], 8);
	/* the feature table follows the data, one section per bit in bit order */
	secs = (const void *)(data + h->data.offset + h->data.size);
	for (feat = 0; feat < PD_FEAT_BITS; feat++) {
		if (!(h->adds_features[feat / 64] & (1ULL << (feat % 64))))
			continue;
		if (feat == PD_FEAT_PGO_META)
			meta_i = nsec;
		if (feat == PD_FEAT_BUILD_ID)
			bid_i = nsec;
		if (feat == PD_FEAT_SAMPLE_TIME)
			st_i = nsec;
		nsec++;
	}
	T_ASSERT(nsec >= 8);
	for (i = 0; i < nsec; i++)
		T_ASSERT(secs[i].offset + secs[i].size <= len);
	T_ASSERT(strstr(data + secs[meta_i].offset + 4, "run index=1 pid=42\n"));
	T_ASSERT(memmem(data + secs[bid_i].offset, secs[bid_i].size, "/bin/bench", 10));
	T_ASSERT(secs[bid_i].size == sizeof(struct pd_build_id_event) + 64);
	memcpy(st, data + secs[st_i].offset, sizeof(st)); /* feature payloads are not aligned */
	T_ASSERT_EQ_U64(st[0], 1000);
	T_ASSERT_EQ_U64(st[1], 2000);
	free(data);
	unlink(path);
	return T_OK;
}

/*
 * -z: 4000 samples of 200 bytes (800 KB, past three batches) and an MMAP2, compressed:
 * the reader gives back every record; each compressed record decompresses, fed to one
 * zstd stream as perf 6.1 feeds it, to no more than the buffer HEADER_COMPRESSED declares,
 * in one call; and the file is smaller than the records.
 */
struct big_sample {
	struct sample s;
	uint64_t pad[19];
};

static int test_compressed(void)
{
	struct collect_writer *w;
	struct collect_pdread *r;
	struct collect_pd_event ev;
	struct perf_event_attr a;
	struct big_sample b;
	struct mmap2 m;
	const struct pd_file_header *h;
	struct pd_file_section zsec;
	char path[256], *data;
	uint32_t comp[5];
	uint64_t raw, n = 0, last = 0, off, nrec = 0;
	size_t len, i, nsec = 0, zi = 0;
	ZSTD_DStream *ds;
	char *dst;
	int feat;

	snprintf(path, sizeof(path), "%s/z.data", dir);
	attr_init(&a);
	T_ASSERT(!collect_writer_open(&w, path));
	T_ASSERT(!collect_writer_compress(w, 3));
	T_ASSERT(collect_writer_add_attr(w, &a, "task-clock") == 0);
	T_ASSERT(!collect_writer_add_ids(w, 0, (uint64_t[]){ 7 }, 1));
	memset(&m, 0, sizeof(m));
	m.h.type = PERF_RECORD_MMAP2;
	m.h.misc = PERF_RECORD_MISC_USER;
	m.h.size = sizeof(m);
	strcpy(m.filename, "/bin/bench");
	m.sid = 7;
	T_ASSERT(!collect_writer_record(w, &m.h));
	for (i = 0; i < 4000; i++) {
		memset(&b, 0, sizeof(b));
		sample_init(&b.s, 7, 1000 + i);
		b.s.h.size = sizeof(b);
		b.s.ip = 0x400000 + (i % 97) * 16;
		T_ASSERT(!collect_writer_record(w, &b.s.h));
		if (i % 1000 == 999)
			T_ASSERT(!collect_writer_round(w));
	}
	raw = collect_writer_raw_size(w);
	T_ASSERT(!collect_writer_commit(w));

	T_ASSERT(collect_pdread_open(path, &r) == 0);
	while (collect_pdread_next(r, &ev) > 0) {
		if (ev.type == PERF_RECORD_MMAP2) {
			T_ASSERT_STR(ev.u.mmap.filename, "/bin/bench");
			continue;
		}
		T_ASSERT_EQ_U64(ev.type, PERF_RECORD_SAMPLE);
		T_ASSERT(ev.time > last);
		last = ev.time;
		T_ASSERT_EQ_U64(ev.u.sample.ip, 0x400000 + (n % 97) * 16);
		n++;
	}
	T_ASSERT_EQ_U64(n, 4000);
	T_ASSERT(collect_pdread_stats(r)->compressed >= 4);
	collect_pdread_free(r);

	T_ASSERT(!pgo_read_file(path, 1 << 24, &data, &len));
	T_ASSERT(len * 4 < raw);
	h = (const void *)data;
	for (feat = 0; feat < PD_FEAT_BITS; feat++) {
		if (!(h->adds_features[feat / 64] & (1ULL << (feat % 64))))
			continue;
		if (feat == PD_FEAT_COMPRESSED)
			zi = nsec + 1;
		nsec++;
	}
	/* the table follows the data, whose compressed size need not be a multiple of 8 */
	T_ASSERT(zi);
	memcpy(&zsec, data + h->data.offset + h->data.size + (zi - 1) * sizeof(zsec), sizeof(zsec));
	T_ASSERT_EQ_U64(zsec.size, sizeof(comp));
	memcpy(comp, data + zsec.offset, sizeof(comp));
	T_ASSERT(comp[1] == 1 && comp[2] == 3);      /* zstd, level 3 */
	ds = ZSTD_createDStream();
	ZSTD_initDStream(ds);
	dst = malloc(comp[4]);
	T_ASSERT(dst);
	for (off = h->data.offset; off < h->data.offset + h->data.size;) {
		struct perf_event_header rh;

		memcpy(&rh, data + off, sizeof(rh));
		if (rh.type == PD_RECORD_COMPRESSED) {
			ZSTD_inBuffer in = { data + off + 8, rh.size - 8u, 0 };
			ZSTD_outBuffer o = { dst, comp[4], 0 };

			T_ASSERT(!ZSTD_isError(ZSTD_decompressStream(ds, &o, &in)));
			T_ASSERT(in.pos == in.size && o.pos < o.size);
			nrec++;
		}
		off += rh.size;
	}
	fprintf(stderr, "# %llu KB of records in a %zu KB file, %llu compressed records, "
		"decompression buffer %u KB\n", (unsigned long long)(raw >> 10), len >> 10,
		(unsigned long long)nrec, comp[4] >> 10);
	ZSTD_freeDStream(ds);
	free(dst);
	free(data);
	unlink(path);
	return T_OK;
}

static int test_abort_leaves_nothing(void)
{
	struct collect_writer *w;
	struct perf_event_attr a;
	struct sample s;
	char path[256];

	snprintf(path, sizeof(path), "%s/b.data", dir);
	attr_init(&a);
	T_ASSERT(!collect_writer_open(&w, path));
	T_ASSERT(collect_writer_add_attr(w, &a, "task-clock") == 0);
	sample_init(&s, 1, 1);
	T_ASSERT(!collect_writer_record(w, &s.h));
	T_ASSERT(count_files() == 1); /* the temporary file */
	collect_writer_abort(w);
	T_ASSERT(count_files() == 0);
	collect_writer_abort(NULL);
	return T_OK;
}

static int test_no_attr_is_an_error(void)
{
	struct collect_writer *w;
	char path[256];

	snprintf(path, sizeof(path), "%s/c.data", dir);
	T_ASSERT(!collect_writer_open(&w, path));
	T_ASSERT(collect_writer_commit(w) == -1);
	T_ASSERT(count_files() == 0);
	return T_OK;
}

static int test_bad_directory(void)
{
	struct collect_writer *w = (void *)1;

	T_ASSERT(collect_writer_open(&w, "/nonexistent-pgo-dir/x.data") == -1);
	T_ASSERT(w == NULL);
	T_ASSERT(collect_writer_open(&w, "-") == -1);
	return T_OK;
}

static int setup(void)
{
	T_ASSERT(mkdtemp(dir));
	return T_OK;
}

static int teardown(void)
{
	T_ASSERT(!rmdir(dir));
	return T_OK;
}

static const struct t_case cases[] = {
	{ "setup", setup },
	{ "layout: header, attrs+ids, feature table after data, sample time, build-ids, meta", test_layout },
	{ "-z: compressed records the reader and perf 6.1's decompression take", test_compressed },
	{ "abort leaves no file", test_abort_leaves_nothing },
	{ "commit without an attr fails and leaves no file", test_no_attr_is_an_error },
	{ "unwritable directory and stdout are refused", test_bad_directory },
	{ "teardown", teardown },
};
T_MAIN(cases)
