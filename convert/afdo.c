// SPDX-License-Identifier: MIT
/*
 * AutoFDO writer, reader and dumper (convert/afdo.h). Layout of version 2 (gcc 12-15):
 * header {magic "gcda", version 2, 0}; string table {tag 0xaa000000, length, n, n x (u32
 * byte length incl. NUL, bytes)}; function section {tag 0xac000000, length, n, n x (u64
 * head, instance)}; module section {0xae000000, 0, 0}. An instance is {name index, #pos,
 * #callsites, pos x (offset, #targets, u64 count, targets x (u32 type, u64 name index,
 * u64 count)), callsites x (offset, instance)}. Words are host order (gcc reads them so).
 * Version 3 (gcc 16, auto-profile.cc of 16.2: summary_info::read, string_table::read,
 * read_function_instance) adds a summary section after the header {tag 0xa8000000 (no
 * length), u64 total, max, max head, #counts, #functions, #percentiles, percentiles x (u32
 * cutoff, u64 min count, u64 #counts)}, a file-name table before the names {#files, files,
 * #names, names x (string, u32 file index)}, and a u64 timestamp after each top-level head.
 */
#include <stdlib.h>
#include <string.h>

#include "convert/afdo.h"
#include "convert/afdo_version.h"
#include "convert/internal.h"
#include "convert/sampleprof.h"
#include "lib/alloc.h"
#include "lib/atomicfile.h"
#include "lib/buf.h"
#include "lib/report.h"

#define AFDO_MAGIC 0x67636461u
#define AFDO_VERSION 2u
#define AFDO_TAG_SUMMARY 0xa8000000u
#define AFDO_TAG_NAMES 0xaa000000u
#define AFDO_TAG_FUNCTION 0xac000000u
#define AFDO_TAG_MODULE 0xae000000u
#define AFDO_HIST_INDIR_CALL_TOPN 7u
#define AFDO_MAX_DEPTH 128

/* ---- writer ---- */

static int put32(struct pgo_buf *b, uint32_t v)
{
	return pgo_buf_add(b, &v, 4);
}

static int put64(struct pgo_buf *b, uint64_t v)
{
	return pgo_buf_add(b, &v, 8);
}

/*
 * The maps by profile string id are arrays: the ids are dense (a profile has a few thousand
 * strings), and a pgo_u64map_get per name and call site was 0.8% of a convert.
 */
struct names {
	uint32_t *index;               /* profile string id -> afdo index (0: none) */
	size_t alloc_index;
	uint32_t *ids;                 /* afdo index - 1 -> profile string id */
	size_t nr, alloc;
	struct convert_profile *p;     /* where alias names are interned */
	uint64_t *aliases;             /* string id -> cdtor_aliases' answer, + 1 (0: not
					  asked yet) */
	size_t alloc_aliases;
	int v3;                        /* version 3: every record's count into counts */
	uint64_t *counts;
	size_t nr_counts, alloc_counts;
};

/*
 * The names gcc 12 asks for at an inlined C++ constructor or destructor. DWARF names the
 * abstract one, the "unified" C4 or D4 (_ZN3AccC4El), and gcc's reader finds an inlined
 * body's counts under that name (the block's abstract origin); but its early inliner
 * sizes a call up by the instance named exactly as the callee, the complete or base
 * object variant (C1, C2; D1, D2), and with no such instance takes the call for cold and
 * leaves it to the late inliner, which gives the constructor's loops no count. So an
 * instance named C4/D4 is written three times, under its name and the two callee names.
 * The ctor-dtor name is the one followed by the end of the nested name ('E') or an ABI
 * tag ('B'). Returns the two alias string ids in *a and *b and 1, 0 if name is no unified
 * constructor or destructor, -1 when out of memory.
 */
static int cdtor_aliases(struct names *n, uint32_t id, uint32_t *a, uint32_t *b)
{
	const char *name, *c;
	uint64_t *v;
	long x, y;
	char *tmp;
	size_t at = 0;

	if (PGO_ALLOC_GROW(n->aliases, (size_t)id + 1, n->alloc_aliases) < 0)
		return -1;
	v = &n->aliases[id];
	if (*v) {
		if (*v == 1)
			return 0;
		*a = (uint32_t)(*v >> 32);
		*b = (uint32_t)(*v - 2);
		return 1;
	}
	*v = 1;
	name = convert_str(n->p, id);
	if (strncmp(name, "_ZN", 3))
		return 0;
	for (c = name + 3; (c = strchr(c, '4')); c++)
		if ((c[-1] == 'C' || c[-1] == 'D') && (c[1] == 'E' || c[1] == 'B'))
			at = (size_t)(c - name);
	if (!at)
		return 0;
	tmp = pgo_strdup(name);
	if (!tmp)
		return -1;
	tmp[at] = '1';
	x = pgo_strtab_intern(&n->p->strs, tmp);
	tmp[at] = '2';
	y = x < 0 ? -1 : pgo_strtab_intern(&n->p->strs, tmp);
	free(tmp);
	if (y < 0)
		return -1;
	*a = (uint32_t)x;
	*b = (uint32_t)y;
	*v = ((uint64_t)*a << 32) + *b + 2;
	return 1;
}

static int name_add(struct names *n, uint32_t id)
{
	if (PGO_ALLOC_GROW(n->index, (size_t)id + 1, n->alloc_index) < 0)
		return -1;
	if (n->index[id])
		return 0;
	if (PGO_ALLOC_GROW_UNINIT(n->ids, n->nr + 1, n->alloc) < 0)
		return -1;
	n->ids[n->nr++] = id;
	n->index[id] = (uint32_t)n->nr; /* index 0 is "" */
	return 0;
}

/* f's names into n; *bytes gets the size put_instance will write for f. */
static int collect_names(struct names *n, const struct sp_fn *f, size_t *bytes)
{
	size_t i, k, sub;

	*bytes = 12;
	if (name_add(n, f->name) < 0)
		return -1;
	for (i = 0; i < f->nr_pos; i++) {
		*bytes += 16 + 20 * (size_t)f->pos[i].nr_targets;
		for (k = 0; k < f->pos[i].nr_targets; k++)
			if (name_add(n, f->pos[i].targets[k].name) < 0)
				return -1;
	}
	for (i = 0; i < f->nr_cs; i++) {
		uint32_t a, b;
		int r = cdtor_aliases(n, f->cs[i].fn->name, &a, &b);

		if (r < 0 || (r && (name_add(n, a) < 0 || name_add(n, b) < 0)) ||
		    collect_names(n, f->cs[i].fn, &sub) < 0)
			return -1;
		*bytes += (r ? 3 : 1) * (4 + sub);
	}
	return 0;
}

static uint32_t name_index(const struct names *n, uint32_t id)
{
	return id < n->alloc_index ? n->index[id] : 0;
}

/* One pos record's count into a summary; the writer and the reader both use it. */
static void add_position(struct convert_afdo_summary *s, uint64_t count)
{
	s->positions++;
	s->sum_counts += count;
	if (count > s->max_count)
		s->max_count = count;
}

/* Records of f at every level (but copies from call stacks), and those with no sample. */
static void count_zeros(const struct sp_fn *f, uint64_t *records, uint64_t *zeros)
{
	size_t i;

	*records += f->nr_pos;
	for (i = 0; i < f->nr_pos; i++)
		*zeros += f->pos[i].count == 0;
	for (i = 0; i < f->nr_cs; i++)
		if (!f->cs[i].fn->from_stacks)
			count_zeros(f->cs[i].fn, records, zeros);
}

/*
 * Did most of f's lines without a sample run? A line with code but no sample either ran
 * between samples or never ran; the lines sampled once and twice estimate how many ran
 * unseen (convert_afdo_unseen(), per function). An interpreter loop has hundreds of
 * cases a workload never reaches (gawk's r_interpret: 1254 zeros, ~20 estimated to have
 * run), a parser run once has one sample in 1416 lines: raising all of those to "hot"
 * makes gcc optimise the whole function for speed (r_interpret 14 KB -> 25 KB) and
 * dilutes the i-cache (docs/decisions-convert.md). A function whose samples are spread thin over
 * lines that ran (many single samples) gets its zeros raised.
 */
static int zeros_mostly_ran(const struct sp_fn *f)
{
	struct convert_afdo_summary d = { 0 };
	struct sp_density lines = { 0 };
	uint64_t records = 0, zeros = 0;

	count_zeros(f, &records, &zeros);
	if (!zeros)
		return 0;
	sp_add_density(&lines, f);
	d.sampled = lines.sampled;
	d.sampled_once = lines.once;
	d.sampled_twice = lines.twice;
	return 2 * convert_afdo_unseen(&d) >= (double)zeros;
}

/*
 * Raise the line counts of f below min to min: every sampled line (it ran; gcc 12
 * optimises a line counted below 2 for size), and with zeros_too also the lines without
 * a sample (docs/decisions-convert.md: the floor makes mujs's AutoFDO build faster).
 */
static void floor_counts(struct sp_fn *f, uint64_t min, int zeros_too)
{
	size_t i;

	for (i = 0; i < f->nr_pos; i++)
		if (f->pos[i].count < min && (f->pos[i].count || zeros_too))
			f->pos[i].count = min;
	for (i = 0; i < f->nr_cs; i++)
		floor_counts(f->cs[i].fn, min, zeros_too);
}

static char *w32(char *w, uint32_t v)
{
	memcpy(w, &v, 4);
	return w + 4;
}

static char *w64(char *w, uint64_t v)
{
	memcpy(w, &v, 8);
	return w + 8;
}

/*
 * Instance f, named name (f's own, or a constructor's alias). Its header and positions are
 * stored into room made once (a pgo_buf_add per word was 2% of a convert), and the call-site
 * count, aliases included, is filled in once they are written.
 */
static int put_instance(struct pgo_buf *b, struct names *n, const struct sp_fn *f, uint32_t name,
			struct convert_afdo_summary *s)
{
	size_t i, k, at, need = 12;
	uint32_t alias[2], nr_cs = 0;
	char *w;

	for (i = 0; i < f->nr_pos; i++)
		need += 16 + 20 * (size_t)f->pos[i].nr_targets;
	if (pgo_buf_grow(b, need) < 0 ||
	    (n->v3 && PGO_ALLOC_GROW_UNINIT(n->counts, n->nr_counts + f->nr_pos, n->alloc_counts) < 0))
		return -1;
	w = w32(b->data + b->len, name_index(n, name));
	w = w32(w, f->nr_pos);
	at = (size_t)(w - b->data);
	w += 4;
	for (i = 0; i < f->nr_pos; i++) {
		const struct sp_pos *p = &f->pos[i];

		w = w32(w, p->offset);
		w = w32(w, p->nr_targets);
		w = w64(w, p->count);
		add_position(s, p->count);
		if (n->v3 && p->count)
			n->counts[n->nr_counts++] = p->count;
		for (k = 0; k < p->nr_targets; k++) {
			w = w32(w, AFDO_HIST_INDIR_CALL_TOPN);
			w = w64(w, name_index(n, p->targets[k].name));
			w = w64(w, p->targets[k].count);
			s->targets++;
		}
	}
	b->len = (size_t)(w - b->data);
	b->data[b->len] = '\0';
	for (i = 0; i < f->nr_cs; i++) {
		const struct sp_fn *c = f->cs[i].fn;
		int r = cdtor_aliases(n, c->name, &alias[0], &alias[1]);

		if (r < 0)
			return -1;
		for (k = 0; k < (r ? 3u : 1u); k++) {
			if (put32(b, f->cs[i].offset) < 0)
				return -1;
			s->instances++;
			nr_cs++;
			if (put_instance(b, n, c, k ? alias[k - 1] : c->name, s) < 0)
				return -1;
		}
	}
	memcpy(b->data + at, &nr_cs, 4);
	return 0;
}

/* gcc 16's summary section, at at (room made for it), from the counts put_instance kept */
static void put_summary(struct pgo_buf *b, size_t at, struct names *n, const struct sp_profile *sp)
{
	struct convert_afdo_v3_summary v = { 0 };
	char *w = b->data + at;
	size_t i;

	convert_afdo_percentiles(n->counts, n->nr_counts, &v);
	for (i = 0; i < sp->nr_fns; i++)
		if (sp->fns[i]->head > v.max_function_count)
			v.max_function_count = sp->fns[i]->head;
	v.num_functions = sp->nr_fns;
	w = w32(w, AFDO_TAG_SUMMARY);
	w = w64(w, v.total_count);
	w = w64(w, v.max_count);
	w = w64(w, v.max_function_count);
	w = w64(w, v.num_counts);
	w = w64(w, v.num_functions);
	w = w64(w, CONVERT_AFDO_PERCENTILES);
	for (i = 0; i < CONVERT_AFDO_PERCENTILES; i++) {
		w = w32(w, v.detailed[i].cutoff);
		w = w64(w, v.detailed[i].min_count);
		w = w64(w, v.detailed[i].num_counts);
	}
}

#define AFDO_SUMMARY_BYTES (4 + 6 * 8 + CONVERT_AFDO_PERCENTILES * 20)

static int encode(const struct sp_profile *sp, const struct convert_afdo_format *fmt,
		  struct pgo_buf *b, struct convert_afdo_summary *s)
{
	struct names n = { NULL, 0, NULL, 0, 0, sp->p, NULL, 0, fmt->version >= 3, NULL, 0, 0 };
	/* header, string and function and module section headers, the empty string */
	size_t i, mark, sub, summary = 0, bytes = 12 + 12 + 12 + 12 + 5;
	int err = -1;

	memset(s, 0, sizeof(*s));
	s->version = fmt->version;
	if (n.v3)
		bytes += AFDO_SUMMARY_BYTES + 4 + 4 + 8 * sp->nr_fns;
	/* the whole file's size, made room for at once: growing copied it about once more */
	for (i = 0; i < sp->nr_fns; i++) {
		if (collect_names(&n, sp->fns[i], &sub) < 0)
			goto out;
		bytes += 8 + sub;
	}
	for (i = 0; i < n.nr; i++)
		bytes += 4 + strlen(sp_str(sp, n.ids[i])) + 1 + (n.v3 ? 4 : 0);
	if (pgo_buf_grow(b, bytes) < 0)
		goto out;
	if (put32(b, AFDO_MAGIC) || put32(b, fmt->version) || put32(b, 0))
		goto out;
	if (n.v3) {
		summary = b->len;
		b->len += AFDO_SUMMARY_BYTES; /* filled in once the records are written */
	}
	if (put32(b, AFDO_TAG_NAMES) || put32(b, 0) || (n.v3 && put32(b, 0)) || put32(b, n.nr + 1))
		goto out;
	mark = b->len;
	/* version 3: no file names (gcc 16 then matches a function by its name alone) */
	if (put32(b, 1) || pgo_buf_add(b, "", 1) || (n.v3 && put32(b, UINT32_MAX)))
		goto out;
	for (i = 0; i < n.nr; i++) {
		const char *str = sp_str(sp, n.ids[i]);
		uint32_t len = strlen(str) + 1;

		if (put32(b, len) || pgo_buf_add(b, str, len) || (n.v3 && put32(b, UINT32_MAX)))
			goto out;
	}
	{
		uint32_t words = (b->len - mark) / 4 + 1 + n.v3;

		/* section length: gcc ignores it */
		memcpy(b->data + mark - (n.v3 ? 12 : 8), &words, 4);
	}
	s->strings = n.nr + 1;
	if (put32(b, AFDO_TAG_FUNCTION) || put32(b, 0) || put32(b, sp->nr_fns))
		goto out;
	mark = b->len;
	for (i = 0; i < sp->nr_fns; i++) {
		if (put64(b, sp->fns[i]->head) || (n.v3 && put64(b, 0)) || /* timestamp: none */
		    put_instance(b, &n, sp->fns[i], sp->fns[i]->name, s))
			goto out;
		s->sum_heads += sp->fns[i]->head;
		s->functions++;
	}
	{
		uint32_t words = (b->len - mark) / 4 + 1;

		memcpy(b->data + mark - 8, &words, 4);
	}
	if (put32(b, AFDO_TAG_MODULE) || put32(b, 0) || put32(b, 0))
		goto out;
	if (n.v3)
		put_summary(b, summary, &n, sp);
	err = 0;
out:
	free(n.index);
	free(n.aliases);
	free(n.ids);
	free(n.counts);
	return err;
}

int convert_afdo_write(struct convert_profile *p, const struct convert_afdo_options *o,
		       const char *path, struct convert_afdo_summary *sum)
{
	struct sp_profile sp;
	struct pgo_buf b = PGO_BUF_INIT;
	struct convert_afdo_summary want, got;
	struct convert_afdo_format fmt;
	size_t i;
	int err = -1;

	if (convert_afdo_choose(p, o, &fmt) < 0)
		return -1;
	if (sp_build(p, fmt.discr, o->offline, &sp) < 0)
		return -1;
	if (!sp.nr_fns) {
		sp_release(&sp);
		return pgo_error("no samples with line information in the binary; build it with -g "
				 "(and keep its .dwo files, if -gsplit-dwarf)");
	}
	for (i = 0; i < sp.nr_fns; i++) {
		if (!o->min_count)
			continue;
		floor_counts(sp.fns[i], o->min_count, zeros_mostly_ran(sp.fns[i]));
		/*
		 * The entry of a sampled function ran, like a sampled line. And gcc 12 scales
		 * a function's block counts to its head: spread() of t2527, one block whose
		 * lines count 2-6, gets the head's 1 or 2; gawk's r_force_number, head 1,
		 * blocks of 1-6 where its lines count 2-8 (docs/decisions-convert.md).
		 */
		if (sp.fns[i]->head < o->min_count)
			sp.fns[i]->head = o->min_count;
	}
	if (encode(&sp, &fmt, &b, &want) < 0)
		goto out;
	/* self-check: gcc accepts truncated files silently and crashes on some bad ones */
	if (convert_afdo_parse((const uint8_t *)b.data, b.len, path, NULL, &got) < 0 ||
	    memcmp(&want, &got, sizeof(want))) {
		pgo_error("the AutoFDO profile for '%s' failed its read-back check (%llu/%llu "
			  "functions, %llu/%llu counts); not written", path,
			  (unsigned long long)got.functions, (unsigned long long)want.functions,
			  (unsigned long long)got.sum_counts, (unsigned long long)want.sum_counts);
		goto out;
	}
	if (pgo_write_file_atomic(path, b.data, b.len) < 0) /* "-" is stdout */
		goto out;
	*sum = want;
	sum->gcc = fmt.gcc;
	/* as sampled: an offlined instance's lines are counted where they are, once */
	sum->sampled = sp.density.sampled;
	sum->sampled_once = sp.density.once;
	sum->sampled_twice = sp.density.twice;
	err = 0;
out:
	pgo_buf_release(&b);
	sp_release(&sp);
	return err;
}

/* ---- reader ---- */

struct rd {
	const uint8_t *p, *end, *start;
	const char *name;
	uint32_t version;
	uint64_t nstr;
	const char **strs;
	uint32_t *lens;
	FILE *out;
	struct convert_afdo_summary *s;
};

static int rd32(struct rd *r, uint32_t *v, const char *what)
{
	*v = 0;
	if (r->end - r->p < 4)
		return pgo_error("'%s': truncated at offset %zu (reading %s)", r->name,
				 (size_t)(r->p - r->start), what);
	memcpy(v, r->p, 4);
	r->p += 4;
	return 0;
}

static int rd64(struct rd *r, uint64_t *v, const char *what)
{
	*v = 0;
	if (r->end - r->p < 8)
		return pgo_error("'%s': truncated at offset %zu (reading %s)", r->name,
				 (size_t)(r->p - r->start), what);
	memcpy(v, r->p, 8);
	r->p += 8;
	return 0;
}

static const char *str_at(const struct rd *r, uint64_t i, int *len)
{
	if (i >= r->nstr) {
		*len = 3;
		return "<?>";
	}
	*len = (int)r->lens[i];
	return r->strs[i];
}

static void fmt_offset(struct pgo_buf *b, uint32_t off)
{
	pgo_buf_addf(b, "%+d", (int)(int16_t)(off >> 16));
	if (off & 0xffff)
		pgo_buf_addf(b, ".%u", off & 0xffff);
}

static int read_instance(struct rd *r, int depth, struct pgo_buf *text, uint64_t *total)
{
	uint32_t name, npos, ncs, i;
	size_t off0 = r->p - r->start;

	*total = 0;
	if (depth > AFDO_MAX_DEPTH)
		return pgo_error("'%s': inline instances nested deeper than %d at offset %zu", r->name,
				 AFDO_MAX_DEPTH, off0);
	if (rd32(r, &name, "a function name index") || rd32(r, &npos, "a position count") ||
	    rd32(r, &ncs, "a callsite count"))
		return -1;
	if (name >= r->nstr)
		return pgo_error("'%s': function name index %u at offset %zu is out of range (%llu "
				 "strings)", r->name, name, off0, (unsigned long long)r->nstr);
	if (npos > (size_t)(r->end - r->p) / 16 || ncs > (size_t)(r->end - r->p) / 16)
		return pgo_error("'%s': counts at offset %zu exceed the file size", r->name, off0);
	for (i = 0; i < npos; i++) {
		uint32_t offset, ntargets, k;
		uint64_t count;

		/* one bounds check for the three words (rd32's per word were a third of this) */
		if (r->end - r->p >= 16) {
			memcpy(&offset, r->p, 4);
			memcpy(&ntargets, r->p + 4, 4);
			memcpy(&count, r->p + 8, 8);
			r->p += 16;
		} else if (rd32(r, &offset, "a line offset") || rd32(r, &ntargets, "a target count") ||
			   rd64(r, &count, "a count")) {
			return -1;
		}
		if (ntargets > (size_t)(r->end - r->p) / 20)
			return pgo_error("'%s': target count at offset %zu exceeds the file size",
					 r->name, (size_t)(r->p - r->start));
		*total += count;
		add_position(r->s, count);
		if (text) {
			pgo_buf_addf(text, "%*s", 2 * (depth + 1), "");
			fmt_offset(text, offset);
			pgo_buf_addf(text, ": %llu", (unsigned long long)count);
		}
		for (k = 0; k < ntargets; k++) {
			uint32_t type;
			uint64_t tname, tcount;
			int len;
			const char *s;

			if (r->end - r->p >= 20) {
				memcpy(&tname, r->p + 4, 8);
				memcpy(&tcount, r->p + 12, 8);
				r->p += 20;
			} else if (rd32(r, &type, "a target type") || rd64(r, &tname, "a target name") ||
				   rd64(r, &tcount, "a target count")) {
				return -1;
			}
			r->s->targets++;
			if (text) {
				s = str_at(r, tname, &len);
				pgo_buf_addf(text, "%s%.*s=%llu", k ? " " : "  targets: ", len, s,
					     (unsigned long long)tcount);
			}
		}
		if (text)
			pgo_buf_addch(text, '\n');
	}
	for (i = 0; i < ncs; i++) {
		struct pgo_buf sub = PGO_BUF_INIT;
		uint32_t offset, cname;
		uint64_t sub_total;
		int len;
		const char *s;

		if (rd32(r, &offset, "a callsite offset"))
			return -1;
		if (r->end - r->p >= 4)
			memcpy(&cname, r->p, 4);
		else
			cname = 0;
		if (read_instance(r, depth + 1, text ? &sub : NULL, &sub_total) < 0) {
			pgo_buf_release(&sub);
			return -1;
		}
		r->s->instances++;
		*total += sub_total;
		if (text) {
			s = str_at(r, cname, &len);
			pgo_buf_addf(text, "%*s", 2 * (depth + 1), "");
			fmt_offset(text, offset);
			pgo_buf_addf(text, ": inlined %.*s, total %llu\n", len, s,
				     (unsigned long long)sub_total);
			pgo_buf_add(text, sub.data, sub.len);
		}
		pgo_buf_release(&sub);
	}
	return 0;
}

/* One string of version >= 2 (byte length incl. NUL) at i of the table; borrowed in *s. */
static int read_string(struct rd *r, uint32_t i, const char **s, uint32_t *slen)
{
	uint32_t len;

	if (rd32(r, &len, "a string length"))
		return -1;
	if (!len)
		return pgo_error("'%s': zero-length string %u at offset %zu (gcc 12 crashes on it)",
				 r->name, i, (size_t)(r->p - r->start) - 4);
	if (len > (uint64_t)(r->end - r->p))
		return pgo_error("'%s': string %u at offset %zu runs past the end", r->name, i,
				 (size_t)(r->p - r->start) - 4);
	if (r->p[len - 1] != '\0')
		return pgo_error("'%s': string %u at offset %zu is not NUL-terminated", r->name, i,
				 (size_t)(r->p - r->start) - 4);
	*s = (const char *)r->p;
	*slen = strlen(*s);
	r->p += len;
	return 0;
}

/* Version 3's file names, printed when r->out is set. */
static int read_files(struct rd *r)
{
	uint32_t n, i, len;
	const char *s;

	if (rd32(r, &n, "the file name count"))
		return -1;
	if (n > (size_t)(r->end - r->p) / 4)
		return pgo_error("'%s': file name count %u exceeds the file size", r->name, n);
	for (i = 0; i < n; i++) {
		if (read_string(r, i, &s, &len) < 0)
			return -1;
		if (r->out)
			fprintf(r->out, "# file %u: %.*s\n", i, (int)len, s);
	}
	return 0;
}

static int read_strings(struct rd *r)
{
	uint32_t tag, len, n, i;

	if (rd32(r, &tag, "the string table tag") || rd32(r, &len, "the string table length"))
		return -1;
	if (tag != AFDO_TAG_NAMES)
		return pgo_error("'%s': string table tag is 0x%08x, expected 0x%08x", r->name, tag,
				 AFDO_TAG_NAMES);
	if ((r->version == 3 && read_files(r) < 0) || rd32(r, &n, "the string count"))
		return -1;
	if (n > (size_t)(r->end - r->p) / 4)
		return pgo_error("'%s': string count %u exceeds the file size", r->name, n);
	r->nstr = n;
	r->strs = pgo_calloc(n ? n : 1, sizeof(*r->strs));
	r->lens = pgo_calloc(n ? n : 1, sizeof(*r->lens));
	if (!r->strs || !r->lens)
		return -1;
	for (i = 0; i < n; i++) {
		uint64_t bytes;
		uint32_t file;

		if (r->version == AFDO_VERSION || r->version == 3) {
			if (read_string(r, i, &r->strs[i], &r->lens[i]) < 0 ||
			    (r->version == 3 && rd32(r, &file, "a file index")))
				return -1;
			continue;
		}
		/* gcc <= 11 (version 1, autofdo 0.19's 0x3430372a) counts words, NUL-padded */
		if (rd32(r, &len, "a string length"))
			return -1;
		bytes = (uint64_t)len * 4;
		if (bytes > (uint64_t)(r->end - r->p))
			return pgo_error("'%s': string %u at offset %zu runs past the end", r->name, i,
					 (size_t)(r->p - r->start) - 4);
		r->strs[i] = (const char *)r->p;
		r->lens[i] = strnlen((const char *)r->p, bytes);
		r->p += bytes;
	}
	return 0;
}

/* Version 3's summary section, printed when r->out is set. */
static int read_summary(struct rd *r)
{
	uint64_t v[6], min, num;
	uint32_t tag, cutoff;
	size_t i;

	if (rd32(r, &tag, "the summary tag"))
		return -1;
	if (tag != AFDO_TAG_SUMMARY)
		return pgo_error("'%s': summary tag is 0x%08x, expected 0x%08x", r->name, tag,
				 AFDO_TAG_SUMMARY);
	for (i = 0; i < 6; i++)
		if (rd64(r, &v[i], "the summary"))
			return -1;
	if (v[5] > (size_t)(r->end - r->p) / 20)
		return pgo_error("'%s': percentile count %llu exceeds the file size", r->name,
				 (unsigned long long)v[5]);
	if (r->out)
		fprintf(r->out, "# summary: total %llu, max %llu, max head %llu, %llu counts, %llu "
			"functions\n", (unsigned long long)v[0], (unsigned long long)v[1],
			(unsigned long long)v[2], (unsigned long long)v[3], (unsigned long long)v[4]);
	for (i = 0; i < v[5]; i++) {
		if (rd32(r, &cutoff, "a cutoff") || rd64(r, &min, "a minimum count") ||
		    rd64(r, &num, "a count of counts"))
			return -1;
		if (r->out)
			fprintf(r->out, "#   %u.%04u%%: from %llu, %llu counts\n", cutoff / 10000,
				cutoff % 10000, (unsigned long long)min, (unsigned long long)num);
	}
	return 0;
}

int convert_afdo_parse(const uint8_t *data, size_t len, const char *name, FILE *out,
		       struct convert_afdo_summary *sum)
{
	struct rd r = { data, data + len, data, name, 0, 0, NULL, NULL, out, sum };
	uint32_t magic, zero, tag, slen, n, i;
	struct pgo_buf text = PGO_BUF_INIT;
	int err = -1;

	memset(sum, 0, sizeof(*sum));
	if (rd32(&r, &magic, "the magic") || rd32(&r, &r.version, "the version") ||
	    rd32(&r, &zero, "the header"))
		goto out;
	if (magic != AFDO_MAGIC) {
		pgo_error("'%s' is not an AutoFDO profile (magic 0x%08x%s)", name, magic,
			  magic == __builtin_bswap32(AFDO_MAGIC) ? ", byte-swapped" : "");
		goto out;
	}
	sum->version = r.version;
	if (out && r.version == 3)
		fprintf(out, "afdo version %u\n", r.version);
	if ((r.version == 3 && read_summary(&r) < 0) || read_strings(&r) < 0)
		goto out;
	sum->strings = r.nstr;
	if (rd32(&r, &tag, "the function section tag") || rd32(&r, &slen, "the section length") ||
	    rd32(&r, &n, "the function count"))
		goto out;
	if (tag != AFDO_TAG_FUNCTION) {
		pgo_error("'%s': function section tag is 0x%08x, expected 0x%08x", name, tag,
			  AFDO_TAG_FUNCTION);
		goto out;
	}
	if (n > (size_t)(r.end - r.p) / 20) {
		pgo_error("'%s': function count %u exceeds the file size", name, n);
		goto out;
	}
	if (out)
		fprintf(out, "afdo version %u: %llu strings, %u functions\n", r.version,
			(unsigned long long)r.nstr, n);
	if (r.version == 3 && n > (size_t)(r.end - r.p) / 28) {
		pgo_error("'%s': function count %u exceeds the file size", name, n);
		goto out;
	}
	for (i = 0; i < n; i++) {
		uint64_t head, total, stamp = 0;
		uint32_t fname;
		int flen;
		const char *fs;

		if (rd64(&r, &head, "a head count") ||
		    (r.version == 3 && rd64(&r, &stamp, "a timestamp")))
			goto out;
		if (r.end - r.p >= 4)
			memcpy(&fname, r.p, 4);
		else
			fname = 0;
		pgo_buf_reset(&text);
		if (read_instance(&r, 0, out ? &text : NULL, &total) < 0)
			goto out;
		sum->functions++;
		sum->sum_heads += head;
		if (out) {
			fs = str_at(&r, fname, &flen);
			fprintf(out, "%.*s: head %llu, total %llu", flen, fs,
				(unsigned long long)head, (unsigned long long)total);
			if (stamp)
				fprintf(out, ", timestamp %llu", (unsigned long long)stamp);
			fprintf(out, "\n%s", pgo_buf_str(&text));
		}
	}
	/* optional module section; gcc 12 asserts its count is 0 */
	if (r.p < r.end) {
		uint32_t mtag, mlen, mn;

		if (rd32(&r, &mtag, "the module section tag") || rd32(&r, &mlen, "the module length") ||
		    rd32(&r, &mn, "the module count"))
			goto out;
		if (mn) {
			pgo_error("'%s': module count %u (gcc 12 requires 0)", name, mn);
			goto out;
		}
	}
	if (out) {
		if (r.p < r.end)
			fprintf(out, "# %zu trailing bytes (ignored by gcc 12)\n", (size_t)(r.end - r.p));
		fprintf(out, "# %llu functions, %llu inline instances, %llu positions, sum %llu, "
			"max %llu\n", (unsigned long long)sum->functions,
			(unsigned long long)sum->instances, (unsigned long long)sum->positions,
			(unsigned long long)sum->sum_counts, (unsigned long long)sum->max_count);
	}
	if (r.p != r.end && !out) {
		pgo_error("'%s': %zu unexpected trailing bytes", name, (size_t)(r.end - r.p));
		goto out;
	}
	err = 0;
out:
	pgo_buf_release(&text);
	free(r.strs);
	free(r.lens);
	return err;
}

int convert_afdo_dump(const char *path, FILE *out)
{
	struct convert_afdo_summary sum;
	char *data;
	size_t len;
	int ret;

	if (pgo_read_file(path, (size_t)1 << 32, &data, &len) < 0)
		return -1;
	ret = convert_afdo_parse((const uint8_t *)data, len, path, out, &sum);
	free(data);
	return ret;
}

double convert_afdo_unseen(const struct convert_afdo_summary *s)
{
	double f1 = (double)s->sampled_once, f2 = (double)s->sampled_twice;

	return f1 > 1 ? f1 * (f1 - 1) / (2 * (f2 + 1)) : 0;
}
