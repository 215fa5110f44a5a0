// SPDX-License-Identifier: MIT
/* Profile JSON (docs/profile-json.md) writer and strict reader, over jansson. */
#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "convert/profile_json.h"
#include "lib/alloc.h"
#include "lib/atomicfile.h"
#include "lib/buf.h"
#include "lib/report.h"

/* Profiles live in git notes; anything near this size is not one of ours. */
#define PROFILE_MAX_BYTES ((size_t)1 << 30)
/* Bounds that keep hostile input from costing quadratic time or absurd graphs. */
#define PROFILE_MAX_RUNS 100000
#define PROFILE_MAX_DEPTH 8192
/* No symbol is this long; a longer name is damage or a hostile file (docs/profile-json.md). */
#define PROFILE_MAX_FRAME (1u << 20)

static int set_str(json_t *obj, const char *key, const char *val)
{
	if (!val)
		return 0;
	if (json_object_set_new(obj, key, json_string(val)))
		return pgo_error("cannot store '%s' in the profile: not valid UTF-8 or out of memory",
				 key);
	return 0;
}

static int set_u64(json_t *obj, const char *key, uint64_t val)
{
	if (val > INT64_MAX)
		return pgo_error("value %" PRIu64 " of '%s' is too large for the profile", val, key);
	if (json_object_set_new(obj, key, json_integer((json_int_t)val)))
		return pgo_error("out of memory");
	return 0;
}

static json_t *stacks_object(const struct convert_stackset *set, size_t run, enum convert_view view)
{
	struct convert_stack_weight *sw;
	size_t i, nr;
	json_t *obj;

	if (convert_stackset_collect(set, view, (long)run, &sw, &nr))
		return NULL;
	obj = json_object();
	if (!obj)
		goto fail;
	for (i = 0; i < nr; i++) {
		const char *stack = convert_stackset_stack(set, sw[i].stack);

		if (set_u64(obj, stack, sw[i].weight))
			goto fail;
	}
	free(sw);
	return obj;
fail:
	json_decref(obj);
	free(sw);
	return NULL;
}

static json_t *run_object(const struct convert_stackset *set, size_t i)
{
	const struct convert_run *r = &set->runs[i];
	json_t *o = json_object(), *m;
	uint64_t cpu = r->cpu_ns ? r->cpu_ns : convert_run_total(r, CONVERT_VIEW_CPU);
	uint64_t off = r->offcpu_ns ? r->offcpu_ns : convert_run_total(r, CONVERT_VIEW_OFFCPU);

	if (!o)
		return NULL;
	if (set_u64(o, "run", r->run) ||
	    json_object_set_new(o, "pid", json_integer((json_int_t)r->pid)) ||
	    set_u64(o, "duration_ns", r->duration_ns) || set_u64(o, "cpu_ns", cpu) ||
	    set_u64(o, "offcpu_ns", off) || set_u64(o, "samples", r->samples) ||
	    set_u64(o, "lost", r->lost))
		goto fail;
	m = stacks_object(set, i, CONVERT_VIEW_CPU);
	if (!m || json_object_set_new(o, "cpu", m))
		goto fail;
	if (set->views & (1u << CONVERT_VIEW_OFFCPU)) {
		m = stacks_object(set, i, CONVERT_VIEW_OFFCPU);
		if (!m || json_object_set_new(o, "offcpu", m))
			goto fail;
	}
	return o;
fail:
	json_decref(o);
	return NULL;
}

struct dso_frame {
	const char *dso, *frame;
	int own;
};

static int cmp_dso_frame(const void *a, const void *b)
{
	const struct dso_frame *x = a, *y = b;
	int c = strcmp(x->dso, y->dso);

	return c ? c : strcmp(x->frame, y->frame);
}

/*
 * "dsos": { "libc.so.6": { "own": false, "frames": [...] }, ... }, DSOs and frames sorted
 * so the same profile always writes the same bytes. NULL after reporting.
 */
static json_t *dsos_object(const struct convert_stackset *set)
{
	struct dso_frame *pairs;
	size_t i, nr = 0;
	json_t *obj = json_object(), *arr = NULL;

	pairs = pgo_calloc(set->frame_dsos.count + 1, sizeof(*pairs));
	if (!obj || !pairs)
		goto fail;
	for (i = 0; i < set->frame_dsos.cap; i++) {
		const struct pgo_u64map_slot *sl = &set->frame_dsos.slots[i];
		size_t d = (size_t)(sl->key >> 32);

		if (!sl->used)
			continue;
		pairs[nr].dso = pgo_strtab_str(&set->dsos, d);
		pairs[nr].frame = pgo_strtab_str(&set->frame_names, (size_t)(sl->key & 0xffffffffu));
		pairs[nr++].own = set->dso_own[d];
	}
	qsort(pairs, nr, sizeof(*pairs), cmp_dso_frame);
	for (i = 0; i < nr; i++) {
		if (!i || strcmp(pairs[i].dso, pairs[i - 1].dso)) {
			json_t *o = json_object();

			arr = json_array();
			if (!o || json_object_set_new(obj, pairs[i].dso, o) || !arr ||
			    json_object_set_new(o, "own", json_boolean(pairs[i].own)) ||
			    json_object_set_new(o, "frames", arr)) {
				json_decref(arr);
				goto oom;
			}
		}
		if (json_array_append_new(arr, json_string(pairs[i].frame)))
			goto oom;
	}
	free(pairs);
	return obj;
oom:
	pgo_error("cannot store the DSOs in the profile: not valid UTF-8 or out of memory");
fail:
	free(pairs);
	json_decref(obj);
	return NULL;
}

int convert_profile_json_write(FILE *fp, const struct convert_stackset *set)
{
	json_t *root = json_object(), *bin = NULL, *views, *runs;
	size_t i;
	int err = -1;

	if (!root)
		return pgo_error("out of memory");
	if (set_str(root, "format", CONVERT_PROFILE_FORMAT) ||
	    set_u64(root, "version", CONVERT_PROFILE_VERSION) || set_str(root, "tool", set->tool) ||
	    set_str(root, "command", set->command))
		goto out;
	/* binary and rate_hz are always present (possibly empty / 0): the documented shape */
	bin = json_object();
	if (!bin || set_str(bin, "path", set->binary_path) ||
	    set_str(bin, "build_id", set->build_id) || json_object_set(root, "binary", bin))
		goto out;
	if (set_str(root, "event", set->event) || set_u64(root, "rate_hz", set->rate_hz) ||
	    set_str(root, "unit", "ns"))
		goto out;
	views = json_array();
	if (!views || json_object_set_new(root, "views", views))
		goto out;
	for (i = 0; i < CONVERT_VIEW_NR; i++)
		if ((set->views & (1u << i)) &&
		    json_array_append_new(views, json_string(convert_view_name((enum convert_view)i))))
			goto out;
	if (set->dsos.nr) {
		json_t *d = dsos_object(set);

		if (!d || json_object_set_new(root, "dsos", d))
			goto out;
	}
	runs = json_array();
	if (!runs || json_object_set_new(root, "runs", runs))
		goto out;
	for (i = 0; i < set->nr_runs; i++) {
		json_t *r = run_object(set, i);

		if (!r || json_array_append_new(runs, r))
			goto out;
	}
	/*
	 * One stack per line keeps git diffs of notes readable. A write error is reported
	 * by the caller, who knows the file's name; anything else is reported here.
	 */
	if (json_dumpf(root, fp, JSON_INDENT(1) | JSON_PRESERVE_ORDER) || fputc('\n', fp) == EOF ||
	    ferror(fp)) {
		if (!ferror(fp))
			pgo_error("cannot format the profile JSON (out of memory?)");
		goto out;
	}
	err = 0;
out:
	json_decref(bin);
	json_decref(root);
	return err;
}

/* Reader. Every error names the input and the JSON path of the bad field. */

struct jctx {
	const char *name;
	struct pgo_buf path;
	struct pgo_u64map run_numbers; /* the runs seen so far: a pairwise check is quadratic */
};

static int bad(struct jctx *c, const char *what)
{
	return pgo_error("invalid profile '%s': %s: %s", c->name,
			 c->path.len ? pgo_buf_str(&c->path) : "top level", what);
}

/* Set the path to "prefix.key" for the next message. */
static void at(struct jctx *c, const char *prefix, const char *key)
{
	pgo_buf_reset(&c->path);
	if (prefix && *prefix)
		pgo_buf_addf(&c->path, "%s.%s", prefix, key);
	else
		pgo_buf_adds(&c->path, key);
}

static int get_u64(struct jctx *c, json_t *v, uint64_t *out)
{
	if (!json_is_integer(v) || json_integer_value(v) < 0)
		return bad(c, "expected a non-negative integer");
	*out = (uint64_t)json_integer_value(v);
	return 0;
}

/* Optional string member; *out is new or left NULL. */
static int opt_str(struct jctx *c, json_t *obj, const char *prefix, const char *key, char **out)
{
	json_t *v = json_object_get(obj, key);

	if (!v)
		return 0;
	at(c, prefix, key);
	if (!json_is_string(v))
		return bad(c, "expected a string");
	*out = pgo_strdup(json_string_value(v));
	return *out ? 0 : -1;
}

static int opt_u64(struct jctx *c, json_t *obj, const char *prefix, const char *key, uint64_t *out)
{
	json_t *v = json_object_get(obj, key);

	if (!v)
		return 0;
	at(c, prefix, key);
	return get_u64(c, v, out);
}

static const char *stack_problem(const char *s)
{
	size_t len = strlen(s), depth = 1, flen = 0;

	if (!len || s[0] == ';' || s[len - 1] == ';' || strstr(s, ";;"))
		return "empty frame in folded stack";
	for (; *s; s++) {
		depth += *s == ';';
		flen = *s == ';' ? 0 : flen + 1;
		if (flen > PROFILE_MAX_FRAME)
			return "frame name longer than 1 MiB";
	}
	if (depth > PROFILE_MAX_DEPTH)
		return "stack deeper than 8192 frames";
	return NULL;
}

static int read_stacks(struct jctx *c, json_t *obj, const char *prefix, const char *key,
		       struct convert_stackset *set, size_t run, enum convert_view view)
{
	const char *stack;
	json_t *v;

	at(c, prefix, key);
	if (!json_is_object(obj))
		return bad(c, "expected an object of folded stacks");
	json_object_foreach(obj, stack, v) {
		const char *problem = stack_problem(stack);
		uint64_t w = 0;

		pgo_buf_reset(&c->path);
		pgo_buf_addf(&c->path, "%s.%s[\"%.200s\"]", prefix, key, stack);

		if (problem)
			return bad(c, problem);
		if (get_u64(c, v, &w))
			return -1;
		if (convert_stackset_add_folded(set, run, view, stack, w))
			return -1;
	}
	set->views |= 1u << view;
	return 0;
}

static int read_run(struct jctx *c, json_t *r, size_t idx, struct convert_stackset *set)
{
	char prefix[48];
	uint64_t num;
	json_t *v;
	uint64_t *seen;
	long ri;
	int fresh;

	snprintf(prefix, sizeof(prefix), "runs[%zu]", idx);
	pgo_buf_reset(&c->path);
	pgo_buf_adds(&c->path, prefix);
	if (!json_is_object(r))
		return bad(c, "expected an object");
	/* A run without a number is numbered by its position, as the gate always did. */
	v = json_object_get(r, "run");
	at(c, prefix, "run");
	num = idx;
	if (v && get_u64(c, v, &num))
		return -1;
	fresh = pgo_u64map_get(&c->run_numbers, num, &seen);
	if (fresh < 0)
		return -1;
	if (!fresh)
		return bad(c, "run number appears twice");
	ri = convert_stackset_add_run(set, num, -1);
	if (ri < 0)
		return -1;
	v = json_object_get(r, "pid");
	if (v) {
		at(c, prefix, "pid");
		if (!json_is_integer(v) || json_integer_value(v) < -1)
			return bad(c, "expected a process id");
		set->runs[ri].pid = json_integer_value(v);
	}
	if (opt_u64(c, r, prefix, "duration_ns", &set->runs[ri].duration_ns) ||
	    opt_u64(c, r, prefix, "cpu_ns", &set->runs[ri].cpu_ns) ||
	    opt_u64(c, r, prefix, "offcpu_ns", &set->runs[ri].offcpu_ns) ||
	    opt_u64(c, r, prefix, "samples", &set->runs[ri].samples) ||
	    opt_u64(c, r, prefix, "lost", &set->runs[ri].lost))
		return -1;
	v = json_object_get(r, "cpu");
	if (!v) {
		at(c, prefix, "cpu");
		return bad(c, "missing");
	}
	if (read_stacks(c, v, prefix, "cpu", set, (size_t)ri, CONVERT_VIEW_CPU))
		return -1;
	v = json_object_get(r, "offcpu");
	if (v && !json_is_null(v) &&
	    read_stacks(c, v, prefix, "offcpu", set, (size_t)ri, CONVERT_VIEW_OFFCPU))
		return -1;
	return 0;
}

/* Optional "dsos" (docs/profile-json.md): which DSO each frame name comes from. */
static int read_dsos(struct jctx *c, json_t *obj, struct convert_stackset *set)
{
	const char *dso;
	json_t *d;

	at(c, NULL, "dsos");
	if (!json_is_object(obj))
		return bad(c, "expected an object");
	json_object_foreach(obj, dso, d) {
		json_t *own, *frames, *f;
		size_t i;

		pgo_buf_reset(&c->path);
		pgo_buf_addf(&c->path, "dsos[\"%.200s\"]", dso);
		if (!*dso || strlen(dso) > PROFILE_MAX_FRAME)
			return bad(c, "expected a DSO name of 1 byte to 1 MiB");
		if (!json_is_object(d))
			return bad(c, "expected an object");
		own = json_object_get(d, "own");
		if (own && !json_is_boolean(own))
			return bad(c, "own: expected true or false");
		frames = json_object_get(d, "frames");
		if (!frames || !json_is_array(frames))
			return bad(c, "frames: expected an array of frame names");
		json_array_foreach(frames, i, f) {
			const char *name = json_is_string(f) ? json_string_value(f) : NULL;

			if (!name || !*name || strchr(name, ';') || strlen(name) > PROFILE_MAX_FRAME) {
				pgo_buf_addf(&c->path, ".frames[%zu]", i);
				return bad(c, "expected a frame name (1 byte to 1 MiB, no ';')");
			}
			if (convert_stackset_add_frame_dso(set, name, dso, own && json_is_true(own)))
				return -1;
		}
	}
	return 0;
}

static int read_profile(struct jctx *c, json_t *root, struct convert_stackset *set)
{
	json_t *v, *bin, *runs;
	size_t i;

	if (!json_is_object(root))
		return bad(c, "expected a JSON object");
	v = json_object_get(root, "format");
	at(c, NULL, "format");
	if (!v)
		return pgo_error("'%s' is not a pgo profile: no \"format\" key", c->name);
	if (!json_is_string(v) || strcmp(json_string_value(v), CONVERT_PROFILE_FORMAT))
		return pgo_error("'%s' is not a pgo profile: format is not \"%s\"", c->name,
				 CONVERT_PROFILE_FORMAT);
	v = json_object_get(root, "version");
	at(c, NULL, "version");
	if (!v)
		return bad(c, "missing");
	if (!json_is_integer(v))
		return bad(c, "expected an integer");
	if (json_integer_value(v) != CONVERT_PROFILE_VERSION)
		return pgo_error("invalid profile '%s': version: version %" JSON_INTEGER_FORMAT
				 " is not supported; this pgo reads version %d (upgrade pgo)",
				 c->name, json_integer_value(v), CONVERT_PROFILE_VERSION);
	v = json_object_get(root, "unit");
	at(c, NULL, "unit");
	if (!v)
		return bad(c, "missing");
	if (!json_is_string(v) || strcmp(json_string_value(v), "ns"))
		return bad(c, "expected \"ns\"");
	if (opt_str(c, root, NULL, "tool", &set->tool) ||
	    opt_str(c, root, NULL, "command", &set->command) ||
	    opt_str(c, root, NULL, "event", &set->event) ||
	    opt_u64(c, root, NULL, "rate_hz", &set->rate_hz))
		return -1;
	bin = json_object_get(root, "binary");
	if (bin) {
		at(c, NULL, "binary");
		if (!json_is_object(bin))
			return bad(c, "expected an object");
		if (opt_str(c, bin, "binary", "path", &set->binary_path) ||
		    opt_str(c, bin, "binary", "build_id", &set->build_id))
			return -1;
	}
	set->views = 1u << CONVERT_VIEW_CPU;
	v = json_object_get(root, "views");
	if (v) {
		json_t *e;

		at(c, NULL, "views");
		if (!json_is_array(v))
			return bad(c, "expected an array");
		json_array_foreach(v, i, e) {
			enum convert_view view;

			pgo_buf_reset(&c->path);
			pgo_buf_addf(&c->path, "views[%zu]", i);
			if (!json_is_string(e) || convert_view_parse(json_string_value(e), &view))
				return bad(c, "expected \"cpu\" or \"offcpu\"");
			set->views |= 1u << view;
		}
	}
	v = json_object_get(root, "dsos");
	if (v && read_dsos(c, v, set))
		return -1;
	runs = json_object_get(root, "runs");
	at(c, NULL, "runs");
	if (!runs)
		return bad(c, "missing");
	if (!json_is_array(runs))
		return bad(c, "expected an array");
	if (json_array_size(runs) > PROFILE_MAX_RUNS)
		return bad(c, "more than 100000 runs");
	json_array_foreach(runs, i, v)
		if (read_run(c, v, i, set))
			return -1;
	return 0;
}

int convert_profile_json_parse(const char *data, size_t len, const char *name,
			       struct convert_stackset *set)
{
	struct jctx c = { name, PGO_BUF_INIT, PGO_U64MAP_INIT };
	json_error_t jerr;
	json_t *root;
	int err;

	root = json_loadb(data, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root)
		return pgo_error("invalid profile '%s': line %d column %d: %s", name, jerr.line,
				 jerr.column, jerr.text);
	err = read_profile(&c, root, set);
	json_decref(root);
	pgo_buf_release(&c.path);
	pgo_u64map_release(&c.run_numbers);
	if (err)
		convert_stackset_release(set);
	return err;
}

int convert_profile_json_load(const char *path, struct convert_stackset *set)
{
	const char *file = strcmp(path, "-") ? path : "/dev/stdin";
	char *data;
	size_t len;
	int err;

	if (pgo_read_file(file, PROFILE_MAX_BYTES, &data, &len))
		return -1;
	err = convert_profile_json_parse(data, len, path, set);
	free(data);
	return err;
}
