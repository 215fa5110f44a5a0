// SPDX-License-Identifier: MIT
/* Expand globs and pprof directories of the input list (convert/inputs.h). */
#include <dirent.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "convert/inputs.h"
#include "convert/pprof_read.h"
#include "lib/alloc.h"
#include "lib/buf.h"
#include "lib/report.h"

struct list {
	char **v;
	size_t nr, alloc;
};

static int push(struct list *l, const char *s)
{
	char *c;

	if (PGO_ALLOC_GROW(l->v, l->nr + 1, l->alloc) < 0)
		return -1;
	c = pgo_strdup(s);
	if (!c)
		return -1;
	l->v[l->nr++] = c;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* perf record --threads writes DIR/data and DIR/data.N: one recording, read as a whole. */
static int is_perf_dir(const char *dir)
{
	struct pgo_buf b = PGO_BUF_INIT;
	struct stat st;
	int r;

	if (pgo_buf_addf(&b, "%s/data", dir))
		return 0;
	r = !stat(b.data, &st) && S_ISREG(st.st_mode);
	pgo_buf_release(&b);
	return r;
}

static int expand_dir(struct list *l, const char *dir)
{
	struct pgo_buf b = PGO_BUF_INIT;
	struct dirent *e;
	size_t first = l->nr;
	DIR *d = opendir(dir);

	if (!d)
		return pgo_error_errno("cannot read the directory '%s'", dir);
	while ((e = readdir(d))) {
		struct stat st;

		if (e->d_name[0] == '.')
			continue;
		pgo_buf_reset(&b);
		if (pgo_buf_addf(&b, "%s/%s", dir, e->d_name))
			goto fail;
		if (stat(b.data, &st) || !S_ISREG(st.st_mode) || !convert_pprof_is(b.data))
			continue;
		if (push(l, b.data) < 0)
			goto fail;
	}
	closedir(d);
	pgo_buf_release(&b);
	if (l->nr == first)
		return pgo_error("'%s' is not a perf.data directory (perf record --threads writes "
				 "DIR/data) and holds no pprof profiles", dir);
	qsort(l->v + first, l->nr - first, sizeof(*l->v), cmp_str);
	return 0;
fail:
	closedir(d);
	pgo_buf_release(&b);
	return -1;
}

static int expand_glob(struct list *l, const char *pat)
{
	glob_t g;
	size_t i;
	int r = glob(pat, 0, NULL, &g);

	if (r == GLOB_NOMATCH)
		return pgo_error("no file matches '%s'", pat);
	if (r)
		return pgo_error("cannot expand '%s'", pat);
	for (i = 0; i < g.gl_pathc; i++)
		if (push(l, g.gl_pathv[i]) < 0) {
			globfree(&g);
			return -1;
		}
	globfree(&g);
	return 0;
}

int convert_inputs_expand(const char *const *in, size_t nr_in, char ***out, size_t *nr_out)
{
	struct list l = { NULL, 0, 0 };
	size_t i;

	for (i = 0; i < nr_in; i++) {
		struct stat st;
		int r;

		if (!stat(in[i], &st))
			r = S_ISDIR(st.st_mode) && !is_perf_dir(in[i]) ? expand_dir(&l, in[i]) : push(&l, in[i]);
		else if (strpbrk(in[i], "*?["))
			r = expand_glob(&l, in[i]);
		else
			r = push(&l, in[i]); /* the reader names the missing file */
		if (r < 0) {
			convert_inputs_free(l.v, l.nr);
			return -1;
		}
	}
	*out = l.v;
	*nr_out = l.nr;
	return 0;
}

void convert_inputs_free(char **list, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		free(list[i]);
	free(list);
}
