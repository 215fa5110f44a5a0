// SPDX-License-Identifier: MIT
/*
 * The perf.data reader on hand-built files: a valid one (records delivered in time
 * order, fields parsed per sample_type, features read), and bad ones that must be
 * rejected with an error, never a crash: bad magic, byte-swapped, truncated, a zero
 * or oversized record, a callchain longer than its record, bad compressed data; plus
 * random corruption of a valid file, plain and compressed. Compressed files (perf record -z, both record
 * types) deliver the records of the same file uncompressed. A 25 MB file is read with at most 7 MB of it
 * resident (the mapping's Rss in /proc/self/smaps).
 */
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "collect/pdread.h"
#include "lib/alloc.h"
#include "lib/buf.h"
#include "lib/report.h"
#include "pdbuild.h"
#include "test.h"

#define ST (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
	    PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN)

static char path[64];

static void sample(struct pgo_buf *b, uint64_t ip, uint32_t pid, uint64_t time, uint64_t nr_chain,
		   uint64_t claimed_chain)
{
	uint64_t i;

	pdb_hdr(b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 8 + 8 * 6 + 8 * nr_chain);
	pdb_put64(b, 7);
	pdb_put64(b, ip);
	pdb_put32(b, pid);
	pdb_put32(b, pid);
	pdb_put64(b, time);
	pdb_put64(b, 1000);
	pdb_put64(b, claimed_chain);
	for (i = 0; i < nr_chain; i++)
		pdb_put64(b, ip + i);
}

/* A file: header, one attr (ids [7]), data records, a CMDLINE feature "pgo collect". */
static void build(struct pgo_buf *b, const struct pgo_buf *records)
{
	static const char *const words[] = { "pgo", "collect" };

	pdb_file(b, records, ST, 0);
	pdb_add_cmdline(b, words, 2);
}

static void valid_records(struct pgo_buf *r)
{
	static const char comm[16] = "bench";
	static const char fname[16] = "/bin/bench";

	pdb_hdr(r, PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC, 8 + 8 + 16 + 24);
	pdb_put32(r, 42);
	pdb_put32(r, 42);
	pdb_put(r, comm, 16);
	pdb_trailer(r, 42, 42, 100);
	pdb_hdr(r, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, 8 + 64 + 16 + 24);
	pdb_put32(r, 42);
	pdb_put32(r, 42);
	pdb_put64(r, 0x400000);
	pdb_put64(r, 0x1000);
	pdb_put64(r, 0);
	pdb_put64(r, 0);
	pdb_put64(r, 0);
	pdb_put64(r, 0);
	pdb_put32(r, 5); /* PROT_READ | PROT_EXEC */
	pdb_put32(r, 2);
	pdb_put(r, fname, 16);
	pdb_trailer(r, 42, 42, 101);
	sample(r, 0x400200, 42, 300, 2, 2); /* later in the file, earlier in time */
	pdb_hdr(r, 999, 0, 16);                 /* unknown type: skipped, counted */
	pdb_put64(r, 0);
	sample(r, 0x400100, 42, 200, 0, 0);
	pdb_hdr(r, PD_RECORD_FINISHED_ROUND, 0, 8);
	pdb_hdr(r, PERF_RECORD_LOST, 0, 8 + 16 + 24);
	pdb_put64(r, 7);
	pdb_put64(r, 3);
	pdb_trailer(r, 42, 42, 400);
}

static int write_file(const struct pgo_buf *b)
{
	return pdb_write(b, "pdread", path, sizeof(path));
}

/* Open and walk everything; returns 0 if every record was read, -1 on any error. */
static int read_all(const struct pgo_buf *b, uint64_t *samples)
{
	struct collect_pdread *r;
	struct collect_pd_event ev;
	int ret;

	*samples = 0;
	if (write_file(b) < 0 || collect_pdread_open(path, &r) < 0) {
		unlink(path);
		return -1;
	}
	while ((ret = collect_pdread_next(r, &ev)) > 0)
		if (ev.type == PERF_RECORD_SAMPLE)
			(*samples)++;
	collect_pdread_free(r);
	unlink(path);
	return ret < 0 ? -1 : 0;
}

static int test_valid(void)
{
	struct pgo_buf rec = PGO_BUF_INIT, b = PGO_BUF_INIT;
	struct collect_pdread *r;
	struct collect_pd_event ev;
	const struct collect_pdread_stats *st;
	uint64_t times[8];
	int n = 0;

	valid_records(&rec);
	build(&b, &rec);
	T_ASSERT(write_file(&b) == 0);
	T_ASSERT(collect_pdread_open(path, &r) == 0);
	T_ASSERT_EQ_U64(collect_pdread_nr_attrs(r), 1);
	T_ASSERT_STR(collect_pdread_attr(r, 0)->name, "task-clock");
	T_ASSERT_STR(collect_pdread_cmdline(r), "pgo collect");
	T_ASSERT_STR(collect_pdread_argv0(r), "pgo");
	while (collect_pdread_next(r, &ev) > 0) {
		T_ASSERT(n < 8);
		times[n++] = ev.time;
		if (ev.type == PERF_RECORD_MMAP2) {
			T_ASSERT_STR(ev.u.mmap.filename, "/bin/bench");
			T_ASSERT_EQ_U64(ev.u.mmap.start, 0x400000);
			T_ASSERT_EQ_U64(ev.u.mmap.pid, 42);
		}
		if (ev.type == PERF_RECORD_COMM) {
			T_ASSERT_STR(ev.u.comm.comm, "bench");
			T_ASSERT(ev.u.comm.exec);
		}
		if (ev.type == PERF_RECORD_SAMPLE && ev.time == 300) {
			T_ASSERT_EQ_U64(ev.u.sample.ip, 0x400200);
			T_ASSERT_EQ_U64(ev.u.sample.nr_callchain, 2);
			T_ASSERT_EQ_U64(ev.u.sample.callchain[1], 0x400201);
			T_ASSERT_EQ_U64(ev.u.sample.period, 1000);
			T_ASSERT_EQ_U64(ev.u.sample.tid, 42);
		}
		if (ev.type == PERF_RECORD_LOST)
			T_ASSERT_EQ_U64(ev.u.lost.lost, 3);
	}
	/* COMM 100, MMAP2 101, sample 200, sample 300, LOST 400: time order */
	T_ASSERT_EQ_U64(n, 5);
	T_ASSERT(times[0] == 100 && times[1] == 101 && times[2] == 200 && times[3] == 300 &&
		 times[4] == 400);
	st = collect_pdread_stats(r);
	T_ASSERT_EQ_U64(st->samples, 2);
	T_ASSERT_EQ_U64(st->unknown, 1);
	T_ASSERT_EQ_U64(st->lost, 3);
	collect_pdread_free(r);
	unlink(path);
	pgo_buf_release(&rec);
	pgo_buf_release(&b);
	return T_OK;
}

static int expect_bad(struct pgo_buf *b)
{
	uint64_t n;
	int ret = read_all(b, &n);

	pgo_buf_release(b);
	return ret;
}

static int test_bad_magic(void)
{
	struct pgo_buf rec = PGO_BUF_INIT, b = PGO_BUF_INIT;

	valid_records(&rec);
	build(&b, &rec);
	memcpy(b.data, "PERFILE3", 8);
	T_ASSERT(expect_bad(&b) < 0);
	build(&b, &rec);
	{
		uint64_t sw = PD_MAGIC_SWAPPED;

		memcpy(b.data, &sw, 8);
	}
	T_ASSERT(expect_bad(&b) < 0);
	pgo_buf_release(&rec);
	return T_OK;
}

static int test_empty_and_tiny(void)
{
	struct pgo_buf b = PGO_BUF_INIT;
	uint64_t n;

	T_ASSERT(read_all(&b, &n) < 0);
	pgo_buf_add(&b, PD_MAGIC, 8);
	T_ASSERT(read_all(&b, &n) < 0);
	pgo_buf_release(&b);
	return T_OK;
}

static int test_truncated(void)
{
	struct pgo_buf rec = PGO_BUF_INIT, b = PGO_BUF_INIT;
	size_t cut;

	valid_records(&rec);
	build(&b, &rec);
	/* every truncation point must fail cleanly (the feature table is at the end) */
	for (cut = 0; cut < b.len; cut += 7) {
		struct pgo_buf t = PGO_BUF_INIT;
		uint64_t n;

		pgo_buf_add(&t, b.data, cut);
		T_ASSERT(read_all(&t, &n) < 0);
		pgo_buf_release(&t);
	}
	pgo_buf_release(&b);
	pgo_buf_release(&rec);
	return T_OK;
}

static int test_zero_size_record(void)
{
	struct pgo_buf rec = PGO_BUF_INIT, b = PGO_BUF_INIT;

	valid_records(&rec);
	pdb_hdr(&rec, PERF_RECORD_SAMPLE, 0, 0);
	pdb_put64(&rec, 0);
	build(&b, &rec);
	T_ASSERT(expect_bad(&b) < 0);
	pgo_buf_release(&rec);
	return T_OK;
}

static int test_oversized_callchain(void)
{
	struct pgo_buf rec = PGO_BUF_INIT, b = PGO_BUF_INIT;

	sample(&rec, 0x400100, 42, 10, 1, 1000000);
	build(&b, &rec);
	T_ASSERT(expect_bad(&b) < 0);
	pgo_buf_reset(&rec);
	sample(&rec, 0x400100, 42, 10, 1, UINT64_MAX / 4);
	build(&b, &rec);
	T_ASSERT(expect_bad(&b) < 0);
	pgo_buf_release(&rec);
	return T_OK;
}

/*
 * Records compressed as perf record -z writes them: one zstd stream, compressed and
 * flushed into records of at most max_out bytes (so kernel records are split between
 * them), each followed by a FINISHED_ROUND. type2: PERF_RECORD_COMPRESSED2, else
 * PERF_RECORD_COMPRESSED, whose odd sizes leave what follows at unaligned offsets. cut:
 * bytes of the input left out at its end.
 */
static void zrecords(struct pgo_buf *out, const struct pgo_buf *in, size_t max_out, int type2,
		     size_t cut)
{
	ZSTD_CStream *cs = ZSTD_createCStream();
	ZSTD_inBuffer zin = { in->data, in->len - cut, 0 };
	char *buf = malloc(max_out);
	size_t left = 1;

	ZSTD_initCStream(cs, 1);
	while (zin.pos < zin.size || left) {
		ZSTD_outBuffer zo = { buf, max_out, 0 };

		if (zin.pos < zin.size)
			ZSTD_compressStream(cs, &zo, &zin);
		left = ZSTD_flushStream(cs, &zo);
		if (!zo.pos)
			continue;
		if (type2) {
			static const char zeros[8];
			size_t size = (16 + zo.pos + 7) & ~(size_t)7;

			pdb_hdr(out, PD_RECORD_COMPRESSED2, 0, (uint16_t)size);
			pdb_put64(out, zo.pos);
			pdb_put(out, buf, zo.pos);
			pdb_put(out, zeros, size - 16 - zo.pos);
		} else {
			pdb_hdr(out, PD_RECORD_COMPRESSED, 0, (uint16_t)(8 + zo.pos));
			pdb_put(out, buf, zo.pos);
		}
		pdb_hdr(out, PD_RECORD_FINISHED_ROUND, 0, 8);
	}
	ZSTD_freeCStream(cs);
	free(buf);
}

/* One line per record delivered: type, time and the fields valid_records() sets. */
static int digest(const char *file, struct pgo_buf *out, uint64_t *compressed)
{
	struct collect_pdread *r;
	struct collect_pd_event ev;
	int ret;

	if (collect_pdread_open(file, &r) < 0)
		return -1;
	while ((ret = collect_pdread_next(r, &ev)) > 0) {
		pgo_buf_addf(out, "%u %llu", ev.type, (unsigned long long)ev.time);
		if (ev.type == PERF_RECORD_SAMPLE)
			pgo_buf_addf(out, " ip %llx chain %llu:%llx", (unsigned long long)ev.u.sample.ip,
				     (unsigned long long)ev.u.sample.nr_callchain,
				     (unsigned long long)(ev.u.sample.nr_callchain ?
							  ev.u.sample.callchain[ev.u.sample.nr_callchain - 1] : 0));
		if (ev.type == PERF_RECORD_MMAP2)
			pgo_buf_addf(out, " %s %llx", ev.u.mmap.filename,
				     (unsigned long long)ev.u.mmap.start);
		if (ev.type == PERF_RECORD_COMM)
			pgo_buf_addf(out, " %s", ev.u.comm.comm);
		pgo_buf_addf(out, "\n");
	}
	*compressed = collect_pdread_stats(r)->compressed;
	collect_pdread_free(r);
	return ret;
}

/*
 * The records of a valid file and three more samples, compressed in records of 13-200
 * bytes, both record types, then a COMM left at an unaligned offset: the reader delivers
 * what it delivers from the uncompressed file (plus the COMM), in time order.
 */
static int test_compressed(void)
{
	static const size_t outs[] = { 13, 40, 200 };
	struct pgo_buf rec = PGO_BUF_INIT, b = PGO_BUF_INIT, want = PGO_BUF_INIT;
	uint64_t nz = 0;
	size_t k;
	int type2;

	valid_records(&rec);
	sample(&rec, 0x400300, 42, 250, 40, 40);
	sample(&rec, 0x400400, 42, 260, 3, 3);
	sample(&rec, 0x400500, 42, 150, 1, 1);
	build(&b, &rec);
	T_ASSERT(write_file(&b) == 0);
	T_ASSERT(digest(path, &want, &nz) == 0);
	T_ASSERT_EQ_U64(nz, 0);
	pgo_buf_addf(&want, "%u 500 bench\n", PERF_RECORD_COMM);
	unlink(path);
	for (type2 = 0; type2 <= 1; type2++)
		for (k = 0; k < PGO_ARRAY_SIZE(outs); k++) {
			struct pgo_buf z = PGO_BUF_INIT, f = PGO_BUF_INIT, got = PGO_BUF_INIT;

			zrecords(&z, &rec, outs[k], type2, 0);
			if (!type2)
				T_ASSERT(z.len % 8);    /* the COMM below is unaligned */
			pdb_comm(&z, 42, 500);
			build(&f, &z);
			T_ASSERT(write_file(&f) == 0);
			T_ASSERT(digest(path, &got, &nz) == 0);
			printf("# %zu-byte payloads, type %d: %llu records\n", outs[k], type2 ? 83 : 81,
			       (unsigned long long)nz);
			T_ASSERT(nz >= 2);
			T_ASSERT_STR(got.data, want.data);
			unlink(path);
			pgo_buf_release(&z);
			pgo_buf_release(&f);
			pgo_buf_release(&got);
		}
	pgo_buf_release(&rec);
	pgo_buf_release(&b);
	pgo_buf_release(&want);
	return T_OK;
}

/* Compressed data that is not zstd, or ends inside a record, or hides a compressed record. */
static int test_compressed_bad(void)
{
	struct pgo_buf rec = PGO_BUF_INIT, z = PGO_BUF_INIT, b = PGO_BUF_INIT, in = PGO_BUF_INIT;

	pdb_hdr(&z, PD_RECORD_COMPRESSED, 0, 24);
	pdb_put64(&z, 0x0123456789abcdefULL);
	pdb_put64(&z, 0);
	build(&b, &z);
	T_ASSERT(expect_bad(&b) < 0);
	pgo_buf_release(&z);

	valid_records(&rec);
	zrecords(&z, &rec, 40, 0, 12);
	build(&b, &z);
	T_ASSERT(expect_bad(&b) < 0);
	pgo_buf_release(&z);

	pdb_hdr(&in, PD_RECORD_COMPRESSED, 0, 16);
	pdb_put64(&in, 0);
	zrecords(&z, &in, 40, 1, 0);
	build(&b, &z);
	T_ASSERT(expect_bad(&b) < 0);
	pgo_buf_release(&z);

	pdb_hdr(&z, PD_RECORD_COMPRESSED2, 0, 16);
	pdb_put64(&z, 9);                           /* more payload than the record holds */
	build(&b, &z);
	T_ASSERT(expect_bad(&b) < 0);
	pgo_buf_release(&z);
	pgo_buf_release(&in);
	pgo_buf_release(&rec);
	return T_OK;
}

static int test_short_attr(void)
{
	struct pgo_buf rec = PGO_BUF_INIT, b = PGO_BUF_INIT, s = PGO_BUF_INIT;
	struct pd_file_header h;
	uint64_t n;

	/* an older perf's 64-byte attr (PERF_ATTR_SIZE_VER0): zero-extended */
	sample(&rec, 0x400100, 42, 10, 0, 0);
	build(&b, &rec);
	memcpy(&h, b.data, sizeof(h));
	h.attr_size = PERF_ATTR_SIZE_VER0 + 16;
	h.attrs.size = h.attr_size;
	pdb_put(&s, &h, sizeof(h));
	pdb_put(&s, b.data + sizeof(h), PERF_ATTR_SIZE_VER0);
	pdb_put(&s, b.data + sizeof(h) + sizeof(struct perf_event_attr), b.len - sizeof(h) -
	    sizeof(struct perf_event_attr));
	/* sections after the attr moved by the difference */
	{
		uint64_t d = sizeof(struct perf_event_attr) - PERF_ATTR_SIZE_VER0, v;
		struct pd_file_header *hp = (struct pd_file_header *)s.data;

		memcpy(&v, s.data + sizeof(h) + PERF_ATTR_SIZE_VER0, 8);
		v -= d;
		memcpy(s.data + sizeof(h) + PERF_ATTR_SIZE_VER0, &v, 8);
		hp->data.offset -= d;
		hp->adds_features[0] = 0;
	}
	T_ASSERT(read_all(&s, &n) == 0);
	T_ASSERT_EQ_U64(n, 1);
	pgo_buf_release(&s);
	pgo_buf_release(&b);
	pgo_buf_release(&rec);
	return T_OK;
}

/* Random corruption: any outcome but a crash, a hang or a sanitizer report is fine. */
/* Corrupt 1-4 random bytes of b, 400 times: every read ends, well or with an error. */
static int corrupt_400(const struct pgo_buf *b)
{
	unsigned seed = 12345;
	int i, k, ok = 0, bad = 0;

	pgo_report_set_verbosity(-1);
	for (i = 0; i < 400; i++) {
		struct pgo_buf t = PGO_BUF_INIT;
		uint64_t n;

		pgo_buf_add(&t, b->data, b->len);
		for (k = 0; k < 1 + i % 4; k++) {
			seed = seed * 1103515245 + 12345;
			t.data[(seed >> 8) % t.len] = (char)(seed >> 20);
		}
		if (read_all(&t, &n) == 0)
			ok++;
		else
			bad++;
		pgo_buf_release(&t);
	}
	pgo_report_set_verbosity(0);
	T_ASSERT(ok + bad == 400);
	return T_OK;
}

static int test_random_corruption(void)
{
	struct pgo_buf rec = PGO_BUF_INIT, b = PGO_BUF_INIT, z = PGO_BUF_INIT;
	int ret;

	valid_records(&rec);
	build(&b, &rec);
	ret = corrupt_400(&b);
	pgo_buf_release(&b);
	zrecords(&z, &rec, 40, 0, 0);
	build(&b, &z);
	if (ret == T_OK)
		ret = corrupt_400(&b);
	pgo_buf_release(&b);
	pgo_buf_release(&z);
	pgo_buf_release(&rec);
	return ret;
}

/* Rss of the mapping of `file` in this process, in KB (/proc/self/smaps), or -1. */
static long mapped_rss_kb(const char *file)
{
	char line[4096];
	FILE *fp = fopen("/proc/self/smaps", "r");
	long kb = -1;
	int in = 0;

	if (!fp)
		return -1;
	while (fgets(line, sizeof(line), fp)) {
		char name[4096] = "";
		unsigned long lo, hi;
		long v;

		/* a mapping's first line; anonymous ones have no name */
		if (sscanf(line, "%lx-%lx %*s %*s %*s %*s %4095s", &lo, &hi, name) >= 2) {
			in = !strcmp(name, file);
			continue;
		}
		if (in && sscanf(line, "Rss: %ld kB", &v) == 1)
			kb = kb < 0 ? v : kb + v;
	}
	fclose(fp);
	return kb;
}

/*
 * 1600 samples of 16 KB (25 MB), written as perf writes per-CPU buffers: rounds of 16
 * records, the 8 of "CPU 1" after the 8 of "CPU 0" in the file, interleaved in time.
 * late_first: one more sample at the end of the file carries the earliest time.
 */
#define BIG_NR 1600
#define BIG_CHAIN 2000
static void big_records(struct pgo_buf *r, int late_first)
{
	uint64_t round, k;

	for (round = 0; round < BIG_NR / 16; round++)
		for (k = 0; k < 16; k++) {
			uint64_t t = 1000 + round * 16 + (k < 8 ? 2 * k : 2 * (k - 8) + 1);

			sample(r, 0x100000 * t, 42, t, BIG_CHAIN, BIG_CHAIN);
		}
	if (late_first)
		sample(r, 0x100000 * 5, 42, 5, BIG_CHAIN, BIG_CHAIN);
}

/*
 * Walk a file of big samples; check every sample against its time, the time order, and
 * the most KB of the file mapped at once. first_chain: the first sample's callchain,
 * kept past the walk.
 */
static int walk_big(struct collect_pdread *r, uint64_t nr, long *max_kb, const uint64_t **first_chain)
{
	struct collect_pd_event ev;
	uint64_t n = 0, last = 0;
	int ret;

	*max_kb = 0;
	while ((ret = collect_pdread_next(r, &ev)) > 0) {
		const struct collect_pd_sample *s = &ev.u.sample;

		T_ASSERT_EQ_U64(ev.type, PERF_RECORD_SAMPLE);
		T_ASSERT(ev.time > last);
		last = ev.time;
		T_ASSERT_EQ_U64(s->ip, 0x100000 * ev.time);
		T_ASSERT_EQ_U64(s->nr_callchain, BIG_CHAIN);
		T_ASSERT_EQ_U64(s->callchain[BIG_CHAIN - 1], s->ip + BIG_CHAIN - 1);
		if (!n)
			*first_chain = s->callchain;
		if (n++ % 25 == 0) {
			long kb = mapped_rss_kb(path);

			T_ASSERT(kb >= 0);
			if (kb > *max_kb)
				*max_kb = kb;
		}
	}
	T_ASSERT(ret == 0);
	T_ASSERT_EQ_U64(n, nr);
	return T_OK;
}

static int test_bounded_memory(void)
{
	struct pgo_buf rec = PGO_BUF_INIT, b = PGO_BUF_INIT;
	struct collect_pdread *r;
	const struct collect_pdread_stats *st;
	const uint64_t *chain = NULL;
	long kb, kb2, file_kb;
	uint64_t released;

	big_records(&rec, 0);
	build(&b, &rec);
	file_kb = (long)(b.len >> 10);
	T_ASSERT(write_file(&b) == 0);
	T_ASSERT(collect_pdread_open(path, &r) == 0);
	/*
	 * open's walk over the record headers leaves its last chunk mapped. The kernel may
	 * map the page cache in 2 MB folios, so the bounds below allow a folio either side
	 * of the chunks the reader keeps.
	 */
	kb = mapped_rss_kb(path);
	fprintf(stderr, "# %ld KB file: %ld KB mapped after open\n", file_kb, kb);
	T_ASSERT(kb >= 0 && kb <= 4096);
	T_ASSERT(walk_big(r, BIG_NR, &kb, &chain) == T_OK);
	st = collect_pdread_stats(r);
	fprintf(stderr, "# walk: at most %ld KB mapped, window %llu KB, %llu KB released\n", kb,
		(unsigned long long)(st->max_window >> 10), (unsigned long long)(st->released >> 10));
	T_ASSERT(kb <= 7 * 1024);
	T_ASSERT(st->max_window <= 3 << 20);
	T_ASSERT(st->released >= (uint64_t)(file_kb - 1024) << 10);
	/* pages behind the walk re-fault from the file: old pointers still read the record */
	T_ASSERT_EQ_U64(chain[0], 0x100000 * 1000);
	T_ASSERT_EQ_U64(chain[BIG_CHAIN - 1], 0x100000 * 1000 + BIG_CHAIN - 1);
	/* a second pass reads the same records, as bounded */
	released = st->released;
	collect_pdread_rewind(r);
	T_ASSERT(walk_big(r, BIG_NR, &kb2, &chain) == T_OK);
	T_ASSERT(kb2 <= 7 * 1024);
	T_ASSERT(collect_pdread_stats(r)->released > released);
	T_ASSERT_EQ_U64(collect_pdread_stats(r)->samples, BIG_NR);
	collect_pdread_free(r);
	unlink(path);
	pgo_buf_release(&b);

	/* a record at the end of the file that comes first in time pins no wrong page */
	pgo_buf_reset(&rec);
	big_records(&rec, 1);
	build(&b, &rec);
	T_ASSERT(write_file(&b) == 0);
	T_ASSERT(collect_pdread_open(path, &r) == 0);
	T_ASSERT(walk_big(r, BIG_NR + 1, &kb, &chain) == T_OK);
	T_ASSERT_EQ_U64(chain[0], 0x100000 * 5);
	fprintf(stderr, "# late first record: at most %ld KB mapped\n", kb);
	T_ASSERT(kb <= 7 * 1024);
	collect_pdread_free(r);
	unlink(path);
	pgo_buf_release(&rec);
	pgo_buf_release(&b);
	return T_OK;
}

/* A directory recording's header file: records in its data section, the DIR_FORMAT feature. */
static void dir_head(struct pgo_buf *b, const struct pgo_buf *records)
{
	struct pd_file_header h;

	pdb_file(b, records, ST, 0);
	memcpy(&h, b->data, sizeof(h));
	h.adds_features[0] |= 1ULL << PD_FEAT_DIR_FORMAT;
	memcpy(b->data, &h, sizeof(h));
	pdb_put64(b, b->len + 16);
	pdb_put64(b, 8);
	pdb_put64(b, 1);                           /* PERF_DIR_VERSION */
}

static int put_file(const char *file, const struct pgo_buf *b)
{
	FILE *fp = fopen(file, "wb");

	if (!fp)
		return -1;
	if (b->len)
		fwrite(b->data, 1, b->len, fp);
	return fclose(fp);
}

static long dir_rss_kb(const char *dir)
{
	char f[128];
	long a, b;

	snprintf(f, sizeof(f), "%s/data.0", dir);
	a = mapped_rss_kb(f);
	snprintf(f, sizeof(f), "%s/data.1", dir);
	b = mapped_rss_kb(f);
	return (a < 0 ? 0 : a) + (b < 0 ? 0 : b);
}

/*
 * perf record --threads writes a directory: DIR/data holds the header and the records
 * perf synthesized, DIR/data.N those of its N-th reader thread. The 25 MB of samples of
 * test_bounded_memory, "CPU 0"'s in data.0 and "CPU 1"'s in data.1 (an empty data.2
 * too), come out in time order, with as little of the data files mapped at once.
 */
static int test_directory(void)
{
	struct pgo_buf head = PGO_BUF_INIT, d[3] = { PGO_BUF_INIT, PGO_BUF_INIT, PGO_BUF_INIT };
	struct pgo_buf b = PGO_BUF_INIT;
	struct collect_pdread *r;
	struct collect_pd_event ev;
	char dir[64], f[128];
	uint64_t round, k, n = 0, last = 0;
	long kb, max_kb = 0;
	int i, ret;

	snprintf(dir, sizeof(dir), "/tmp/pgo-pdread-dir-%d", (int)getpid());
	T_ASSERT(mkdir(dir, 0700) == 0);
	pdb_comm(&head, 42, 10);
	for (round = 0; round < BIG_NR / 16; round++)
		for (k = 0; k < 16; k++) {
			uint64_t t = 1000 + round * 16 + (k < 8 ? 2 * k : 2 * (k - 8) + 1);

			sample(&d[k >= 8], 0x100000 * t, 42, t, BIG_CHAIN, BIG_CHAIN);
		}
	dir_head(&b, &head);
	snprintf(f, sizeof(f), "%s/data", dir);
	T_ASSERT(put_file(f, &b) == 0);
	for (i = 0; i < 3; i++) {
		snprintf(f, sizeof(f), "%s/data.%d", dir, i);
		T_ASSERT(put_file(f, &d[i]) == 0);
	}
	T_ASSERT(collect_pdread_open(dir, &r) == 0);
	while ((ret = collect_pdread_next(r, &ev)) > 0) {
		T_ASSERT(ev.time > last);
		last = ev.time;
		if (ev.type == PERF_RECORD_COMM) {
			T_ASSERT_EQ_U64(ev.time, 10);
			continue;
		}
		T_ASSERT_EQ_U64(ev.u.sample.ip, 0x100000 * ev.time);
		T_ASSERT_EQ_U64(ev.u.sample.callchain[BIG_CHAIN - 1], ev.u.sample.ip + BIG_CHAIN - 1);
		if (n++ % 25 == 0 && (kb = dir_rss_kb(dir)) > max_kb)
			max_kb = kb;
	}
	T_ASSERT(ret == 0);
	T_ASSERT_EQ_U64(n, BIG_NR);
	fprintf(stderr, "# directory: %zu KB in data.0 and data.1, at most %ld KB mapped, "
		"%llu KB released\n", (d[0].len + d[1].len) >> 10, max_kb,
		(unsigned long long)(collect_pdread_stats(r)->released >> 10));
	T_ASSERT(max_kb <= 8 * 1024);
	T_ASSERT(collect_pdread_stats(r)->released >= (uint64_t)(d[0].len + d[1].len) - (4 << 20));
	collect_pdread_free(r);

	/* a sample in data.1 that claims more callchain than it holds: open() passes (headers
	 * are sound), the walk fails and names data.1 */
	{
		struct pgo_buf bad = PGO_BUF_INIT;
		char err[512] = "";
		FILE *cap = tmpfile();
		int saved = dup(2);

		sample(&bad, 0x100000 * 900, 42, 900, 2, 5000);
		snprintf(f, sizeof(f), "%s/data.1", dir);
		T_ASSERT(put_file(f, &bad) == 0);
		T_ASSERT(collect_pdread_open(dir, &r) == 0);
		T_ASSERT(cap && saved >= 0);
		fflush(stderr);
		dup2(fileno(cap), 2);
		while ((ret = collect_pdread_next(r, &ev)) > 0)
			;
		fflush(stderr);
		dup2(saved, 2);
		close(saved);
		rewind(cap);
		T_ASSERT(fread(err, 1, sizeof(err) - 1, cap) > 0);
		fclose(cap);
		fprintf(stderr, "# %s", err);
		T_ASSERT(ret < 0);
		T_ASSERT(strstr(err, "/data.1': sample at offset 0 "));
		collect_pdread_free(r);
		T_ASSERT(put_file(f, &d[1]) == 0);
		pgo_buf_release(&bad);
	}
	/* data.1 cut inside a record: an error naming it */
	snprintf(f, sizeof(f), "%s/data.1", dir);
	T_ASSERT(truncate(f, (off_t)d[1].len - 100) == 0);
	T_ASSERT(collect_pdread_open(dir, &r) < 0);
	/* a directory whose data file is a plain perf.data (no DIR_FORMAT feature) */
	snprintf(f, sizeof(f), "%s/data", dir);
	pgo_buf_reset(&b);
	build(&b, &head);
	T_ASSERT(put_file(f, &b) == 0);
	T_ASSERT(collect_pdread_open(dir, &r) < 0);
	for (i = 0; i < 3; i++) {
		snprintf(f, sizeof(f), "%s/data.%d", dir, i);
		unlink(f);
		pgo_buf_release(&d[i]);
	}
	snprintf(f, sizeof(f), "%s/data", dir);
	unlink(f);
	/* no data file at all */
	T_ASSERT(collect_pdread_open(dir, &r) < 0);
	rmdir(dir);
	pgo_buf_release(&head);
	pgo_buf_release(&b);
	return T_OK;
}

/* Rss in KB of the mappings of unnamed temporary files under dir ("dir/#inode (deleted)"). */
static long tmpfile_rss_kb(const char *dir)
{
	char line[4096], want[512];
	FILE *fp = fopen("/proc/self/smaps", "r");
	long kb = 0, v;
	int in = 0;

	if (!fp)
		return -1;
	snprintf(want, sizeof(want), "%s/#", dir);
	while (fgets(line, sizeof(line), fp)) {
		char name[4096] = "";
		unsigned long lo, hi;

		if (sscanf(line, "%lx-%lx %*s %*s %*s %*s %4095s", &lo, &hi, name) >= 2) {
			in = !strncmp(name, want, strlen(want)) && strstr(line, "(deleted)");
			continue;
		}
		if (in && sscanf(line, "Rss: %ld kB", &v) == 1)
			kb += v;
	}
	fclose(fp);
	return kb;
}

/*
 * The 25 MB of samples of test_bounded_memory, compressed as perf record -z writes them:
 * past 4 MB the decompressed records go to a temporary file (in TMPDIR, set here), which
 * the walk maps a window of at a time, as it does the file.
 */
static int test_compressed_bounded(void)
{
	struct pgo_buf rec = PGO_BUF_INIT, z = PGO_BUF_INIT, b = PGO_BUF_INIT;
	struct collect_pdread *r;
	const struct collect_pdread_stats *st;
	const uint64_t *chain = NULL;
	char tmp[64];
	const char *old = getenv("TMPDIR");
	char *saved = old ? strdup(old) : NULL;
	long kb, max_kb = 0;
	uint64_t n = 0, last = 0;
	struct collect_pd_event ev;
	int ret;

	snprintf(tmp, sizeof(tmp), "/tmp/pgo-pdread-tmp-%d", (int)getpid());
	T_ASSERT(mkdir(tmp, 0700) == 0);
	setenv("TMPDIR", tmp, 1);
	big_records(&rec, 0);
	zrecords(&z, &rec, 60000, 0, 0);
	build(&b, &z);
	ret = write_file(&b);
	pgo_buf_release(&z);
	pgo_buf_release(&b);
	pgo_buf_release(&rec);
	T_ASSERT(ret == 0);
	ret = collect_pdread_open(path, &r);
	if (saved)
		setenv("TMPDIR", saved, 1);
	else
		unsetenv("TMPDIR");
	free(saved);
	T_ASSERT(ret == 0);
	while ((ret = collect_pdread_next(r, &ev)) > 0) {
		T_ASSERT_EQ_U64(ev.type, PERF_RECORD_SAMPLE);
		T_ASSERT(ev.time > last);
		last = ev.time;
		T_ASSERT_EQ_U64(ev.u.sample.callchain[BIG_CHAIN - 1], ev.u.sample.ip + BIG_CHAIN - 1);
		if (!n)
			chain = ev.u.sample.callchain;
		if (n++ % 25 == 0 && (kb = tmpfile_rss_kb(tmp)) > max_kb)
			max_kb = kb;
	}
	T_ASSERT(ret == 0);
	T_ASSERT_EQ_U64(n, BIG_NR);
	st = collect_pdread_stats(r);
	fprintf(stderr, "# compressed: %llu KB decompressed%s, at most %ld KB of it mapped, "
		"%llu KB released\n", (unsigned long long)(st->unpacked >> 10),
		st->unpacked_in_file ? " into a temporary file" : "", max_kb,
		(unsigned long long)(st->released >> 10));
	T_ASSERT(st->unpacked_in_file);
	T_ASSERT(max_kb > 0 && max_kb <= 7 * 1024);
	/* a dropped page is read again from the temporary file */
	T_ASSERT_EQ_U64(chain[BIG_CHAIN - 1], 0x100000 * 1000 + BIG_CHAIN - 1);
	collect_pdread_free(r);
	unlink(path);
	rmdir(tmp);
	return T_OK;
}

/*
 * 5000 samples in shuffled time order, with runs of every length and equal times (the
 * file offset orders those): the walk gives them in (time, offset) order.
 */
static int test_shuffled_order(void)
{
	struct pgo_buf rec = PGO_BUF_INIT, b = PGO_BUF_INIT;
	struct collect_pdread *r;
	struct collect_pd_event ev;
	uint64_t times[5000], n = 0, last_t = 0, last_ip = 0, x = 88172645463325252ull;
	size_t i;
	int ret;

	for (i = 0; i < 5000; i++)
		times[i] = 1000 + i / 2;   /* pairs of equal times */
	for (i = 4999; i > 0; i--) {       /* xorshift Fisher-Yates, runs of sorted stretches kept */
		size_t j;
		uint64_t t;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		if (x % 4 == 0)
			continue;
		j = x % (i + 1);
		t = times[i];
		times[i] = times[j];
		times[j] = t;
	}
	/* the ip says where in the file a sample is: equal times must come in file order */
	for (i = 0; i < 5000; i++)
		sample(&rec, 0x100000 + i, 42, times[i], 0, 0);
	build(&b, &rec);
	T_ASSERT(write_file(&b) == 0);
	T_ASSERT(collect_pdread_open(path, &r) == 0);
	while ((ret = collect_pdread_next(r, &ev)) > 0) {
		T_ASSERT(ev.time >= last_t);
		T_ASSERT(ev.time > last_t || ev.u.sample.ip > last_ip);
		last_t = ev.time;
		last_ip = ev.u.sample.ip;
		n++;
	}
	T_ASSERT(ret == 0);
	T_ASSERT_EQ_U64(n, 5000);
	collect_pdread_free(r);
	unlink(path);
	pgo_buf_release(&rec);
	pgo_buf_release(&b);
	return T_OK;
}

static const struct t_case cases[] = {
	{ "valid file: time order, fields, features", test_valid },
	{ "bad and byte-swapped magic", test_bad_magic },
	{ "empty and tiny files", test_empty_and_tiny },
	{ "every truncation fails cleanly", test_truncated },
	{ "zero-size record", test_zero_size_record },
	{ "callchain longer than its record", test_oversized_callchain },
	{ "compressed records (perf record -z) read", test_compressed },
	{ "bad compressed records rejected", test_compressed_bad },
	{ "a directory recording (perf record --threads) read, memory bounded", test_directory },
	{ "a large compressed file is walked in bounded memory", test_compressed_bounded },
	{ "older, shorter perf_event_attr", test_short_attr },
	{ "random corruption never crashes", test_random_corruption },
	{ "memory stays bounded: pages behind the walk are released", test_bounded_memory },
	{ "shuffled times come out in (time, offset) order", test_shuffled_order },
};

T_MAIN(cases)
