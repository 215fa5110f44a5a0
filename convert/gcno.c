// SPDX-License-Identifier: MIT
/* The .gcno reader (convert/gcno.h). */
#include <stdlib.h>
#include <string.h>

#include "convert/gcno.h"
#include "lib/alloc.h"
#include "lib/atomicfile.h"
#include "lib/report.h"

#define GCNO_MAGIC 0x67636e6fu            /* "gcno" */
#define TAG_FUNCTION 0x01000000u
#define TAG_BLOCKS 0x01410000u
#define TAG_ARCS 0x01430000u
#define TAG_LINES 0x01450000u

struct cursor {
	const char *path;
	const uint8_t *p, *end;
	int swapped;
	const char *what;              /* the record being read, for messages */
};

static int bad(const struct cursor *c, const char *field)
{
	return pgo_error("%s: not a gcc 12+ coverage notes file (.gcno) or truncated: %s %s; "
			 "rebuild it with the gcc that compiles with -fprofile-use (gcc -ftest-coverage)",
			 c->path, c->what, field);
}

static int get_u32(struct cursor *c, uint32_t *v, const char *field)
{
	uint32_t x;

	*v = 0;
	if (c->end - c->p < 4)
		return bad(c, field);
	memcpy(&x, c->p, 4);
	c->p += 4;
	*v = c->swapped ? __builtin_bswap32(x) : x;
	return 0;
}

/* A string: its length in bytes with the NUL, then the bytes. *s is NULL for length 0. */
static int get_str(struct cursor *c, const char **s, size_t *len, const char *field)
{
	uint32_t n;

	if (get_u32(c, &n, field) < 0)
		return -1;
	if (!n) {
		*s = NULL;
		*len = 0;
		return 0;
	}
	if ((size_t)(c->end - c->p) < n || c->p[n - 1] != '\0' || memchr(c->p, '\0', n) != c->p + n - 1)
		return bad(c, field);
	*s = (const char *)c->p;
	*len = n - 1;
	c->p += n;
	return 0;
}

unsigned convert_gcno_gcc_major(uint32_t version)
{
	unsigned a = version >> 24, b = (version >> 16) & 0xff;

	if (a < 'A' || a > 'Z' || b < '0' || b > '9')
		return 0;
	return (a - 'A') * 10 + (b - '0');
}

/* The id of string s in g->strs. -1 when out of memory (reported). */
static long intern(struct convert_gcno *g, const char *s, size_t len)
{
	long id = pgo_strtab_intern_len(&g->strs, s, len);

	return id < 0 ? pgo_error("out of memory") : id;
}

static int read_function(struct cursor *c, struct convert_gcno *g)
{
	struct convert_gcno_fn *f;
	const char *s;
	size_t len;
	long id;
	uint32_t col;

	c->what = "FUNCTION";
	if (PGO_ALLOC_GROW(g->fns, g->nr_fns + 1, g->alloc_fns) < 0)
		return -1;
	f = &g->fns[g->nr_fns];
	memset(f, 0, sizeof(*f));
	if (get_u32(c, &f->ident, "ident") < 0 || get_u32(c, &f->lineno_checksum, "lineno checksum") < 0 ||
	    get_u32(c, &f->cfg_checksum, "cfg checksum") < 0 || get_str(c, &s, &len, "name") < 0)
		return -1;
	if (!s)
		return bad(c, "name (empty)");
	if ((id = intern(g, s, len)) < 0)
		return -1;
	f->name = (uint32_t)id;
	if (get_u32(c, &f->artificial, "artificial") < 0 || get_str(c, &s, &len, "source file") < 0)
		return -1;
	if ((id = intern(g, s ? s : "", s ? len : 0)) < 0)
		return -1;
	f->source = (uint32_t)id;
	if (get_u32(c, &f->start_line, "start line") < 0 || get_u32(c, &col, "start column") < 0 ||
	    get_u32(c, &f->end_line, "end line") < 0 || get_u32(c, &col, "end column") < 0)
		return -1;
	g->nr_fns++;
	return 0;
}

static int read_arcs(struct cursor *c, struct convert_gcno_fn *f, size_t *alloc)
{
	uint32_t src, n;

	c->what = "ARCS";
	if (get_u32(c, &src, "source block") < 0)
		return -1;
	if (src >= f->nr_blocks)
		return bad(c, "source block (past BLOCKS)");
	if ((c->end - c->p) % 8)
		return bad(c, "length (not whole arcs)");
	n = (uint32_t)((c->end - c->p) / 8);
	if (PGO_ALLOC_GROW(f->arcs, f->nr_arcs + n, *alloc) < 0)
		return -1;
	while (n--) {
		struct convert_gcno_arc *a = &f->arcs[f->nr_arcs];

		a->src = src;
		if (get_u32(c, &a->dst, "destination block") < 0 || get_u32(c, &a->flags, "flags") < 0)
			return -1;
		if (a->dst >= f->nr_blocks)
			return bad(c, "destination block (past BLOCKS)");
		if (!(a->flags & GCNO_ARC_ON_TREE))
			f->nr_counted++;
		f->nr_arcs++;
	}
	return 0;
}

static int read_lines(struct cursor *c, struct convert_gcno *g, struct convert_gcno_fn *f, size_t *alloc)
{
	uint32_t block, line;
	long file = -1;
	const char *s;
	size_t len;

	c->what = "LINES";
	if (get_u32(c, &block, "block") < 0)
		return -1;
	if (block >= f->nr_blocks)
		return bad(c, "block (past BLOCKS)");
	for (;;) {
		if (get_u32(c, &line, "line") < 0)
			return -1;
		if (!line) {
			if (get_str(c, &s, &len, "file name") < 0)
				return -1;
			if (!s)
				return 0;
			if ((file = intern(g, s, len)) < 0)
				return -1;
			continue;
		}
		if (file < 0)
			return bad(c, "line (before a file name)");
		if (PGO_ALLOC_GROW(f->lines, f->nr_lines + 1, *alloc) < 0)
			return -1;
		f->lines[f->nr_lines].block = block;
		f->lines[f->nr_lines].file = (uint32_t)file;
		f->lines[f->nr_lines].line = line;
		f->nr_lines++;
	}
}

static int read_header(struct cursor *c, struct convert_gcno *g)
{
	const char *s;
	size_t len;
	uint32_t flag;
	unsigned major;

	c->what = "header";
	if (get_u32(c, &g->magic, "magic") < 0)
		return -1;
	if (g->magic != GCNO_MAGIC) {
		if (__builtin_bswap32(g->magic) != GCNO_MAGIC)
			return bad(c, "magic (not \"gcno\")");
		c->swapped = g->swapped = 1;
	}
	if (get_u32(c, &g->version, "version") < 0)
		return -1;
	major = convert_gcno_gcc_major(g->version);
	if (major < 12 || major > 16)
		return pgo_error("%s: notes of gcc %u (version word 0x%08x); pgo reads those of gcc 12 "
				 "to 16: rebuild with one of them", c->path, major, g->version);
	if (get_u32(c, &g->stamp, "stamp") < 0 || get_u32(c, &g->checksum, "checksum") < 0 ||
	    get_str(c, &s, &len, "working directory") < 0)
		return -1;
	g->cwd = strndup(s ? s : "", len);
	if (!g->cwd)
		return pgo_error("out of memory");
	return get_u32(c, &flag, "unexecuted-blocks flag");
}

static int read_records(struct cursor *c, struct convert_gcno *g)
{
	const uint8_t *file_end = c->end;
	size_t alloc_arcs = 0, alloc_lines = 0;
	struct convert_gcno_fn *f = NULL;
	uint32_t tag, len;

	while (c->p < file_end) {
		c->what = "record";
		c->end = file_end;
		if (get_u32(c, &tag, "tag") < 0 || get_u32(c, &len, "length") < 0)
			return -1;
		if (len > (size_t)(file_end - c->p))
			return bad(c, "length (past the end)");
		c->end = c->p + len;
		if (tag == TAG_FUNCTION) {
			if (read_function(c, g) < 0)
				return -1;
			f = &g->fns[g->nr_fns - 1];
			alloc_arcs = alloc_lines = 0;
		} else if (tag == TAG_BLOCKS || tag == TAG_ARCS || tag == TAG_LINES) {
			c->what = "BLOCKS";
			if (!f)
				return bad(c, "(before any FUNCTION)");
			if (tag == TAG_BLOCKS) {
				if (f->nr_blocks || get_u32(c, &f->nr_blocks, "count") < 0)
					return f->nr_blocks ? bad(c, "(twice)") : -1;
				if (f->nr_blocks < 2 || f->nr_blocks > GCNO_MAX_BLOCKS)
					return bad(c, "count (out of range)");
			} else if (tag == TAG_ARCS ? read_arcs(c, f, &alloc_arcs) < 0 :
				   read_lines(c, g, f, &alloc_lines) < 0) {
				return -1;
			}
		}
		/* what a record holds past the fields read (and unknown records) is skipped */
		c->p = c->end;
	}
	return 0;
}

int convert_gcno_parse(const char *path, const void *data, size_t len, struct convert_gcno *g)
{
	struct cursor c = { path, data, (const uint8_t *)data + len, 0, "header" };

	memset(g, 0, sizeof(*g));
	if (read_header(&c, g) < 0 || read_records(&c, g) < 0) {
		convert_gcno_release(g);
		return -1;
	}
	return 0;
}

int convert_gcno_read(const char *path, struct convert_gcno *g)
{
	char *data;
	size_t len;
	int ret;

	memset(g, 0, sizeof(*g));
	if (pgo_read_file(path, GCNO_MAX_FILE_SIZE, &data, &len) < 0)
		return -1;
	ret = convert_gcno_parse(path, data, len, g);
	free(data);
	return ret;
}

void convert_gcno_release(struct convert_gcno *g)
{
	size_t i;

	for (i = 0; i < g->nr_fns; i++) {
		free(g->fns[i].arcs);
		free(g->fns[i].lines);
	}
	pgo_strtab_release(&g->strs);
	free(g->fns);
	free(g->cwd);
	memset(g, 0, sizeof(*g));
}
