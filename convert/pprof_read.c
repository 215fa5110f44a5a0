// SPDX-License-Identifier: MIT
/*
 * pprof -> perf.data (convert/pprof_read.h): inflate, unpack with protobuf-c, check every
 * index, then write MMAP2, COMM and SAMPLE records through collect's perf.data writer.
 */
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <zlib.h>

#include "collect/offcpu.h"
#include "collect/pdformat.h"
#include "collect/pdwrite.h"
#include "convert/pprof.pb-c.h"
#include "convert/pprof_read.h"
#include "lib/alloc.h"
#include "lib/atomicfile.h"
#include "lib/buf.h"
#include "lib/hashmap.h"
#include "lib/report.h"

#ifndef PERF_RECORD_MISC_MMAP_BUILD_ID
#define PERF_RECORD_MISC_MMAP_BUILD_ID (1 << 14)
#endif

#define PPROF_MAX_FILE (256u << 20)       /* compressed */
#define PPROF_MAX_INFLATED (1024u << 20)
#define KERNEL_HALF 0xffff800000000000ULL
#define PPROF_PID_BASE 1000u              /* synthetic process ids: base + run */
#define PPROF_MAX_SAMPLES (1ULL << 28)    /* each becomes a record of the translation */

typedef Perftools__Profiles__Profile Profile;

int convert_pprof_is(const char *path)
{
	unsigned char m[2];
	FILE *f = fopen(path, "rb");
	int r;

	if (!f)
		return 0;
	r = fread(m, 1, 2, f) == 2 && ((m[0] == 0x1f && m[1] == 0x8b) || m[0] == 0x0a);
	fclose(f);
	return r;
}

/* The file's bytes, inflated if gzipped. *out is new. */
static int read_bytes(const char *path, uint8_t **out, size_t *len)
{
	char *raw = NULL;
	size_t raw_len = 0, cap;
	z_stream z;
	int r;

	*out = NULL;
	if (pgo_read_file(path, PPROF_MAX_FILE, &raw, &raw_len) < 0)
		return -1;
	if (raw_len < 2 || (uint8_t)raw[0] != 0x1f || (uint8_t)raw[1] != 0x8b) {
		*out = (uint8_t *)raw;
		*len = raw_len;
		return 0;
	}
	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, 15 + 32) != Z_OK) {
		free(raw);
		return pgo_error("'%s': cannot start zlib", path);
	}
	cap = raw_len * 4 + 4096;
	*out = malloc(cap);
	z.next_in = (Bytef *)raw;
	z.avail_in = (uInt)raw_len;
	for (r = Z_OK; *out && r == Z_OK;) {
		if (z.total_out == cap) {
			uint8_t *n;

			if (cap >= PPROF_MAX_INFLATED) {
				r = Z_MEM_ERROR;
				break;
			}
			cap = cap * 2 > PPROF_MAX_INFLATED ? PPROF_MAX_INFLATED : cap * 2;
			n = realloc(*out, cap);
			if (!n)
				break;
			*out = n;
		}
		z.next_out = *out + z.total_out;
		z.avail_out = (uInt)(cap - z.total_out);
		r = inflate(&z, Z_NO_FLUSH);
		if (r == Z_BUF_ERROR && z.avail_out)
			break; /* input ended before the stream did */
		if (r == Z_BUF_ERROR)
			r = Z_OK;
	}
	*len = z.total_out;
	inflateEnd(&z);
	free(raw);
	if (r == Z_STREAM_END && *out)
		return 0;
	free(*out);
	*out = NULL;
	if (r == Z_MEM_ERROR && cap >= PPROF_MAX_INFLATED)
		return pgo_error("'%s' inflates to more than %u MB: not a profile pgo reads", path,
				 PPROF_MAX_INFLATED >> 20);
	return pgo_error("'%s' is not a complete gzip stream (truncated or corrupt)", path);
}

struct reader {
	const char *path;
	const Profile *pf;
	struct collect_writer *w;
	uint64_t id_cpu, id_off;
	int idx_count, idx_cpu, idx_off;  /* value columns, -1 if absent */
	uint64_t cpu_scale;            /* ns per unit of the time column or of the period */
	struct pgo_u64map loc_of;      /* location id -> index + 1 */
	struct pgo_u64map map_of;      /* mapping id -> index + 1 */
	uint8_t *loc_kind;             /* per location index: LOC_USER, LOC_KERNEL, LOC_UNMAPPED */
	int dense_locs;                /* location ids are 1..n in order: loc_of stays empty */
	int64_t key_tid, key_run, key_state; /* label key string ids, -1 if absent */
	uint64_t time;                 /* synthetic clock */
	uint64_t step;                 /* between records: the duration spread over them */
	uint64_t *chain;
	size_t alloc_chain;
	struct pgo_buf rec;
	struct pgo_u64map runs_done;   /* run -> 1 once its process was announced */
	struct convert_pprof_read_stats *st;
};

enum { LOC_USER, LOC_KERNEL, LOC_UNMAPPED };

static const char *str(const struct reader *R, int64_t i)
{
	return i >= 0 && (size_t)i < R->pf->n_string_table ? R->pf->string_table[i] : NULL;
}

static int64_t find_str(const Profile *pf, const char *s)
{
	size_t i;

	for (i = 0; i < pf->n_string_table; i++)
		if (!strcmp(pf->string_table[i], s))
			return (int64_t)i;
	return -1;
}

/* ns per unit for a time unit name; 0 if not a time unit. */
static uint64_t unit_ns(const char *u)
{
	if (!u)
		return 0;
	if (!strcmp(u, "nanoseconds") || !strcmp(u, "ns"))
		return 1;
	if (!strcmp(u, "microseconds") || !strcmp(u, "us"))
		return 1000;
	if (!strcmp(u, "milliseconds") || !strcmp(u, "ms"))
		return 1000000;
	if (!strcmp(u, "seconds") || !strcmp(u, "s"))
		return 1000000000;
	return 0;
}

static int is_kernel_mapping(const struct reader *R, const Perftools__Profiles__Mapping *m);

/* Each location's kind, once: kernel (by address or mapping), user, or user without a mapping. */
static int location_kinds(struct reader *R)
{
	size_t i;

	R->loc_kind = pgo_calloc(R->pf->n_location + 1, 1);
	if (!R->loc_kind)
		return -1;
	for (i = 0; i < R->pf->n_location; i++) {
		const Perftools__Profiles__Location *l = R->pf->location[i];
		const uint64_t *mi = l->mapping_id ? pgo_u64map_find(&R->map_of, l->mapping_id) : NULL;

		if (l->address >= KERNEL_HALF || (mi && is_kernel_mapping(R, R->pf->mapping[*mi - 1])))
			R->loc_kind[i] = LOC_KERNEL;
		else
			R->loc_kind[i] = mi ? LOC_USER : LOC_UNMAPPED;
	}
	return 0;
}

/* The index of location id (known to exist): ids are mostly 1..n in order. */
static size_t location_index(const struct reader *R, uint64_t id)
{
	if (id && id <= R->pf->n_location && R->pf->location[id - 1]->id == id)
		return (size_t)(id - 1);
	return (size_t)(*pgo_u64map_find(&R->loc_of, id) - 1);
}

/* Every reference in the profile points inside it. */
static int check_refs(struct reader *R)
{
	const Profile *pf = R->pf;
	size_t i, k;

	if (!pf->n_string_table || pf->string_table[0][0])
		return pgo_error("'%s': the string table must start with \"\"", R->path);
	if (!pf->n_sample_type)
		return pgo_error("'%s' has no sample types", R->path);
	for (i = 0; i < pf->n_sample_type; i++)
		if (!str(R, pf->sample_type[i]->type) || !str(R, pf->sample_type[i]->unit))
			return pgo_error("'%s': sample type %zu names no string", R->path, i);
	for (i = 0; i < pf->n_mapping; i++) {
		const Perftools__Profiles__Mapping *m = pf->mapping[i];

		if (!m->id || !str(R, m->filename) || !str(R, m->build_id) ||
		    m->memory_limit < m->memory_start || pgo_u64map_find(&R->map_of, m->id) ||
		    pgo_u64map_put(&R->map_of, m->id, i + 1) < 0)
			return pgo_error("'%s': mapping %zu is malformed (id 0 or repeated, a bad "
					 "string index, or limit below start)", R->path, i);
	}
	/* ids 1..n in order (pgo's, go's) need no map: location_index() finds them in place */
	for (i = 0; i < pf->n_location && pf->location[i]->id == i + 1; i++)
		;
	R->dense_locs = i == pf->n_location;
	for (i = 0; i < pf->n_location; i++) {
		const Perftools__Profiles__Location *l = pf->location[i];

		if (!l->id || (l->mapping_id && !pgo_u64map_find(&R->map_of, l->mapping_id)) ||
		    (!R->dense_locs && (pgo_u64map_find(&R->loc_of, l->id) ||
					pgo_u64map_put(&R->loc_of, l->id, i + 1) < 0)))
			return pgo_error("'%s': location %zu is malformed (id 0 or repeated, or an "
					 "unknown mapping)", R->path, i);
	}
	for (i = 0; i < pf->n_sample; i++) {
		const Perftools__Profiles__Sample *s = pf->sample[i];

		if (s->n_value != pf->n_sample_type)
			return pgo_error("'%s': sample %zu has %zu values for %zu sample types", R->path,
					 i, s->n_value, pf->n_sample_type);
		for (k = 0; k < s->n_location_id; k++)
			if (R->dense_locs ? !s->location_id[k] || s->location_id[k] > pf->n_location :
			    !pgo_u64map_find(&R->loc_of, s->location_id[k]))
				return pgo_error("'%s': sample %zu refers to location %llu, which is not "
						 "in the profile", R->path, i,
						 (unsigned long long)s->location_id[k]);
		for (k = 0; k < s->n_label; k++)
			if (!str(R, s->label[k]->key) || !str(R, s->label[k]->str))
				return pgo_error("'%s': sample %zu has a label with a bad string index",
						 R->path, i);
	}
	return 0;
}

/* Which value is the count, which the on-CPU time, which the off-CPU time. */
static int pick_columns(struct reader *R)
{
	const Profile *pf = R->pf;
	size_t i;

	R->idx_count = R->idx_cpu = R->idx_off = -1;
	for (i = 0; i < pf->n_sample_type; i++) {
		const char *t = str(R, pf->sample_type[i]->type), *u = str(R, pf->sample_type[i]->unit);

		if (!strcmp(u, "count") && R->idx_count < 0 && (!strcmp(t, "samples") || !strcmp(t, "sample")))
			R->idx_count = (int)i;
		else if (!strcmp(t, "offcpu") && unit_ns(u) && R->idx_off < 0)
			R->idx_off = (int)i;
		else if ((!strcmp(t, "cpu") || !strcmp(t, "on_cpu")) && unit_ns(u) && R->idx_cpu < 0) {
			R->idx_cpu = (int)i;
			R->cpu_scale = unit_ns(u);
		}
	}
	if (R->idx_cpu < 0) {
		/* count x period, in the period type's time unit */
		const char *pu = pf->period_type ? str(R, pf->period_type->unit) : NULL;

		R->cpu_scale = unit_ns(pu);
		if (R->idx_count < 0 || !R->cpu_scale || pf->period <= 0)
			return pgo_error("'%s' has neither a cpu time value nor samples with a time "
					 "period: not a CPU profile", R->path);
	}
	return 0;
}

/* The profile's period in ns, 0 if it has none in a time unit. */
static uint64_t pf_period_ns(const struct reader *R)
{
	const Profile *pf = R->pf;
	uint64_t u = pf->period_type ? unit_ns(str(R, pf->period_type->unit)) : 0;

	return pf->period > 0 && u ? (uint64_t)pf->period * u : 0;
}

static int add_attrs(struct reader *R)
{
	struct perf_event_attr a;
	uint64_t period_ns;
	int idx;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.size = sizeof(a);
	/* WEIGHT: how many samples the record stands for (read back as a count, pprof_read.h) */
	a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_WEIGHT;
	a.sample_id_all = 1;
	/* a period in time units is a rate, as perf record -F gives it */
	period_ns = pf_period_ns(R);
	if (period_ns) {
		a.freq = 1;
		a.sample_freq = (1000000000ULL + period_ns / 2) / period_ns;
	} else {
		a.sample_period = 1;
	}
	a.use_clockid = 1;
	a.clockid = 1;
	idx = collect_writer_add_attr(R->w, &a, "task-clock");
	R->id_cpu = collect_writer_new_id(R->w);
	if (idx < 0 || collect_writer_add_ids(R->w, idx, &R->id_cpu, 1) < 0)
		return -1;
	if (R->idx_off < 0)
		return 0;
	collect_offcpu_attr(&a);
	idx = collect_writer_add_attr(R->w, &a, PD_OFFCPU_EVENT_NAME);
	R->id_off = collect_writer_new_id(R->w);
	if (idx < 0 || collect_writer_add_ids(R->w, idx, &R->id_off, 1) < 0)
		return -1;
	return 0;
}

/* sample_id_all's trailer for sample_type TID | TIME | IDENTIFIER. */
static int add_trailer(struct reader *R, uint32_t pid, uint32_t tid)
{
	uint32_t pt[2] = { pid, tid };

	return pgo_buf_add(&R->rec, pt, 8) || pgo_buf_add(&R->rec, &R->time, 8) ||
	       pgo_buf_add(&R->rec, &R->id_cpu, 8) ? -1 : 0;
}

static int emit(struct reader *R)
{
	struct perf_event_header *h = (struct perf_event_header *)R->rec.data;

	if (R->rec.len > UINT16_MAX)
		return pgo_error("'%s': a record of %zu bytes is too large for perf.data", R->path,
				 R->rec.len);
	h->size = (uint16_t)R->rec.len;
	R->st->records_out++;
	return collect_writer_record(R->w, h);
}

/* Bytes of `s` padded with NULs to a multiple of 8 (at least one NUL). */
static int add_padded(struct pgo_buf *b, const char *s)
{
	static const char zeros[8];
	size_t n = strlen(s) + 1;

	return pgo_buf_add(b, s, strlen(s)) || pgo_buf_add(b, zeros, 1 + (8 - n % 8) % 8) ? -1 : 0;
}

static int hex_build_id(const char *s, uint8_t out[20])
{
	size_t n = strlen(s), i;

	if (!n || n % 2 || n > 40)
		return 0;
	for (i = 0; i < n / 2; i++) {
		unsigned v;

		if (sscanf(s + 2 * i, "%2x", &v) != 1)
			return 0;
		out[i] = (uint8_t)v;
	}
	return (int)(n / 2);
}

static int is_kernel_mapping(const struct reader *R, const Perftools__Profiles__Mapping *m)
{
	const char *f = str(R, m->filename);

	return !strncmp(f, "[kernel", 7) || !strcmp(f, "[vmlinux]") || m->memory_start >= KERNEL_HALF;
}

/* COMM and the MMAP2s of one synthetic process. */
static int announce_process(struct reader *R, uint32_t pid, const char *comm)
{
	struct perf_event_header h = { PERF_RECORD_COMM, PERF_RECORD_MISC_USER, 0 };
	uint32_t pt[2] = { pid, pid };
	size_t i;

	pgo_buf_reset(&R->rec);
	if (pgo_buf_add(&R->rec, &h, sizeof(h)) || pgo_buf_add(&R->rec, pt, 8) ||
	    add_padded(&R->rec, comm) || add_trailer(R, pid, pid) || emit(R) < 0)
		return -1;
	for (i = 0; i < R->pf->n_mapping; i++) {
		const Perftools__Profiles__Mapping *m = R->pf->mapping[i];
		uint8_t bid[24] = { 0 }, head[4] = { 0 };
		uint64_t v[3] = { m->memory_start, m->memory_limit - m->memory_start, m->file_offset };
		uint32_t prot_flags[2] = { PROT_READ | PROT_EXEC, MAP_PRIVATE };
		int n;

		if (is_kernel_mapping(R, m) || m->memory_limit == m->memory_start)
			continue;
		n = hex_build_id(str(R, m->build_id), bid + 4);
		head[0] = (uint8_t)n;
		memcpy(bid, head, 4);
		h.type = PERF_RECORD_MMAP2;
		h.misc = PERF_RECORD_MISC_USER | (n ? PERF_RECORD_MISC_MMAP_BUILD_ID : 0);
		pgo_buf_reset(&R->rec);
		if (pgo_buf_add(&R->rec, &h, sizeof(h)) || pgo_buf_add(&R->rec, pt, 8) ||
		    pgo_buf_add(&R->rec, v, sizeof(v)) || pgo_buf_add(&R->rec, bid, sizeof(bid)) ||
		    pgo_buf_add(&R->rec, prot_flags, 8) || add_padded(&R->rec, str(R, m->filename)) ||
		    add_trailer(R, pid, pid) || emit(R) < 0)
			return -1;
	}
	return 0;
}

static const Perftools__Profiles__Label *label(const Perftools__Profiles__Sample *s, int64_t key)
{
	size_t i;

	for (i = 0; key >= 0 && i < s->n_label; i++)
		if (s->label[i]->key == key)
			return s->label[i];
	return NULL;
}

/* The call chain of s: kernel addresses under PERF_CONTEXT_KERNEL, then the user ones. */
static int build_chain(struct reader *R, const Perftools__Profiles__Sample *s, size_t *nr,
		       uint16_t *misc)
{
	size_t k, n = 0;
	int pass;

	if (PGO_ALLOC_GROW(R->chain, s->n_location_id + 2, R->alloc_chain) < 0)
		return -1;
	*misc = PERF_RECORD_MISC_USER;
	for (pass = 0; pass < 2; pass++) {
		int first = 1;

		for (k = 0; k < s->n_location_id; k++) {
			size_t li = location_index(R, s->location_id[k]);
			const Perftools__Profiles__Location *l = R->pf->location[li];
			int kern = R->loc_kind[li] == LOC_KERNEL;

			if (kern != !pass)
				continue;
			if (first) {
				R->chain[n++] = kern ? (uint64_t)PERF_CONTEXT_KERNEL : (uint64_t)PERF_CONTEXT_USER;
				first = 0;
				if (kern && k == 0)
					*misc = PERF_RECORD_MISC_KERNEL;
			}
			if (R->loc_kind[li] == LOC_UNMAPPED)
				R->st->no_mapping++;
			R->chain[n++] = l->address;
		}
	}
	*nr = n;
	return 0;
}

static unsigned state_of(const struct reader *R, const Perftools__Profiles__Sample *s)
{
	const Perftools__Profiles__Label *l = label(s, R->key_state);
	unsigned i;

	for (i = 0; l && i < OFFCPU_NR_STATES; i++)
		if (!strcmp(collect_offcpu_state_frame(i), str(R, l->str)))
			return i;
	return OFFCPU_NR_STATES;
}

static int run_of(const struct reader *R, const Perftools__Profiles__Sample *s, uint32_t *run)
{
	const Perftools__Profiles__Label *l = label(s, R->key_run);
	char *end;
	unsigned long v;

	*run = 0;
	if (!l)
		return 0;
	v = strtoul(str(R, l->str), &end, 10);
	if (*end || v > 1000000)
		return pgo_error("'%s': run label '%s' is not a run number", R->path, str(R, l->str));
	*run = (uint32_t)v;
	return 0;
}

/* The first address of the chain: the sampled IP. */
static uint64_t chain_ip(const struct reader *R, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		if (R->chain[i] < (uint64_t)PERF_CONTEXT_MAX)
			return R->chain[i];
	return 0;
}

/*
 * Off-CPU: `count` offcpu-time records whose periods add up to `total` (pgo's own off-CPU
 * samples are one record per aggregated stack, so the counts come back the same).
 */
static int emit_offcpu(struct reader *R, uint32_t pid, uint32_t tid, uint64_t count, uint64_t total,
		       size_t nr, unsigned state)
{
	uint64_t k, per = total / count, rest = total % count, ip = chain_ip(R, nr);

	for (k = 0; k < count; k++) {
		struct collect_offcpu_sample os = { pid, tid, state, per + (k < rest), 1, 0, ip, R->chain,
						    (uint32_t)nr };

		R->time += R->step;
		pgo_buf_reset(&R->rec);
		if (collect_offcpu_encode(&os, R->id_off, R->time, &R->rec) < 0 || emit(R) < 0)
			return -1;
	}
	return 0;
}

/* On-CPU: one record of period `total` that stands for `count` samples (its WEIGHT). */
static int emit_oncpu(struct reader *R, uint32_t pid, uint32_t tid, uint64_t count, uint64_t total,
		      size_t nr, uint16_t misc)
{
	struct perf_event_header h = { PERF_RECORD_SAMPLE, misc, 0 };
	uint32_t pt[2] = { pid, tid };
	uint64_t ip = chain_ip(R, nr), n = nr;

	R->time += R->step * count;
	pgo_buf_reset(&R->rec);
	if (pgo_buf_add(&R->rec, &h, sizeof(h)) || pgo_buf_add(&R->rec, &R->id_cpu, 8) ||
	    pgo_buf_add(&R->rec, &ip, 8) || pgo_buf_add(&R->rec, pt, 8) ||
	    pgo_buf_add(&R->rec, &R->time, 8) || pgo_buf_add(&R->rec, &total, 8) ||
	    pgo_buf_add(&R->rec, &n, 8) || pgo_buf_add(&R->rec, R->chain, nr * 8) ||
	    pgo_buf_add(&R->rec, &count, 8))
		return -1;
	return emit(R);
}

static uint64_t value(const Perftools__Profiles__Sample *s, int idx)
{
	return idx >= 0 && s->value[idx] > 0 ? (uint64_t)s->value[idx] : 0;
}

static uint64_t sample_cpu(const struct reader *R, const Perftools__Profiles__Sample *s)
{
	if (R->idx_cpu >= 0)
		return value(s, R->idx_cpu) * R->cpu_scale;
	return value(s, R->idx_count) * pf_period_ns(R);
}

/* Records for a sample: its count, else its time over the period, at least 1. */
static uint64_t sample_count(const struct reader *R, const Perftools__Profiles__Sample *s)
{
	uint64_t n = value(s, R->idx_count), p = pf_period_ns(R);

	if (!n && p)
		n = (sample_cpu(R, s) + value(s, R->idx_off)) / p;
	return n ? n : 1;
}

static int one_sample(struct reader *R, const Perftools__Profiles__Sample *s, const char *comm)
{
	const Perftools__Profiles__Label *lt = label(s, R->key_tid);
	uint64_t count = value(s, R->idx_count), cpu, off = value(s, R->idx_off);
	uint32_t run, pid, tid;
	uint64_t *done;
	uint16_t misc;
	size_t nr;
	int r;

	if (run_of(R, s, &run) < 0)
		return -1;
	pid = PPROF_PID_BASE + run;
	tid = lt && lt->num > 0 && lt->num < INT32_MAX ? (uint32_t)lt->num : pid;
	r = pgo_u64map_get(&R->runs_done, run, &done);
	if (r < 0)
		return -1;
	if (r > 0 && announce_process(R, pid, comm) < 0)
		return -1;
	cpu = sample_cpu(R, s);
	count = sample_count(R, s);
	if ((!cpu && !off) || !s->n_location_id)
		return 0;
	if (build_chain(R, s, &nr, &misc) < 0)
		return -1;
	R->st->samples_in++;
	if (off && !cpu)
		return emit_offcpu(R, pid, tid, count, off, nr, state_of(R, s));
	return emit_oncpu(R, pid, tid, count, cpu, nr, misc);
}

/* The recorded command line: the profile's first comment (pgo's is its collect command). */
static int set_cmdline(struct reader *R)
{
	const char *c = R->pf->n_comment ? str(R, R->pf->comment[0]) : NULL;
	char *copy, *argv[64], *tok, *save = NULL;
	int argc = 0, err;

	if (!c || !*c) {
		char *one[1] = { (char *)R->path };

		return collect_writer_set_cmdline(R->w, 1, one);
	}
	copy = pgo_strdup(c);
	if (!copy)
		return -1;
	for (tok = strtok_r(copy, " ", &save); tok && argc < 64; tok = strtok_r(NULL, " ", &save))
		argv[argc++] = tok;
	/* the writer puts its own executable first, where the profiled command's argv[0] was */
	err = argc > 1 ? collect_writer_set_cmdline(R->w, argc - 1, argv + 1) : 0;
	free(copy);
	return err;
}

static const char *main_comm(const struct reader *R)
{
	const char *f = R->pf->n_mapping ? str(R, R->pf->mapping[0]->filename) : NULL;
	const char *b = f ? strrchr(f, '/') : NULL;

	return b ? b + 1 : f && *f ? f : "pprof";
}

static int translate(struct reader *R)
{
	uint64_t total = 0;
	size_t i;

	if (check_refs(R) < 0 || location_kinds(R) < 0 || pick_columns(R) < 0 || add_attrs(R) < 0 ||
	    set_cmdline(R) < 0)
		return -1;
	R->key_tid = find_str(R->pf, "tid");
	R->key_run = find_str(R->pf, "run");
	R->key_state = find_str(R->pf, "thread state");
	R->st->has_runs = R->key_run >= 0;
	for (i = 0; i < R->pf->n_sample; i++) {
		total += sample_count(R, R->pf->sample[i]);
		if (total > PPROF_MAX_SAMPLES)
			return pgo_error("'%s' holds more than %llu samples: not a profile pgo reads "
					 "(split it, or lower the counts)", R->path,
					 (unsigned long long)PPROF_MAX_SAMPLES);
	}
	R->step = 1000;
	if (R->pf->duration_nanos > 0 && total)
		R->step = (uint64_t)R->pf->duration_nanos / total ? (uint64_t)R->pf->duration_nanos / total : 1;
	R->st->mappings = R->pf->n_mapping;
	R->st->locations = R->pf->n_location;
	for (i = 0; i < R->pf->n_sample; i++)
		if (one_sample(R, R->pf->sample[i], main_comm(R)) < 0)
			return -1;
	return 0;
}

int convert_pprof_to_perfdata(const char *in, const char *out, struct convert_pprof_read_stats *st)
{
	struct convert_pprof_read_stats dummy;
	struct reader R;
	uint8_t *bytes = NULL;
	size_t len = 0;
	Profile *pf = NULL;
	int err = -1;

	memset(&R, 0, sizeof(R));
	R.st = st ? st : &dummy;
	memset(R.st, 0, sizeof(*R.st));
	R.path = in;
	if (read_bytes(in, &bytes, &len) < 0)
		return -1;
	pf = perftools__profiles__profile__unpack(NULL, len, bytes);
	if (!pf) {
		pgo_error("'%s' is not a pprof profile (its protobuf does not decode)", in);
		goto out;
	}
	R.pf = pf;
	if (collect_writer_open(&R.w, out) < 0)
		goto out;
	if (translate(&R) < 0) {
		collect_writer_abort(R.w);
		goto out;
	}
	err = collect_writer_commit(R.w);
out:
	if (pf)
		perftools__profiles__profile__free_unpacked(pf, NULL);
	free(bytes);
	free(R.chain);
	free(R.loc_kind);
	pgo_buf_release(&R.rec);
	pgo_u64map_release(&R.loc_of);
	pgo_u64map_release(&R.map_of);
	pgo_u64map_release(&R.runs_done);
	return err;
}
