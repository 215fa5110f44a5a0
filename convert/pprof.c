// SPDX-License-Identifier: MIT
/*
 * The pprof writer (convert/pprof.h): walk the symbolized stacks once, intern strings,
 * functions, locations and mappings, then build the protobuf-c message, pack it and
 * gzip it with zlib.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "convert/pprof.h"
#include "convert/pprof.pb-c.h"
#include "convert/profile.h"
#include "convert/stacks.h"
#include "lib/alloc.h"
#include "lib/atomicfile.h"
#include "lib/hashmap.h"
#include "lib/report.h"

enum { V_SAMPLES, V_CPU, V_OFFCPU, V_WALL, V_NR };

/* A user DSO's addresses: its first-use slot n at (n + 1) << DSO_SPAN_SHIFT (pprof.h) */
#define DSO_SPAN_SHIFT 36

struct loc {
	uint32_t dso;                  /* CONVERT_DSO_* or a DSO index */
	uint64_t addr;                 /* file offset, or kernel address */
	size_t first_line, nr_lines;   /* into lines, innermost first */
};

struct line {
	uint64_t function_id;
	int64_t line;
};

struct func {
	int64_t name, file;
};

struct sample {
	size_t first_loc, nr_locs;     /* into sample_locs, leaf first */
	int64_t value[V_NR];
	uint32_t pid, tid, run;
	int64_t state;                 /* string id of the thread state, 0 if on-CPU */
};

struct pprof_builder {
	const struct convert_pprof_opts *o;
	struct convert_profile *p;
	int nv;                        /* number of values per sample */
	struct pgo_strtab strs;        /* string table; id 0 is "" */
	struct pgo_strtab func_keys;   /* "name\nfile" -> function index */
	struct func *funcs;
	size_t nr_funcs, alloc_funcs;
	struct pgo_strtab loc_keys;    /* "dso:addr:ret" -> location index */
	struct loc *locs;
	size_t nr_locs, alloc_locs;
	struct line *lines;
	size_t nr_lines, alloc_lines;
	struct pgo_u64map dso_order;   /* DSO index -> first-use order + 1 */
	uint32_t *dsos;                /* DSOs in first-use order (CONVERT_DSO_KERNEL included) */
	size_t nr_dsos, alloc_dsos;
	uint64_t *dso_limit;           /* per first-use order: highest address + 1 */
	uint64_t *dso_low;
	struct sample *samples;
	size_t nr_samples, alloc_samples;
	uint64_t *sample_locs;         /* location index + 1 */
	size_t max_run;                /* highest run index of a sample */
	size_t nr_sample_locs, alloc_sample_locs;
};

static int64_t str_id(struct pprof_builder *b, const char *s)
{
	long id = pgo_strtab_intern(&b->strs, s ? s : "");

	return id < 0 ? -1 : (int64_t)id;
}

static int64_t func_id(struct pprof_builder *b, const struct convert_frame *f)
{
	char key[8192];
	long id;

	snprintf(key, sizeof(key), "%s\n%s", f->name, f->file ? f->file : "");
	id = pgo_strtab_intern(&b->func_keys, key);
	if (id < 0)
		return -1;
	if ((size_t)id == b->nr_funcs) {
		if (PGO_ALLOC_GROW(b->funcs, b->nr_funcs + 1, b->alloc_funcs) < 0)
			return -1;
		b->funcs[b->nr_funcs].name = str_id(b, f->name);
		b->funcs[b->nr_funcs].file = str_id(b, f->file);
		if (b->funcs[b->nr_funcs].name < 0 || b->funcs[b->nr_funcs].file < 0)
			return -1;
		b->nr_funcs++;
	}
	return id + 1;
}

/* The first-use order of a DSO, adding it; -1 on allocation failure. */
static long dso_slot(struct pprof_builder *b, uint32_t dso, uint64_t addr)
{
	uint64_t *v;
	size_t i;

	v = pgo_u64map_find(&b->dso_order, dso);
	if (!v) {
		if (PGO_ALLOC_GROW(b->dsos, b->nr_dsos + 1, b->alloc_dsos) < 0 ||
		    pgo_u64map_put(&b->dso_order, dso, b->nr_dsos + 1) < 0)
			return -1;
		b->dso_limit = realloc(b->dso_limit, b->alloc_dsos * sizeof(*b->dso_limit));
		b->dso_low = realloc(b->dso_low, b->alloc_dsos * sizeof(*b->dso_low));
		if (!b->dso_limit || !b->dso_low)
			return pgo_error("out of memory");
		b->dsos[b->nr_dsos] = dso;
		b->dso_limit[b->nr_dsos] = 0;
		b->dso_low[b->nr_dsos] = UINT64_MAX;
		b->nr_dsos++;
		v = pgo_u64map_find(&b->dso_order, dso);
	}
	i = (size_t)*v - 1;
	if (addr + 1 > b->dso_limit[i])
		b->dso_limit[i] = addr + 1;
	if (addr < b->dso_low[i])
		b->dso_low[i] = addr;
	return (long)i;
}

/*
 * The location of frames[0..n) (one sampled address: outermost function first). Returns
 * its index + 1, or 0 after reporting a failure.
 */
static uint64_t location(struct pprof_builder *b, const struct convert_frame *f, size_t n)
{
	char key[64];
	struct loc *l;
	long id;
	size_t k;

	snprintf(key, sizeof(key), "%x:%llx:%d", f->dso_index, (unsigned long long)f->addr, f->ret);
	id = pgo_strtab_intern(&b->loc_keys, key);
	if (id < 0)
		return 0;
	if ((size_t)id < b->nr_locs)
		return (uint64_t)id + 1;
	if (PGO_ALLOC_GROW(b->locs, b->nr_locs + 1, b->alloc_locs) < 0 ||
	    PGO_ALLOC_GROW(b->lines, b->nr_lines + n, b->alloc_lines) < 0)
		return 0;
	if (f->dso_index != CONVERT_DSO_UNKNOWN && dso_slot(b, f->dso_index, f->addr) < 0)
		return 0;
	l = &b->locs[b->nr_locs++];
	l->dso = f->dso_index;
	l->addr = f->addr;
	l->first_line = b->nr_lines;
	l->nr_lines = n;
	for (k = n; k-- > 0;) {
		int64_t fid = func_id(b, &f[k]);

		if (fid < 0)
			return 0;
		b->lines[b->nr_lines].function_id = (uint64_t)fid;
		b->lines[b->nr_lines].line = f[k].line;
		b->nr_lines++;
	}
	return (uint64_t)id + 1;
}

static int add_sample(const struct convert_stack *st, void *data)
{
	struct pprof_builder *b = data;
	struct sample *s;
	size_t end = st->nr_frames, start;

	if (PGO_ALLOC_GROW(b->samples, b->nr_samples + 1, b->alloc_samples) < 0)
		return -1;
	s = &b->samples[b->nr_samples];
	memset(s, 0, sizeof(*s));
	s->first_loc = b->nr_sample_locs;
	s->pid = st->pid;
	s->tid = st->tid;
	s->run = st->run;
	if (st->run > b->max_run)
		b->max_run = st->run;
	/* the off-CPU thread state is the leaf frame: a label here, not a location */
	if (end && st->frames[end - 1].dso_index == CONVERT_DSO_STATE) {
		s->state = str_id(b, st->frames[end - 1].name);
		if (s->state < 0)
			return -1;
		end--;
	}
	/* walk address groups from the leaf: a group starts at a frame not inlined */
	while (end > 0) {
		uint64_t id;

		for (start = end - 1; start > 0 && st->frames[start].inlined; start--)
			;
		id = location(b, &st->frames[start], end - start);
		if (!id)
			return -1;
		if (PGO_ALLOC_GROW(b->sample_locs, b->nr_sample_locs + 1, b->alloc_sample_locs) < 0)
			return -1;
		b->sample_locs[b->nr_sample_locs++] = id;
		end = start;
	}
	s->nr_locs = b->nr_sample_locs - s->first_loc;
	s->value[V_SAMPLES] = (int64_t)st->samples;
	if (st->view == CONVERT_STACK_OFFCPU)
		s->value[V_OFFCPU] = (int64_t)st->weight_ns;
	else
		s->value[V_CPU] = (int64_t)st->weight_ns;
	s->value[V_WALL] = (int64_t)st->weight_ns;
	b->nr_samples++;
	return 0;
}

static const char *thread_name(const struct pprof_builder *b, uint32_t pid, uint32_t tid)
{
	size_t i;

	for (i = 0; i < b->o->nr_threads; i++)
		if (b->o->threads[i].tid == tid && b->o->threads[i].pid == pid)
			return b->o->threads[i].name;
	return NULL;
}

static void builder_release(struct pprof_builder *b)
{
	pgo_strtab_release(&b->strs);
	pgo_strtab_release(&b->func_keys);
	pgo_strtab_release(&b->loc_keys);
	pgo_u64map_release(&b->dso_order);
	free(b->funcs);
	free(b->locs);
	free(b->lines);
	free(b->dsos);
	free(b->dso_limit);
	free(b->dso_low);
	free(b->samples);
	free(b->sample_locs);
}


/* Everything the message needs, allocated in one go and freed with msg_release(). */
struct pprof_msg {
	Perftools__Profiles__Profile prof;
	Perftools__Profiles__ValueType vt[V_NR], period_type;
	Perftools__Profiles__ValueType *vtp[V_NR];
	Perftools__Profiles__Sample *samples, **samplep;
	Perftools__Profiles__Label *labels, **labelp;
	Perftools__Profiles__Mapping *maps, **mapp;
	Perftools__Profiles__Location *locs, **locp;
	Perftools__Profiles__Line *lines, **linep;
	Perftools__Profiles__Function *funcs, **funcp;
	uint64_t *loc_ids;
	int64_t *values, comment;
	uint64_t *dso_mapping;         /* first-use order -> mapping id */
	char **strings;
};

static void msg_release(struct pprof_msg *m)
{
	free(m->samples);
	free(m->samplep);
	free(m->labels);
	free(m->labelp);
	free(m->maps);
	free(m->mapp);
	free(m->locs);
	free(m->locp);
	free(m->lines);
	free(m->linep);
	free(m->funcs);
	free(m->funcp);
	free(m->loc_ids);
	free(m->values);
	free(m->dso_mapping);
	free(m->strings);
}

enum { L_PID, L_TID, L_RUN, L_THREAD, L_STATE, L_NR };

struct label_keys {
	int64_t key[L_NR];
	int64_t *thread;               /* per sample: thread name string id, 0 if none */
	int64_t *run;                  /* per run index: its number as a string (pprof drops a
					  numeric label of 0, and run 0 is the first) */
};

static int value_types(struct pprof_builder *b, struct pprof_msg *m)
{
	static const char *const names[V_NR][2] = {
		{ "samples", "count" }, { "cpu", "nanoseconds" },
		{ "offcpu", "nanoseconds" }, { "wall", "nanoseconds" },
	};
	int v;

	for (v = 0; v < b->nv; v++) {
		perftools__profiles__value_type__init(&m->vt[v]);
		m->vt[v].type = str_id(b, names[v][0]);
		m->vt[v].unit = str_id(b, names[v][1]);
		if (m->vt[v].type < 0 || m->vt[v].unit < 0)
			return -1;
		m->vtp[v] = &m->vt[v];
	}
	m->prof.n_sample_type = (size_t)b->nv;
	m->prof.sample_type = m->vtp;
	perftools__profiles__value_type__init(&m->period_type);
	m->period_type = m->vt[V_CPU];
	m->prof.period_type = &m->period_type;
	m->prof.default_sample_type = m->vt[V_CPU].type;
	return 0;
}

static int intern_labels(struct pprof_builder *b, struct label_keys *lk)
{
	static const char *const keys[L_NR] = { "pid", "tid", "run", "thread", "thread state" };
	size_t i;
	int k;

	for (k = 0; k < L_NR; k++)
		if ((lk->key[k] = str_id(b, keys[k])) < 0)
			return -1;
	lk->thread = pgo_calloc(b->nr_samples ? b->nr_samples : 1, sizeof(*lk->thread));
	if (!lk->thread)
		return -1;
	lk->run = pgo_calloc(b->max_run + 1, sizeof(*lk->run));
	if (!lk->run)
		return -1;
	for (i = 0; i <= b->max_run; i++) {
		char num[24];

		snprintf(num, sizeof(num), "%zu", i);
		if ((lk->run[i] = str_id(b, num)) < 0)
			return -1;
	}
	for (i = 0; i < b->nr_samples; i++) {
		const char *name = thread_name(b, b->samples[i].pid, b->samples[i].tid);

		if (name && *name && (lk->thread[i] = str_id(b, name)) < 0)
			return -1;
	}
	return 0;
}

static void set_label(Perftools__Profiles__Label *l, int64_t key, int64_t str, int64_t num)
{
	perftools__profiles__label__init(l);
	l->key = key;
	l->str = str;
	l->num = num;
}

static int build_samples(struct pprof_builder *b, struct pprof_msg *m, const struct label_keys *lk)
{
	size_t i, nl = 0, k;

	m->samples = pgo_calloc(b->nr_samples + 1, sizeof(*m->samples));
	m->samplep = pgo_calloc(b->nr_samples + 1, sizeof(*m->samplep));
	m->labels = pgo_calloc(b->nr_samples * L_NR + 1, sizeof(*m->labels));
	m->labelp = pgo_calloc(b->nr_samples * L_NR + 1, sizeof(*m->labelp));
	m->values = pgo_calloc(b->nr_samples * V_NR + 1, sizeof(*m->values));
	m->loc_ids = pgo_calloc(b->nr_sample_locs + 1, sizeof(*m->loc_ids));
	if (!m->samples || !m->samplep || !m->labels || !m->labelp || !m->values || !m->loc_ids)
		return -1;
	for (k = 0; k < b->nr_sample_locs; k++)
		m->loc_ids[k] = b->sample_locs[k];
	for (i = 0; i < b->nr_samples; i++) {
		const struct sample *s = &b->samples[i];
		Perftools__Profiles__Sample *ps = &m->samples[i];
		size_t first = nl;

		perftools__profiles__sample__init(ps);
		ps->n_location_id = s->nr_locs;
		ps->location_id = m->loc_ids + s->first_loc;
		ps->n_value = (size_t)b->nv;
		ps->value = m->values + i * V_NR;
		memcpy(ps->value, s->value, sizeof(s->value));
		set_label(&m->labels[nl++], lk->key[L_PID], 0, s->pid);
		set_label(&m->labels[nl++], lk->key[L_TID], 0, s->tid);
		set_label(&m->labels[nl++], lk->key[L_RUN], lk->run[s->run], 0);
		if (lk->thread[i])
			set_label(&m->labels[nl++], lk->key[L_THREAD], lk->thread[i], 0);
		if (s->state)
			set_label(&m->labels[nl++], lk->key[L_STATE], s->state, 0);
		for (k = first; k < nl; k++)
			m->labelp[k] = &m->labels[k];
		ps->n_label = nl - first;
		ps->label = m->labelp + first;
		m->samplep[i] = ps;
	}
	m->prof.n_sample = b->nr_samples;
	m->prof.sample = m->samplep;
	return 0;
}

/* Is DSO slot i the profiled main binary (the mapping pprof expects first)? */
static int is_main_binary(const struct pprof_builder *b, size_t i)
{
	const char *path, *main_path;
	char bid[41];

	if (!convert_profile_nr_binaries(b->p) || b->dsos[i] >= convert_profile_nr_dsos(b->p) ||
	    convert_profile_dso(b->p, b->dsos[i], &path, bid))
		return 0;
	main_path = convert_profile_binary_path(b->p, 0);
	return main_path && !strcmp(path, main_path);
}

static int fill_mapping(struct pprof_builder *b, Perftools__Profiles__Mapping *mp, size_t i,
			uint64_t id)
{
	const char *path = "[kernel.kallsyms]";
	char bid[41] = "";

	perftools__profiles__mapping__init(mp);
	mp->id = id;
	if (b->dsos[i] == CONVERT_DSO_KERNEL) {
		mp->memory_start = b->dso_low[i];
		mp->memory_limit = b->dso_limit[i];
	} else {
		if (b->dsos[i] != CONVERT_DSO_STATE && convert_profile_dso(b->p, b->dsos[i], &path, bid))
			path = "[unknown]";
		mp->memory_start = (uint64_t)(i + 1) << DSO_SPAN_SHIFT;
		mp->memory_limit = mp->memory_start + b->dso_limit[i];
	}
	mp->filename = str_id(b, path);
	mp->build_id = str_id(b, bid);
	if (mp->filename < 0 || mp->build_id < 0)
		return -1;
	mp->has_functions = mp->has_filenames = mp->has_line_numbers = mp->has_inline_frames = 1;
	return 0;
}

static int build_mappings(struct pprof_builder *b, struct pprof_msg *m)
{
	size_t i, n = 0;
	int pass;

	m->maps = pgo_calloc(b->nr_dsos + 1, sizeof(*m->maps));
	m->mapp = pgo_calloc(b->nr_dsos + 1, sizeof(*m->mapp));
	m->dso_mapping = pgo_calloc(b->nr_dsos + 1, sizeof(*m->dso_mapping));
	if (!m->maps || !m->mapp || !m->dso_mapping)
		return -1;
	/* the main binary first, then the others in order of first use */
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < b->nr_dsos; i++) {
			if (b->dsos[i] == CONVERT_DSO_STATE || is_main_binary(b, i) != !pass)
				continue;
			if (fill_mapping(b, &m->maps[n], i, n + 1) < 0)
				return -1;
			m->mapp[n] = &m->maps[n];
			m->dso_mapping[i] = ++n;
		}
	m->prof.n_mapping = n;
	m->prof.mapping = m->mapp;
	return 0;
}

static int build_locations(struct pprof_builder *b, struct pprof_msg *m)
{
	size_t i, k;

	m->locs = pgo_calloc(b->nr_locs + 1, sizeof(*m->locs));
	m->locp = pgo_calloc(b->nr_locs + 1, sizeof(*m->locp));
	m->lines = pgo_calloc(b->nr_lines + 1, sizeof(*m->lines));
	m->linep = pgo_calloc(b->nr_lines + 1, sizeof(*m->linep));
	if (!m->locs || !m->locp || !m->lines || !m->linep)
		return -1;
	for (k = 0; k < b->nr_lines; k++) {
		perftools__profiles__line__init(&m->lines[k]);
		m->lines[k].function_id = b->lines[k].function_id;
		m->lines[k].line = b->lines[k].line;
		m->linep[k] = &m->lines[k];
	}
	for (i = 0; i < b->nr_locs; i++) {
		const struct loc *l = &b->locs[i];
		Perftools__Profiles__Location *pl = &m->locs[i];
		uint64_t *slot = pgo_u64map_find(&b->dso_order, l->dso);

		perftools__profiles__location__init(pl);
		pl->id = i + 1;
		pl->mapping_id = slot ? m->dso_mapping[*slot - 1] : 0;
		pl->address = l->addr;
		if (slot && l->dso != CONVERT_DSO_KERNEL)
			pl->address += (uint64_t)*slot << DSO_SPAN_SHIFT;
		pl->n_line = l->nr_lines;
		pl->line = m->linep + l->first_line;
		m->locp[i] = pl;
	}
	m->prof.n_location = b->nr_locs;
	m->prof.location = m->locp;
	return 0;
}

static int build_functions(struct pprof_builder *b, struct pprof_msg *m)
{
	size_t i;

	m->funcs = pgo_calloc(b->nr_funcs + 1, sizeof(*m->funcs));
	m->funcp = pgo_calloc(b->nr_funcs + 1, sizeof(*m->funcp));
	if (!m->funcs || !m->funcp)
		return -1;
	for (i = 0; i < b->nr_funcs; i++) {
		perftools__profiles__function__init(&m->funcs[i]);
		m->funcs[i].id = i + 1;
		m->funcs[i].name = m->funcs[i].system_name = b->funcs[i].name;
		m->funcs[i].filename = b->funcs[i].file;
		m->funcp[i] = &m->funcs[i];
	}
	m->prof.n_function = b->nr_funcs;
	m->prof.function = m->funcp;
	return 0;
}

static void set_period_duration(struct pprof_builder *b, struct pprof_msg *m)
{
	const struct convert_info *info = convert_profile_info(b->p);
	size_t i;

	if (info->rate_hz)
		m->prof.period = (int64_t)(1000000000ULL / info->rate_hz);
	else if (info->period_ns)
		m->prof.period = (int64_t)info->period;
	for (i = 0; i < convert_profile_nr_runs(b->p); i++) {
		const struct convert_run_info *r = convert_profile_run_info(b->p, i);

		if (r->end_ns > r->start_ns)
			m->prof.duration_nanos += (int64_t)(r->end_ns - r->start_ns);
	}
}

static int pack_profile(struct pprof_builder *b, uint8_t **out, size_t *len)
{
	const struct convert_info *info = convert_profile_info(b->p);
	struct label_keys lk = { { 0 }, NULL, NULL };
	struct pprof_msg m;
	size_t i;
	int err = -1;

	memset(&m, 0, sizeof(m));
	perftools__profiles__profile__init(&m.prof);
	*out = NULL;
	/* every string is interned before the table is laid out */
	if (value_types(b, &m) < 0 || intern_labels(b, &lk) < 0 || build_mappings(b, &m) < 0)
		goto out;
	if (info->command && *info->command) {
		if ((m.comment = str_id(b, info->command)) < 0)
			goto out;
		m.prof.n_comment = 1;
		m.prof.comment = &m.comment;
	}
	if (build_samples(b, &m, &lk) < 0 || build_locations(b, &m) < 0 || build_functions(b, &m) < 0)
		goto out;
	set_period_duration(b, &m);
	m.strings = pgo_calloc(b->strs.nr + 1, sizeof(*m.strings));
	if (!m.strings)
		goto out;
	for (i = 0; i < b->strs.nr; i++)
		m.strings[i] = (char *)pgo_strtab_str(&b->strs, i);
	m.prof.n_string_table = b->strs.nr;
	m.prof.string_table = m.strings;
	*len = perftools__profiles__profile__get_packed_size(&m.prof);
	*out = malloc(*len ? *len : 1);
	if (!*out) {
		pgo_error("out of memory for a %zu-byte profile", *len);
		goto out;
	}
	perftools__profiles__profile__pack(&m.prof, *out);
	err = 0;
out:
	free(lk.thread);
	free(lk.run);
	msg_release(&m);
	return err;
}

/* gzip `data` (deterministic: no name, time 0) into a new buffer. */
static int gzip_bytes(const uint8_t *data, size_t len, uint8_t **out, size_t *out_len)
{
	z_stream z;
	uLong cap;
	int r;

	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return pgo_error("cannot start zlib's deflate");
	cap = deflateBound(&z, (uLong)len) + 64;
	*out = malloc(cap);
	if (!*out) {
		deflateEnd(&z);
		return pgo_error("out of memory");
	}
	z.next_in = (Bytef *)data;
	z.avail_in = (uInt)len;
	z.next_out = *out;
	z.avail_out = (uInt)cap;
	r = deflate(&z, Z_FINISH);
	*out_len = z.total_out;
	deflateEnd(&z);
	if (r != Z_STREAM_END) {
		free(*out);
		*out = NULL;
		return pgo_error("zlib's deflate failed (%d)", r);
	}
	return 0;
}

int convert_pprof_write(struct convert_profile *p, const struct convert_pprof_opts *o,
			const char *path, struct convert_pprof_summary *sum)
{
	static const struct convert_pprof_opts none;
	struct pprof_builder b;
	uint8_t *packed = NULL, *gz = NULL;
	size_t len = 0, gz_len = 0;
	int err = -1;

	memset(&b, 0, sizeof(b));
	b.o = o ? o : &none;
	b.p = p;
	b.nv = convert_profile_info(p)->has_offcpu ? V_NR : V_OFFCPU;
	if (str_id(&b, "") != 0)
		goto out;
	if (convert_stacks_foreach(p, add_sample, &b) < 0)
		goto out;
	if (pack_profile(&b, &packed, &len) < 0)
		goto out;
	if (gzip_bytes(packed, len, &gz, &gz_len) < 0)
		goto out;
	if (pgo_write_file_atomic(path, gz, gz_len) < 0)
		goto out;
	if (sum) {
		sum->samples = b.nr_samples;
		sum->locations = b.nr_locs;
		sum->functions = b.nr_funcs;
		sum->mappings = b.nr_dsos;
	}
	err = 0;
out:
	free(packed);
	free(gz);
	builder_release(&b);
	return err;
}
