// SPDX-License-Identifier: MIT
/*
 * convert's inputs: a command line's list expanded (globs, pprof directories), each input
 * recognised by its first bytes, and loaded into a stack set (convert/input.h).
 */
#include <ctype.h>
#include <dirent.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "convert/input.h"
#include "convert/pprof_read.h"
#include "convert/profile_json.h"
#include "lib/alloc.h"
#include "lib/buf.h"
#include "lib/report.h"

enum convert_input convert_input_kind(const char *path)
{
	FILE *fp;
	int ch;

	if (!strcmp(path, "-"))
		return CONVERT_INPUT_PROFILE_JSON;
	if (convert_pprof_is(path))
		return CONVERT_INPUT_PPROF;
	fp = fopen(path, "rb");
	if (!fp)
		return CONVERT_INPUT_PERF_DATA;
	do
		ch = getc(fp);
	while (ch != EOF && isspace(ch));
	fclose(fp);
	return ch == '{' ? CONVERT_INPUT_PROFILE_JSON : CONVERT_INPUT_PERF_DATA;
}

static int load_json(const struct convert_options *co, struct convert_stackset *set)
{
	size_t i;

	for (i = 0; i < co->nr_inputs; i++) {
		struct convert_stackset one = CONVERT_STACKSET_INIT;
		int err;

		if (convert_profile_json_load(co->inputs[i], &one))
			return -1;
		err = convert_stackset_append(set, &one);
		convert_stackset_release(&one);
		if (err)
			return -1;
	}
	return 0;
}

/* perf.data and pprof (translated into perf.data by the loader, convert/pprof_read.h) */
static int load_perf_data(struct convert_options *co, struct convert_stackset *set)
{
	struct convert_profile *p = NULL;
	const struct convert_info *in;
	int err;

	co->want_stacks = 1;
	if (convert_profile_load(co, &p) < 0)
		return -1;
	in = convert_profile_info(p);
	if (in->lost)
		pgo_warn("%llu samples were lost during the recording; weights are lower than "
			 "the truth", (unsigned long long)in->lost);
	if (in->samples && !in->has_callchain)
		pgo_warn("the recording has no call stacks (perf record -g); stacks are "
			 "the sampled function only");
	err = convert_stackset_from_profile(p, set);
	convert_profile_free(p);
	return err ? -1 : 0;
}

int convert_input_load_stacks(struct convert_options *co, enum convert_input kind,
			      struct convert_stackset *set)
{
	return kind == CONVERT_INPUT_PROFILE_JSON ? load_json(co, set) : load_perf_data(co, set);
}

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

int convert_input_expand(const char *const *in, size_t nr_in, char ***out, size_t *nr_out)
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
			convert_input_list_free(l.v, l.nr);
			return -1;
		}
	}
	*out = l.v;
	*nr_out = l.nr;
	return 0;
}

void convert_input_list_free(char **list, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		free(list[i]);
	free(list);
}
