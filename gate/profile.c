// SPDX-License-Identifier: MIT
/* Read and strictly validate a "pgo-profile" JSON into per-run folded-stack counts. */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "gate/profile.h"
#include "lib/alloc.h"
#include "lib/atomicfile.h"
#include "lib/buf.h"
#include "lib/report.h"

#define PROFILE_MAX_BYTES (1UL << 30)
#define PROFILE_MAX_RUNS 100000
#define PROFILE_MAX_DEPTH 8192
/* No symbol is this long; a longer name is damage or a hostile note (docs/profile-json.md). */
#define PROFILE_MAX_FRAME (1u << 20)

static const char *const view_names[GATE_VIEW_NR] = { "cpu", "offcpu", "wall" };

const char *gate_view_name(enum gate_view_kind v)
{
	return v < GATE_VIEW_NR ? view_names[v] : "?";
}

int gate_view_parse(const char *name)
{
	int i;

	for (i = 0; i < GATE_VIEW_NR; i++)
		if (!strcmp(name, view_names[i]))
			return i;
	return -1;
}

static int all_digits(const char *s, size_t n)
{
	size_t i;

	if (!n)
		return 0;
	for (i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return 0;
	return 1;
}

/* Length of name without its last clone suffix, or len if it has none. */
static size_t strip_one_suffix(const char *name, size_t len)
{
	static const char *const numbered[] = { "isra", "constprop", "part", "llvm", "lto_priv",
						"cold" };
	const char *dot;
	size_t i, tail;

	dot = memrchr(name, '.', len);
	if (!dot || dot == name)
		return len;
	tail = len - (size_t)(dot - name) - 1;
	if (tail == 4 && !memcmp(dot + 1, "cold", 4))
		return (size_t)(dot - name);
	if (!all_digits(dot + 1, tail))
		return len;
	/* dot + 1 is the number; the word before it must be a known clone kind. */
	for (i = 0; i < PGO_ARRAY_SIZE(numbered); i++) {
		size_t wl = strlen(numbered[i]);
		const char *w = dot - wl;

		if (w - 1 > name && w[-1] == '.' && !memcmp(w, numbered[i], wl))
			return (size_t)(w - 1 - name);
	}
	return len;
}

size_t gate_fold_clone_len(const char *name, size_t len)
{
	size_t n;

	while ((n = strip_one_suffix(name, len)) != len)
		len = n;
	return len;
}

struct parse_ctx {
	const char *label;
	struct gate_profile *p;
	struct pgo_buf key;
	uint32_t *frames;
	size_t frames_alloc;
};

static int bad(struct parse_ctx *c, const char *path, const char *what)
{
	return pgo_error("'%s': %s: %s (not a valid pgo-profile; regenerate it with 'pgo convert --to json')",
			 c->label, path, what);
}

static int get_string(struct parse_ctx *c, json_t *obj, const char *key, int required,
		      const char *where, char **out)
{
	json_t *v = json_object_get(obj, key);
	char path[128];

	snprintf(path, sizeof(path), "%s.%s", where, key);
	if (!v) {
		if (!required)
			return 0;
		return bad(c, path, "missing");
	}
	if (!json_is_string(v))
		return bad(c, path, "expected a string");
	if (strlen(json_string_value(v)) != json_string_length(v))
		return bad(c, path, "contains a NUL character");
	*out = pgo_strdup(json_string_value(v));
	return *out ? 0 : -1;
}

static int get_u64(struct parse_ctx *c, json_t *obj, const char *key, int required,
		   const char *where, uint64_t *out)
{
	json_t *v = json_object_get(obj, key);
	char path[128];

	snprintf(path, sizeof(path), "%s.%s", where, key);
	if (!v) {
		if (!required)
			return 0;
		return bad(c, path, "missing");
	}
	if (!json_is_integer(v))
		return bad(c, path, "expected an integer");
	if (json_integer_value(v) < 0)
		return bad(c, path, "expected a non-negative integer");
	*out = (uint64_t)json_integer_value(v);
	return 0;
}

static int view_reserve(struct gate_view *v, size_t nr_runs)
{
	if (PGO_ALLOC_GROW(v->stacks, v->nr_stacks + 1, v->stacks_alloc) ||
	    PGO_ALLOC_GROW(v->counts, (v->nr_stacks + 1) * nr_runs, v->counts_alloc))
		return -1;
	return 0;
}

/*
 * Add weight w (sample equivalents) of a folded stack to run r of view v. The stack's
 * frames are folded for clones; c->key holds the folded text.
 */
static int add_stack(struct parse_ctx *c, struct gate_view *v, const char *stack, size_t slen,
		     size_t r, double w, const char *path)
{
	struct gate_profile *p = c->p;
	size_t depth = 0, i = 0;
	long sid;

	pgo_buf_reset(&c->key);
	if (!slen)
		return bad(c, path, "empty stack");
	while (i <= slen) {
		const char *f = stack + i, *end = memchr(f, ';', slen - i);
		size_t flen = end ? (size_t)(end - f) : slen - i, base = flen, klen;
		long id;

		if (!flen)
			return bad(c, path, "empty frame name in stack");
		if (flen > PROFILE_MAX_FRAME)
			return bad(c, path, "frame name longer than 1 MiB");
		/* Keep the kernel marker outside the clone search: "foo.isra.0_[k]" -> "foo_[k]". */
		klen = (flen > 4 && !memcmp(f + flen - 4, "_[k]", 4)) ? 4 : 0;
		base = gate_fold_clone_len(f, flen - klen);
		if (depth >= PROFILE_MAX_DEPTH)
			return bad(c, path, "stack deeper than 8192 frames");
		if (PGO_ALLOC_GROW(c->frames, depth + 1, c->frames_alloc))
			return -1;
		if ((c->key.len && pgo_buf_addch(&c->key, ';')) || pgo_buf_add(&c->key, f, base) ||
		    pgo_buf_add(&c->key, f + flen - klen, klen))
			return -1;
		id = pgo_strtab_intern_len(p->names, c->key.data + c->key.len - base - klen, base + klen);
		if (id < 0)
			return -1;
		c->frames[depth++] = (uint32_t)id;
		i += flen + 1;
	}
	sid = pgo_strtab_intern_len(&v->index, c->key.data, c->key.len);
	if (sid < 0)
		return -1;
	if ((size_t)sid == v->nr_stacks) {
		struct gate_stack *s;

		if (view_reserve(v, p->nr_runs))
			return -1;
		s = &v->stacks[v->nr_stacks];
		s->frames = pgo_calloc(depth, sizeof(*s->frames));
		if (!s->frames)
			return -1;
		memcpy(s->frames, c->frames, depth * sizeof(*s->frames));
		s->depth = depth;
		memset(v->counts + v->nr_stacks * p->nr_runs, 0, p->nr_runs * sizeof(double));
		v->nr_stacks++;
	}
	v->counts[(size_t)sid * p->nr_runs + r] += w;
	return 0;
}

/* Validate a stack object; returns the sum of its weights in *sum. */
static int sum_stacks(struct parse_ctx *c, json_t *obj, const char *where, double *sum)
{
	const char *k;
	json_t *v;
	char path[160];

	*sum = 0;
	if (!json_is_object(obj))
		return bad(c, where, "expected an object of stack -> ns");
	json_object_foreach(obj, k, v) {
		if (!json_is_integer(v) || json_integer_value(v) < 0) {
			snprintf(path, sizeof(path), "%s[\"%.60s\"]", where, k);
			return bad(c, path, "expected a non-negative integer weight in ns");
		}
		*sum += (double)json_integer_value(v);
	}
	return 0;
}

static int add_stacks(struct parse_ctx *c, json_t *obj, const char *where, size_t r,
		      double scale, enum gate_view_kind kind)
{
	const char *k;
	json_t *v;
	char path[160];

	json_object_foreach(obj, k, v) {
		double w = (double)json_integer_value(v) * scale;
		size_t klen = strlen(k);

		snprintf(path, sizeof(path), "%s[\"%.60s\"]", where, k);
		if (add_stack(c, &c->p->views[kind], k, klen, r, w, path) ||
		    add_stack(c, &c->p->views[GATE_VIEW_WALL], k, klen, r, w, path))
			return -1;
	}
	return 0;
}

static int parse_run(struct parse_ctx *c, json_t *run, size_t r, int want_offcpu)
{
	struct gate_profile *p = c->p;
	struct gate_run *gr = &p->runs[r];
	char where[64];
	json_t *cpu, *off, *v;
	double cpu_sum, off_sum = 0, scale;
	uint64_t u = 0;

	snprintf(where, sizeof(where), "$.runs[%zu]", r);
	if (!json_is_object(run))
		return bad(c, where, "expected an object");
	v = json_object_get(run, "run");
	if (v && !json_is_integer(v))
		return bad(c, where, "'run' is not an integer");
	gr->run = v ? json_integer_value(v) : (int64_t)r;
	/* A copied run would count its noise twice and shrink the variance the test sees. */
	for (size_t i = 0; i < r; i++)
		if (p->runs[i].run == gr->run)
			return bad(c, where, "run number appears twice");
	v = json_object_get(run, "pid");
	if (v && !json_is_integer(v))
		return bad(c, where, "'pid' is not an integer");
	gr->pid = v ? json_integer_value(v) : 0;
	if (get_u64(c, run, "duration_ns", 0, where, &gr->duration_ns) ||
	    get_u64(c, run, "cpu_ns", 1, where, &gr->cpu_ns) ||
	    get_u64(c, run, "offcpu_ns", 0, where, &gr->offcpu_ns) ||
	    get_u64(c, run, "samples", 1, where, &gr->samples) ||
	    get_u64(c, run, "lost", 0, where, &u))
		return -1;
	gr->lost = u;
	if (gr->lost)
		pgo_warn("'%s': run %zu lost %llu samples; its counts are low by that much", c->label,
			 r, (unsigned long long)gr->lost);
	cpu = json_object_get(run, "cpu");
	snprintf(where, sizeof(where), "$.runs[%zu].cpu", r);
	if (!cpu)
		return bad(c, where, "missing");
	if (sum_stacks(c, cpu, where, &cpu_sum))
		return -1;
	off = json_object_get(run, "offcpu");
	if (off && !json_is_null(off)) {
		snprintf(where, sizeof(where), "$.runs[%zu].offcpu", r);
		if (sum_stacks(c, off, where, &off_sum))
			return -1;
	}
	if (gr->samples && cpu_sum > 0)
		scale = (double)gr->samples / cpu_sum;
	else
		scale = (p->rate_hz > 0 ? p->rate_hz : 1000) / 1e9;
	snprintf(where, sizeof(where), "$.runs[%zu].cpu", r);
	if (add_stacks(c, cpu, where, r, scale, GATE_VIEW_CPU))
		return -1;
	if (off && !json_is_null(off) && want_offcpu) {
		snprintf(where, sizeof(where), "$.runs[%zu].offcpu", r);
		scale = (p->rate_hz > 0 ? p->rate_hz : 1000) / 1e9;
		if (add_stacks(c, off, where, r, scale, GATE_VIEW_OFFCPU))
			return -1;
	}
	return 0;
}

int gate_profile_parse(const char *data, size_t len, const char *label,
		       struct pgo_strtab *names, struct gate_profile **out)
{
	struct parse_ctx c = { .label = label, .key = PGO_BUF_INIT };
	struct gate_profile *p;
	json_error_t jerr;
	json_t *root, *v, *bin, *runs, *views;
	char *unit = NULL, *format = NULL;
	size_t i;
	int err = -1, want_offcpu = 0, has_cpu = 0;

	*out = NULL;
	p = pgo_calloc(1, sizeof(*p));
	if (!p)
		return -1;
	p->names = names;
	c.p = p;
	root = json_loadb(data, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root) {
		pgo_error("'%s': line %d: %s (truncated or not JSON?)", label, jerr.line, jerr.text);
		goto out;
	}
	if (!(p->label = pgo_strdup(label)))
		goto out;
	if (!json_is_object(root)) {
		bad(&c, "$", "expected an object");
		goto out;
	}
	if (get_string(&c, root, "format", 1, "$", &format))
		goto out;
	if (strcmp(format, "pgo-profile")) {
		pgo_error("'%s': $.format: '%s' is not a pgo-profile", label, format);
		goto out;
	}
	v = json_object_get(root, "version");
	if (!v || !json_is_integer(v)) {
		bad(&c, "$.version", "missing or not an integer");
		goto out;
	}
	if (json_integer_value(v) != 1) {
		pgo_error("'%s': $.version: version %lld is not supported (this pgo reads version 1); "
			  "upgrade pgo or regenerate the profile", label,
			  (long long)json_integer_value(v));
		goto out;
	}
	/* convert's writer leaves out what it does not know: event, binary, rate_hz. */
	if (get_string(&c, root, "tool", 0, "$", &p->tool) ||
	    get_string(&c, root, "command", 0, "$", &p->command) ||
	    get_string(&c, root, "event", 0, "$", &p->event) ||
	    get_string(&c, root, "unit", 1, "$", &unit))
		goto out;
	if (!p->event && !(p->event = pgo_strdup("unknown")))
		goto out;
	if (strcmp(unit, "ns")) {
		pgo_error("'%s': $.unit: unit '%s' is not supported (expected 'ns')", label, unit);
		goto out;
	}
	bin = json_object_get(root, "binary");
	if (bin && !json_is_object(bin)) {
		bad(&c, "$.binary", "not an object");
		goto out;
	}
	if (bin && (get_string(&c, bin, "path", 0, "$.binary", &p->binary_path) ||
		    get_string(&c, bin, "build_id", 0, "$.binary", &p->build_id)))
		goto out;
	if (!p->binary_path && !(p->binary_path = pgo_strdup("[unknown]")))
		goto out;
	v = json_object_get(root, "rate_hz");
	if (v && (!json_is_number(v) || !isfinite(json_number_value(v)) ||
		  json_number_value(v) < 0)) {
		bad(&c, "$.rate_hz", "not a non-negative number");
		goto out;
	}
	p->rate_hz = v ? json_number_value(v) : 0;
	views = json_object_get(root, "views");
	if (!json_is_array(views)) {
		bad(&c, "$.views", "missing or not an array");
		goto out;
	}
	for (i = 0; i < json_array_size(views); i++) {
		json_t *e = json_array_get(views, i);
		char path[32];

		snprintf(path, sizeof(path), "$.views[%zu]", i);
		if (!json_is_string(e)) {
			bad(&c, path, "expected a string");
			goto out;
		}
		if (!strcmp(json_string_value(e), "cpu"))
			has_cpu = 1;
		else if (!strcmp(json_string_value(e), "offcpu"))
			want_offcpu = 1;
	}
	if (!has_cpu) {
		bad(&c, "$.views", "the 'cpu' view is required");
		goto out;
	}
	runs = json_object_get(root, "runs");
	if (!json_is_array(runs)) {
		bad(&c, "$.runs", "missing or not an array");
		goto out;
	}
	p->nr_runs = json_array_size(runs);
	if (!p->nr_runs) {
		bad(&c, "$.runs", "no runs");
		goto out;
	}
	if (p->nr_runs > PROFILE_MAX_RUNS) {
		bad(&c, "$.runs", "more than 100000 runs");
		goto out;
	}
	p->runs = pgo_calloc(p->nr_runs, sizeof(*p->runs));
	if (!p->runs)
		goto out;
	p->views[GATE_VIEW_CPU].present = 1;
	p->views[GATE_VIEW_WALL].present = want_offcpu;
	p->views[GATE_VIEW_OFFCPU].present = want_offcpu;
	for (i = 0; i < p->nr_runs; i++)
		if (parse_run(&c, json_array_get(runs, i), i, want_offcpu))
			goto out;
	err = 0;
out:
	json_decref(root);
	free(unit);
	free(format);
	free(c.frames);
	pgo_buf_release(&c.key);
	if (err)
		gate_profile_free(p);
	else
		*out = p;
	return err;
}

int gate_profile_read(const char *path, struct pgo_strtab *names, struct gate_profile **out)
{
	char *data;
	size_t len;
	int err;

	*out = NULL;
	if (pgo_read_file(path, PROFILE_MAX_BYTES, &data, &len))
		return -1;
	err = gate_profile_parse(data, len, path, names, out);
	free(data);
	return err;
}

void gate_profile_free(struct gate_profile *p)
{
	size_t i;
	int k;

	if (!p)
		return;
	for (k = 0; k < GATE_VIEW_NR; k++) {
		struct gate_view *v = &p->views[k];

		for (i = 0; i < v->nr_stacks; i++)
			free(v->stacks[i].frames);
		free(v->stacks);
		free(v->counts);
		pgo_strtab_release(&v->index);
	}
	free(p->label);
	free(p->tool);
	free(p->command);
	free(p->binary_path);
	free(p->build_id);
	free(p->event);
	free(p->runs);
	free(p);
}

static int merge_view(struct gate_profile *p, const struct gate_profile *src, size_t col0,
		      enum gate_view_kind k)
{
	const struct gate_view *sv = &src->views[k];
	struct gate_view *v = &p->views[k];
	struct pgo_buf key = PGO_BUF_INIT;
	size_t s, i, r;
	int err = -1;

	for (s = 0; s < sv->nr_stacks; s++) {
		const struct gate_stack *st = &sv->stacks[s];
		long sid;

		pgo_buf_reset(&key);
		for (i = 0; i < st->depth; i++)
			if ((i && pgo_buf_addch(&key, ';')) ||
			    pgo_buf_adds(&key, pgo_strtab_str(p->names, st->frames[i])))
				goto out;
		sid = pgo_strtab_intern_len(&v->index, key.data, key.len);
		if (sid < 0)
			goto out;
		if ((size_t)sid == v->nr_stacks) {
			if (view_reserve(v, p->nr_runs))
				goto out;
			v->stacks[sid].frames = pgo_calloc(st->depth, sizeof(*st->frames));
			if (!v->stacks[sid].frames)
				goto out;
			memcpy(v->stacks[sid].frames, st->frames, st->depth * sizeof(*st->frames));
			v->stacks[sid].depth = st->depth;
			v->nr_stacks++;
		}
		for (r = 0; r < src->nr_runs; r++)
			v->counts[(size_t)sid * p->nr_runs + col0 + r] +=
				sv->counts[s * src->nr_runs + r];
	}
	err = 0;
out:
	pgo_buf_release(&key);
	return err;
}

int gate_profile_merge(const struct gate_profile *a, const struct gate_profile *b,
		       struct gate_profile **out)
{
	struct gate_profile *p;
	int k;

	*out = NULL;
	if (a->names != b->names)
		PGO_BUG("profiles merged with different name tables");
	p = pgo_calloc(1, sizeof(*p));
	if (!p)
		return -1;
	p->names = a->names;
	p->rate_hz = a->rate_hz;
	p->nr_runs = a->nr_runs + b->nr_runs;
	if (!(p->label = pgo_strdup(a->label)) || !(p->event = pgo_strdup(a->event)) ||
	    !(p->binary_path = pgo_strdup(a->binary_path)) ||
	    (a->command && !(p->command = pgo_strdup(a->command))) ||
	    (a->tool && !(p->tool = pgo_strdup(a->tool))) ||
	    (a->build_id && !(p->build_id = pgo_strdup(a->build_id))) ||
	    !(p->runs = pgo_calloc(p->nr_runs, sizeof(*p->runs))))
		goto fail;
	memcpy(p->runs, a->runs, a->nr_runs * sizeof(*p->runs));
	memcpy(p->runs + a->nr_runs, b->runs, b->nr_runs * sizeof(*p->runs));
	for (k = 0; k < GATE_VIEW_NR; k++) {
		p->views[k].present = a->views[k].present && b->views[k].present;
		if (merge_view(p, a, 0, k) || merge_view(p, b, a->nr_runs, k))
			goto fail;
	}
	*out = p;
	return 0;
fail:
	gate_profile_free(p);
	return -1;
}
