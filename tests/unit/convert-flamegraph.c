// SPDX-License-Identifier: MIT
/* Unit tests for the flame graph SVG writer: layout, escaping, merging, differential mode. */
#include <stdint.h>
#include <stdlib.h>

#include "convert/flamegraph.h"
#include "tests/unit/test.h"

static char *svg(const struct convert_stackset *set, const struct convert_flame_opts *o)
{
	char *s = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&s, &len);

	if (!fp)
		return NULL;
	if (convert_flamegraph_write(fp, set, o)) {
		fclose(fp);
		free(s);
		return NULL;
	}
	fclose(fp);
	return s;
}

/* memmem with explicit lengths: ASan's strstr measures the whole rest each call */
static size_t count(const char *hay, const char *needle)
{
	size_t n = 0, nl = strlen(needle), i;

	/*
	 * A plain scan: ASan's memmem/strstr interceptors check the whole haystack on every
	 * call, which makes counting 100k matches in a 30 MB SVG quadratic under SANITIZE.
	 */
	for (; *hay; hay++) {
		for (i = 0; i < nl && hay[i] == needle[i]; i++)
			;
		if (i == nl) {
			n++;
			hay += nl - 1;
		}
	}
	return n;
}

/* The <g> element of the frame whose title starts with `name` (a line), or NULL. */
static const char *frame(const char *s, const char *name)
{
	char key[256];
	const char *p;

	snprintf(key, sizeof(key), "<title>%s\n", name);
	p = strstr(s, key);
	if (!p)
		return NULL;
	while (p > s && strncmp(p, "<g ", 3))
		p--;
	return p;
}

static double attr(const char *g, const char *name)
{
	char key[64];
	const char *p;

	snprintf(key, sizeof(key), " %s=\"", name);
	p = strstr(g, key);
	return p ? atof(p + strlen(key)) : -1;
}

static int test_layout(void)
{
	struct convert_stackset set = CONVERT_STACKSET_INIT;
	struct convert_flame_opts o = CONVERT_FLAME_OPTS_INIT;
	const char *g, *r;
	char *s;

	T_ASSERT(convert_stackset_add_run(&set, 0, -1) == 0);
	T_ASSERT(convert_stackset_add_folded(&set, 0, CONVERT_VIEW_CPU, "main;a", 750) == 0);
	T_ASSERT(convert_stackset_add_folded(&set, 0, CONVERT_VIEW_CPU, "main;b;c", 250) == 0);
	o.width = 1020; /* 1000 px between the 10 px margins: 1 ns = 1 px */
	o.title = "T<1>";
	s = svg(&set, &o);
	T_ASSERT(s != NULL);
	T_ASSERT(!strncmp(s, "<?xml", 5));
	T_ASSERT(strstr(s, ">T&lt;1&gt;</text>"));
	T_ASSERT(count(s, "<g class=\"f\"") == 5); /* all, main, a, b, c */
	g = frame(s, "all");
	T_ASSERT(g && strstr(g, "id=\"root\"") && attr(g, "data-v") == 1000);
	g = frame(s, "a");
	T_ASSERT(g != NULL);
	r = strstr(g, "<rect");
	T_ASSERT(attr(r, "x") == 10 && attr(r, "width") == 750);
	T_ASSERT(strstr(g, "750 ns, 75.00% (self 75.00%)"));
	T_ASSERT(strstr(frame(s, "main"), "1000 ns (1 us), 100.00% (self 0.00%)"));
	g = frame(s, "c");
	r = strstr(g, "<rect");
	T_ASSERT(attr(r, "x") == 760 && attr(r, "width") == 250);
	/* c sits two rows above main */
	T_ASSERT(attr(strstr(frame(s, "main"), "<rect"), "y") - attr(r, "y") == 32);
	T_ASSERT(strstr(s, "<![CDATA[") && strstr(s, "data-pgo-ready"));
	free(s);
	convert_stackset_release(&set);
	return T_OK;
}

static int test_colours_stable(void)
{
	struct convert_stackset a = CONVERT_STACKSET_INIT, b = CONVERT_STACKSET_INIT;
	struct convert_flame_opts o = CONVERT_FLAME_OPTS_INIT;
	char *s1, *s2, f1[32], f2[32];
	const char *p;

	T_ASSERT(convert_stackset_add_run(&a, 0, -1) == 0);
	T_ASSERT(convert_stackset_add_run(&b, 0, -1) == 0);
	T_ASSERT(convert_stackset_add_folded(&a, 0, CONVERT_VIEW_CPU, "main;work", 10) == 0);
	T_ASSERT(convert_stackset_add_folded(&b, 0, CONVERT_VIEW_CPU, "x;y;work", 99) == 0);
	s1 = svg(&a, &o);
	s2 = svg(&b, &o);
	T_ASSERT(s1 && s2);
	p = strstr(strstr(frame(s1, "work"), "<rect"), "fill=");
	snprintf(f1, sizeof(f1), "%.*s", (int)(strchr(p + 6, '"') - p), p);
	p = strstr(strstr(frame(s2, "work"), "<rect"), "fill=");
	snprintf(f2, sizeof(f2), "%.*s", (int)(strchr(p + 6, '"') - p), p);
	T_ASSERT_STR(f1, f2);
	free(s1);
	free(s2);
	convert_stackset_release(&a);
	convert_stackset_release(&b);
	return T_OK;
}

static int test_escaping(void)
{
	struct convert_stackset set = CONVERT_STACKSET_INIT;
	struct convert_flame_opts o = CONVERT_FLAME_OPTS_INIT;
	char *s;
	FILE *fp;
	size_t len;

	T_ASSERT(convert_stackset_add_run(&set, 0, -1) == 0);
	T_ASSERT(convert_stackset_add_folded(&set, 0, CONVERT_VIEW_CPU,
					     "main;std::map<int, A&>::find\"'];]]>;ctl\x01\x7f", 5) == 0);
	s = svg(&set, &o);
	T_ASSERT(s != NULL);
	T_ASSERT(strstr(s, "<title>std::map&lt;int, A&amp;&gt;::find&quot;&apos;]\n"));
	T_ASSERT(strstr(s, "<title>]]&gt;\n"));
	T_ASSERT(strstr(s, "<title>ctl?\x7f\n"));
	free(s);
	/* the escaper alone: invalid UTF-8 is replaced, valid multibyte kept */
	fp = open_memstream(&s, &len);
	T_ASSERT(fp != NULL);
	convert_xml_escape(fp, "\xc3\xa9\xff\xe2\x82\xac\xed\xa0\x80\xc3");
	fclose(fp);
	T_ASSERT_STR(s, "\xc3\xa9\xef\xbf\xbd\xe2\x82\xac\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
	free(s);
	convert_stackset_release(&set);
	return T_OK;
}

static int test_minwidth_merges(void)
{
	struct convert_stackset set = CONVERT_STACKSET_INIT;
	struct convert_flame_opts o = CONVERT_FLAME_OPTS_INIT;
	char name[32];
	char *s;
	int i;

	T_ASSERT(convert_stackset_add_run(&set, 0, -1) == 0);
	T_ASSERT(convert_stackset_add_folded(&set, 0, CONVERT_VIEW_CPU, "main;big", 1000000) == 0);
	for (i = 0; i < 5000; i++) {
		snprintf(name, sizeof(name), "main;tiny%d;leaf", i);
		T_ASSERT(convert_stackset_add_folded(&set, 0, CONVERT_VIEW_CPU, name, 20) == 0);
	}
	o.width = 1020;
	o.minwidth = 1; /* each tiny frame is 20/1.1e6 * 1000 = 0.018 px; all together 90.9 px */
	s = svg(&set, &o);
	T_ASSERT(s != NULL);
	T_ASSERT(count(s, "<g class=\"f\"") == 4); /* all, main, big, the merged group */
	T_ASSERT(frame(s, "[5000 small frames]") != NULL);
	T_ASSERT(attr(frame(s, "[5000 small frames]"), "data-v") == 100000);
	T_ASSERT(strlen(s) < 20000);
	free(s);
	o.minwidth = 0;
	s = svg(&set, &o);
	T_ASSERT(s && count(s, "<g class=\"f\"") == 3 + 2 * 5000);
	free(s);
	convert_stackset_release(&set);
	return T_OK;
}

static enum convert_flame_class classify(void *data, const char *name)
{
	(*(int *)data)++;
	if (!strcmp(name, "slow"))
		return CONVERT_FLAME_REGRESSED;
	if (!strcmp(name, "fast"))
		return CONVERT_FLAME_IMPROVED;
	return CONVERT_FLAME_UNFLAGGED;
}

static int test_differential(void)
{
	struct convert_stackset base = CONVERT_STACKSET_INIT, head = CONVERT_STACKSET_INIT;
	struct convert_flame_opts o = CONVERT_FLAME_OPTS_INIT;
	const char *g;
	int calls = 0;
	char *s;

	/* base: 2 runs; head: 1 run; mean per run makes them comparable */
	T_ASSERT(convert_stackset_add_run(&base, 0, -1) == 0);
	T_ASSERT(convert_stackset_add_run(&base, 1, -1) == 1);
	T_ASSERT(convert_stackset_add_run(&head, 0, -1) == 0);
	T_ASSERT(convert_stackset_add_folded(&base, 0, CONVERT_VIEW_CPU, "main;slow", 100) == 0);
	T_ASSERT(convert_stackset_add_folded(&base, 1, CONVERT_VIEW_CPU, "main;slow", 100) == 0);
	T_ASSERT(convert_stackset_add_folded(&base, 0, CONVERT_VIEW_CPU, "main;fast", 400) == 0);
	T_ASSERT(convert_stackset_add_folded(&base, 1, CONVERT_VIEW_CPU, "main;fast", 400) == 0);
	T_ASSERT(convert_stackset_add_folded(&base, 0, CONVERT_VIEW_CPU, "main;gone", 50) == 0);
	T_ASSERT(convert_stackset_add_folded(&head, 0, CONVERT_VIEW_CPU, "main;slow", 300) == 0);
	T_ASSERT(convert_stackset_add_folded(&head, 0, CONVERT_VIEW_CPU, "main;fast", 200) == 0);
	T_ASSERT(convert_stackset_add_folded(&head, 0, CONVERT_VIEW_CPU, "main;new", 10) == 0);
	o.base = &base;
	o.mean_per_run = 1;
	o.classify = classify;
	o.classify_data = &calls;
	s = svg(&head, &o);
	T_ASSERT(s != NULL);
	T_ASSERT(strstr(s, "data-pgo=\"flamegraph-diff\"") && strstr(s, ">Differential Flame Graph<"));
	T_ASSERT(calls == 4); /* main, slow, fast, new: once per name */
	g = frame(s, "slow");
	T_ASSERT(g && !strncmp(g, "<g class=\"f regressed\"", 22));
	T_ASSERT(attr(g, "data-v") == 300 && attr(g, "data-b") == 100);
	T_ASSERT(strstr(g, "head: 300 ns, 58.82%\nbase: 100 ns, 19.05%\nchange: +200.0% (regressed)"));
	T_ASSERT(strstr(g, "fill=\"rgb(255,"));
	g = frame(s, "fast");
	T_ASSERT(g && !strncmp(g, "<g class=\"f improved\"", 21) && attr(g, "data-b") == 400);
	T_ASSERT(strstr(g, "change: -50.0% (improved)"));
	g = frame(s, "new");
	T_ASSERT(g && !strncmp(g, "<g class=\"f unflagged\"", 22) && strstr(g, "change: new"));
	T_ASSERT(strstr(g, "fill=\"rgb(200,200,200)\""));
	T_ASSERT(frame(s, "gone") == NULL); /* widths are the head's */
	T_ASSERT(attr(frame(s, "all"), "data-b") == 525);
	free(s);
	convert_stackset_release(&base);
	convert_stackset_release(&head);
	return T_OK;
}

static int test_empty_and_bad_run(void)
{
	struct convert_stackset set = CONVERT_STACKSET_INIT;
	struct convert_flame_opts o = CONVERT_FLAME_OPTS_INIT;
	char *s;

	s = svg(&set, &o);
	T_ASSERT(s && strstr(s, "(no samples)") && strstr(s, "</svg>"));
	free(s);
	o.run = 3;
	T_ASSERT(svg(&set, &o) == NULL);
	return T_OK;
}

static int test_deep_stack(void)
{
	struct convert_stackset set = CONVERT_STACKSET_INIT;
	struct convert_flame_opts o = CONVERT_FLAME_OPTS_INIT;
	const char **frames = calloc(100000, sizeof(*frames));
	char *s;
	int i;

	T_ASSERT(frames != NULL);
	for (i = 0; i < 100000; i++)
		frames[i] = i % 2 ? "even" : "odd";
	T_ASSERT(convert_stackset_add_run(&set, 0, -1) == 0);
	T_ASSERT(convert_stackset_add(&set, 0, CONVERT_VIEW_CPU, frames, 100000, 7) == 0);
	s = svg(&set, &o);
	T_ASSERT(s && count(s, "<g class=\"f\"") == 100001);
	free(s);
	free(frames);
	convert_stackset_release(&set);
	return T_OK;
}

static const struct t_case cases[] = {
	{ "frames are laid out by weight, root at the bottom", test_layout },
	{ "colours depend only on the frame name", test_colours_stable },
	{ "names are XML-escaped, bad bytes replaced", test_escaping },
	{ "frames under minwidth are merged", test_minwidth_merges },
	{ "differential mode: classes, base values, tooltips", test_differential },
	{ "empty profile draws; unknown run is an error", test_empty_and_bad_run },
	{ "a 100000-frame stack does not overflow the C stack", test_deep_stack },
};
T_MAIN(cases)
