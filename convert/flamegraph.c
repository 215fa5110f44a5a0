// SPDX-License-Identifier: MIT
/* Flame graph SVG writer: frame tree, layout, and the embedded viewer script. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "convert/flamegraph.h"
#include "lib/alloc.h"
#include "lib/buf.h"
#include "lib/hashmap.h"
#include "lib/report.h"

#define FONT_SIZE 12
#define FRAME_H 16
#define XPAD 10
#define TOP_PAD 66    /* title, subtitle, buttons */
#define BOTTOM_PAD 34 /* details line */
#define NO_NODE UINT32_MAX
#define MERGED_NAME UINT32_MAX

struct fnode {
	uint32_t name;    /* frame name id */
	uint32_t child;   /* first child, or NO_NODE */
	uint32_t sibling; /* next sibling, or NO_NODE */
	double v, b;      /* head and base ns */
};

struct ftree {
	struct pgo_strtab names;
	struct fnode *nodes;
	size_t nr, alloc;
	struct pgo_u64map index; /* parent << 32 | name -> node */
};

/* One frame to draw. */
struct fdraw {
	uint32_t name;   /* MERGED_NAME: a merged group of small frames */
	uint32_t nsmall; /* merged: how many frames */
	uint32_t depth;
	double x, w;     /* px */
	double v, b;
};

struct fdraws {
	struct fdraw *d;
	size_t nr, alloc;
};

void convert_xml_escape(FILE *fp, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		unsigned c = *p, need, cp, min, i;

		if (c < 0x80) {
			switch (c) {
			case '&': fputs("&amp;", fp); break;
			case '<': fputs("&lt;", fp); break;
			case '>': fputs("&gt;", fp); break;
			case '"': fputs("&quot;", fp); break;
			case '\'': fputs("&apos;", fp); break;
			default:
				/* XML 1.0 forbids most C0 controls even as references */
				fputc(c < 0x20 && c != '\t' ? '?' : (int)c, fp);
			}
			p++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf) {
			need = 1, cp = c & 0x1f, min = 0x80;
		} else if (c >= 0xe0 && c <= 0xef) {
			need = 2, cp = c & 0x0f, min = 0x800;
		} else if (c >= 0xf0 && c <= 0xf4) {
			need = 3, cp = c & 0x07, min = 0x10000;
		} else {
			fputs("\xef\xbf\xbd", fp);
			p++;
			continue;
		}
		for (i = 1; i <= need; i++) {
			if ((p[i] & 0xc0) != 0x80)
				break;
			cp = cp << 6 | (p[i] & 0x3f);
		}
		if (i <= need || cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) ||
		    cp == 0xfffe || cp == 0xffff) {
			/* skip the bad lead byte only; the rest is re-examined */
			fputs("\xef\xbf\xbd", fp);
			p++;
			continue;
		}
		fwrite(p, 1, need + 1, fp);
		p += need + 1;
	}
}

static void ftree_release(struct ftree *t)
{
	pgo_strtab_release(&t->names);
	free(t->nodes);
	pgo_u64map_release(&t->index);
}

static long ftree_new_node(struct ftree *t, uint32_t name)
{
	if (t->nr >= UINT32_MAX - 1)
		return pgo_error("flame graph has too many frames");
	if (PGO_ALLOC_GROW(t->nodes, t->nr + 1, t->alloc))
		return -1;
	t->nodes[t->nr] = (struct fnode){ name, NO_NODE, NO_NODE, 0, 0 };
	return (long)t->nr++;
}

/* Child of parent named name; created when create is set, else -2 when absent. */
static long ftree_child(struct ftree *t, uint32_t parent, uint32_t name, int create)
{
	uint64_t key = (uint64_t)parent << 32 | name, *slot;
	long id;

	if (!create) {
		slot = pgo_u64map_find(&t->index, key);
		return slot ? (long)*slot : -2;
	}
	if (pgo_u64map_get(&t->index, key, &slot) < 0)
		return -1;
	if (*slot)
		return (long)*slot;
	id = ftree_new_node(t, name);
	if (id < 0)
		return -1;
	t->nodes[id].sibling = t->nodes[parent].child;
	t->nodes[parent].child = (uint32_t)id;
	/* node 0 is the root, never a child, so 0 in the slot meant "new" */
	*slot = (uint64_t)id;
	return id;
}

/* Add the stacks of one profile: into v (head, creating frames) or b (base, existing only). */
static int ftree_add(struct ftree *t, const struct convert_stackset *set,
		     const struct convert_flame_opts *opts, int is_base)
{
	struct convert_stack_weight *sw;
	struct pgo_buf frame = PGO_BUF_INIT;
	size_t i, nr;
	double div = 1;

	if (opts->run >= 0 && (size_t)opts->run >= set->nr_runs)
		return pgo_error("no run %ld in the profile (it has %zu)", opts->run, set->nr_runs);
	if (convert_stackset_collect(set, opts->view, opts->run, &sw, &nr))
		return -1;
	if (opts->mean_per_run && opts->run < 0 && set->nr_runs > 1)
		div = (double)set->nr_runs;
	for (i = 0; i < nr; i++) {
		const char *s = convert_stackset_stack(set, sw[i].stack), *end;
		double w = (double)sw[i].weight / div;
		long node = 0;

		if (is_base)
			t->nodes[0].b += w;
		else
			t->nodes[0].v += w;
		for (; node >= 0; s = end + 1) {
			long name;

			end = strchr(s, ';');
			if (!end)
				end = s + strlen(s);
			if (is_base) {
				pgo_buf_reset(&frame);
				if (pgo_buf_add(&frame, s, (size_t)(end - s)))
					goto fail;
				name = pgo_strtab_find(&t->names, pgo_buf_str(&frame));
				if (name < 0)
					break;
			} else {
				name = pgo_strtab_intern_len(&t->names, s, (size_t)(end - s));
				if (name < 0)
					goto fail;
			}
			node = ftree_child(t, (uint32_t)node, (uint32_t)name, !is_base);
			if (node == -1)
				goto fail;
			if (node < 0)
				break;
			if (is_base)
				t->nodes[node].b += w;
			else
				t->nodes[node].v += w;
			if (!*end)
				break;
		}
	}
	free(sw);
	pgo_buf_release(&frame);
	return 0;
fail:
	free(sw);
	pgo_buf_release(&frame);
	return -1;
}

static int cmp_child(const void *a, const void *b, void *ctx)
{
	const struct ftree *t = ctx;
	const struct fnode *x = &t->nodes[*(const uint32_t *)a], *y = &t->nodes[*(const uint32_t *)b];

	return strcmp(pgo_strtab_str(&t->names, x->name), pgo_strtab_str(&t->names, y->name));
}

static int push_draw(struct fdraws *ds, struct fdraw d)
{
	if (PGO_ALLOC_GROW(ds->d, ds->nr + 1, ds->alloc))
		return -1;
	ds->d[ds->nr++] = d;
	return 0;
}

struct pending {
	uint32_t node, depth;
	double x;
};

/*
 * Decide what to draw: depth-first with an explicit stack (hostile profiles can be very
 * deep), children in name order, small children merged at the end of their parent.
 */
static int layout(const struct ftree *t, double scale, double minwidth, struct fdraws *ds,
		  uint32_t *max_depth)
{
	struct pending *stack = NULL;
	size_t nst = 0, ast = 0, nkids, akids = 0, i;
	uint32_t *kids = NULL;
	int err = -1;

	*max_depth = 0;
	if (PGO_ALLOC_GROW(stack, 1, ast))
		return -1;
	stack[nst++] = (struct pending){ 0, 0, XPAD };
	while (nst) {
		struct pending p = stack[--nst];
		const struct fnode *n = &t->nodes[p.node];
		struct fdraw small = { MERGED_NAME, 0, p.depth + 1, 0, 0, 0, 0 };
		double x = p.x;
		uint32_t c;

		if (push_draw(ds, (struct fdraw){ n->name, 0, p.depth, p.x, n->v * scale, n->v, n->b }))
			goto out;
		if (p.depth > *max_depth)
			*max_depth = p.depth;
		nkids = 0;
		for (c = n->child; c != NO_NODE; c = t->nodes[c].sibling) {
			if (PGO_ALLOC_GROW(kids, nkids + 1, akids))
				goto out;
			kids[nkids++] = c;
		}
		if (nkids > 1)
			qsort_r(kids, nkids, sizeof(*kids), cmp_child, (void *)t);
		for (i = 0; i < nkids; i++) {
			const struct fnode *k = &t->nodes[kids[i]];
			double w = k->v * scale;

			if (k->v <= 0)
				continue;
			if (w < minwidth || p.depth + 1 == UINT32_MAX) {
				small.nsmall++;
				small.v += k->v;
				small.b += k->b;
				continue;
			}
			if (PGO_ALLOC_GROW(stack, nst + 1, ast))
				goto out;
			stack[nst++] = (struct pending){ kids[i], p.depth + 1, x };
			x += w;
		}
		small.x = x;
		small.w = small.v * scale;
		if (small.nsmall && small.w >= minwidth && small.w > 0) {
			if (push_draw(ds, small))
				goto out;
			if (small.depth > *max_depth)
				*max_depth = small.depth;
		}
	}
	err = 0;
out:
	free(stack);
	free(kids);
	return err;
}

/* Warm colours for CPU time, blues for off-CPU, chosen by name so graphs agree. */
static void name_colour(const char *name, enum convert_view view, int rgb[3])
{
	uint64_t h = pgo_hash_bytes(name, strlen(name));
	double v1 = (double)(h & 0xffff) / 65535.0, v2 = (double)(h >> 16 & 0xffff) / 65535.0,
	       v3 = (double)(h >> 32 & 0xffff) / 65535.0;

	if (view == CONVERT_VIEW_OFFCPU) {
		rgb[0] = (int)(80 + 60 * v1);
		rgb[1] = rgb[0];
		rgb[2] = (int)(190 + 55 * v2);
	} else {
		rgb[0] = (int)(205 + 50 * v3);
		rgb[1] = (int)(230 * v1);
		rgb[2] = (int)(55 * v2);
	}
}

static void diff_colour(enum convert_flame_class cls, double v, double b, int rgb[3])
{
	double m = v > b ? v : b, r = m > 0 ? fabs(v - b) / m : 0;
	int shade = (int)(210 - 160 * (r > 1 ? 1 : r));

	switch (cls) {
	case CONVERT_FLAME_REGRESSED:
		rgb[0] = 255, rgb[1] = shade, rgb[2] = shade;
		break;
	case CONVERT_FLAME_IMPROVED:
		rgb[0] = shade, rgb[1] = shade, rgb[2] = 255;
		break;
	default:
		rgb[0] = rgb[1] = rgb[2] = 200;
	}
}

static void print_ns(FILE *fp, double ns)
{
	fprintf(fp, "%.0f ns", ns);
	if (ns >= 1e9)
		fprintf(fp, " (%.3g s)", ns / 1e9);
	else if (ns >= 1e6)
		fprintf(fp, " (%.3g ms)", ns / 1e6);
	else if (ns >= 1e3)
		fprintf(fp, " (%.3g us)", ns / 1e3);
}

static const char *const class_names[] = { "unflagged", "regressed", "improved" };

static const char style_css[] =
	"text { font-family: Verdana, sans-serif; font-size: 12px; fill: #000; }\n"
	"#title { font-size: 17px; }\n"
	"#subtitle { fill: #555; }\n"
	".btn { cursor: pointer; fill: #225; }\n"
	".btn:hover { text-decoration: underline; }\n"
	".hide { display: none; }\n"
	"g.f { cursor: pointer; }\n"
	"g.f:hover rect { stroke: #000; stroke-width: 0.5; }\n"
	"g.f text { pointer-events: none; font-size: 11px; }\n"
	"g.parent { opacity: 0.5; }\n";

/*
 * The viewer. Frames keep their original geometry in ox/ow; zoom rescales the frames
 * inside the clicked one and widens its ancestors. Markers for tests and automation:
 * data-pgo-ready on the root once the script ran, data-pgo-matched (percent) after a
 * search, data-pgo-error if a script error happened.
 */
static const char viewer_js[] =
	"(function () {\n"
	"'use strict';\n"
	"var svg = document.documentElement;\n"
	"window.addEventListener('error', function (e) { svg.setAttribute('data-pgo-error', String(e.message)); });\n"
	"var W = +svg.getAttribute('width'), XPAD = 10, CHAR_W = 11 * 0.59;\n"
	"var frames = [], total = 0, zoomed = null;\n"
	"var details = document.getElementById('details'), matchedEl = document.getElementById('matched');\n"
	"var unzoomBtn = document.getElementById('unzoom'), searchBtn = document.getElementById('search');\n"
	"var clearBtn = document.getElementById('clear');\n"
	"function fit(f, x, w) {\n"
	"  f.rect.setAttribute('x', x.toFixed(2)); f.rect.setAttribute('width', Math.max(w, 0).toFixed(2));\n"
	"  f.text.setAttribute('x', (x + 3).toFixed(2));\n"
	"  var n = Math.floor((w - 6) / CHAR_W);\n"
	"  f.text.textContent = n < 3 ? '' : (f.name.length <= n ? f.name : f.name.substring(0, n - 2) + '..');\n"
	"}\n"
	"Array.prototype.forEach.call(document.querySelectorAll('g.f'), function (g) {\n"
	"  var r = g.querySelector('rect'), t = g.querySelector('title');\n"
	"  var f = { g: g, rect: r, text: g.querySelector('text'), tip: t.textContent,\n"
	"            name: t.textContent.split('\\n')[0], ox: +r.getAttribute('x'), ow: +r.getAttribute('width'),\n"
	"            y: +r.getAttribute('y'), v: +g.getAttribute('data-v'), fill: r.getAttribute('fill') };\n"
	"  frames.push(f);\n"
	"  if (g.id === 'root') total = f.v;\n"
	"  g.addEventListener('click', function () { zoom(f); });\n"
	"  g.addEventListener('mouseover', function () { details.textContent = f.tip.replace(/\\n/g, ' | '); });\n"
	"  g.addEventListener('mouseout', function () { details.textContent = ' '; });\n"
	"});\n"
	"function zoom(z) {\n"
	"  /* coordinates are printed to 0.01 px: compare with that slack; frames above z\n"
	"     start inside z's span exactly when they are its descendants */\n"
	"  var scale = (W - 2 * XPAD) / z.ow, eps = 0.02;\n"
	"  zoomed = z; unzoomBtn.classList.remove('hide'); svg.setAttribute('data-pgo-zoomed', z.name);\n"
	"  frames.forEach(function (f) {\n"
	"    var inside = f.ox >= z.ox - eps && f.ox < z.ox + z.ow - eps;\n"
	"    var covers = f.ox <= z.ox + eps && f.ox + f.ow >= z.ox + z.ow - eps;\n"
	"    f.g.classList.remove('parent');\n"
	"    if (f.y > z.y && covers) {\n"
	"      f.g.classList.remove('hide'); f.g.classList.add('parent'); fit(f, XPAD, W - 2 * XPAD);\n"
	"    } else if (f.y <= z.y && inside) {\n"
	"      f.g.classList.remove('hide'); fit(f, XPAD + (f.ox - z.ox) * scale, f.ow * scale);\n"
	"    } else {\n"
	"      f.g.classList.add('hide');\n"
	"    }\n"
	"  });\n"
	"}\n"
	"function unzoom() {\n"
	"  zoomed = null; unzoomBtn.classList.add('hide'); svg.removeAttribute('data-pgo-zoomed');\n"
	"  frames.forEach(function (f) { f.g.classList.remove('hide', 'parent'); fit(f, f.ox, f.ow); });\n"
	"}\n"
	"function search(term) {\n"
	"  var re;\n"
	"  try { re = new RegExp(term); } catch (e) { details.textContent = 'bad regular expression: ' + term; return; }\n"
	"  var hits = [];\n"
	"  frames.forEach(function (f) {\n"
	"    if (f.g.id !== 'root' && re.test(f.name)) { f.rect.style.fill = 'rgb(230,0,230)'; hits.push(f); }\n"
	"    else f.rect.style.fill = '';\n"
	"  });\n"
	"  /* count each matched subtree once: skip matches inside an earlier, wider match */\n"
	"  hits.sort(function (a, b) { return a.ox - b.ox || b.ow - a.ow; });\n"
	"  var sum = 0, end = -1;\n"
	"  hits.forEach(function (f) { if (f.ox >= end - 1e-6) { sum += f.v; end = f.ox + f.ow; } });\n"
	"  var pct = total > 0 ? 100 * sum / total : 0;\n"
	"  matchedEl.textContent = 'Matched: ' + pct.toFixed(1) + '%';\n"
	"  svg.setAttribute('data-pgo-matched', pct.toFixed(1));\n"
	"  svg.setAttribute('data-pgo-hits', String(hits.length));\n"
	"  clearBtn.classList.remove('hide');\n"
	"}\n"
	"function clearSearch() {\n"
	"  frames.forEach(function (f) { f.rect.style.fill = ''; });\n"
	"  matchedEl.textContent = ' '; clearBtn.classList.add('hide');\n"
	"  svg.removeAttribute('data-pgo-matched'); svg.removeAttribute('data-pgo-hits');\n"
	"}\n"
	"unzoomBtn.addEventListener('click', unzoom);\n"
	"clearBtn.addEventListener('click', clearSearch);\n"
	"searchBtn.addEventListener('click', function () {\n"
	"  var term = window.prompt('Search (regular expression):', '');\n"
	"  if (term) search(term);\n"
	"});\n"
	"window.addEventListener('keydown', function (e) {\n"
	"  if (e.key === 'Escape') { unzoom(); clearSearch(); }\n"
	"});\n"
	"function param(k) {\n"
	"  var m = new RegExp('[?&]' + k + '=([^&]*)').exec(window.location.search);\n"
	"  return m ? decodeURIComponent(m[1].replace(/\\+/g, ' ')) : null;\n"
	"}\n"
	"var zq = param('z'), sq = param('s');\n"
	"if (zq !== null) frames.some(function (f) { return f.name === zq && (zoom(f), true); });\n"
	"if (sq) search(sq);\n"
	"window.pgoFlame = { search: search, clear: clearSearch, zoom: function (i) { zoom(frames[i]); }, unzoom: unzoom };\n"
	"svg.setAttribute('data-pgo-ready', '1');\n"
	"})();\n";

static void write_frame(FILE *fp, const struct ftree *t, const struct fdraw *d, double total,
			double btotal, const struct convert_flame_opts *opts,
			const enum convert_flame_class *classes, unsigned height)
{
	const char *name = d->name == MERGED_NAME ? NULL : pgo_strtab_str(&t->names, d->name);
	int diff = opts->base != NULL, rgb[3];
	enum convert_flame_class cls = CONVERT_FLAME_UNFLAGGED;
	double y = height - BOTTOM_PAD - (double)(d->depth + 1) * FRAME_H;
	double pct = total > 0 ? 100 * d->v / total : 0;

	if (diff && d->name != MERGED_NAME && d->depth > 0)
		cls = classes[d->name];
	fprintf(fp, "<g class=\"f%s%s\"%s data-v=\"%.0f\"", diff ? " " : "",
		diff ? class_names[cls] : "", d->depth == 0 ? " id=\"root\"" : "", d->v);
	if (diff)
		fprintf(fp, " data-b=\"%.0f\"", d->b);
	fputs("><title>", fp);
	if (name)
		convert_xml_escape(fp, name);
	else
		fprintf(fp, "[%" PRIu32 " small frames]", d->nsmall);
	fputs("\n", fp);
	if (diff) {
		fputs("head: ", fp);
		print_ns(fp, d->v);
		fprintf(fp, ", %.2f%%\nbase: ", pct);
		print_ns(fp, d->b);
		fprintf(fp, ", %.2f%%\nchange: ", btotal > 0 ? 100 * d->b / btotal : 0);
		if (d->b > 0)
			fprintf(fp, "%+.1f%%", 100 * (d->v - d->b) / d->b);
		else
			fputs("new", fp);
		if (d->depth > 0 && name)
			fprintf(fp, " (%s)", class_names[cls]);
	} else {
		print_ns(fp, d->v);
		fprintf(fp, ", %.2f%%", pct);
	}
	if (diff)
		diff_colour(cls, d->v, d->b, rgb);
	else if (name && d->depth > 0)
		name_colour(name, opts->view, rgb);
	else
		rgb[0] = rgb[1] = rgb[2] = 210;
	fprintf(fp, "</title><rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" rx=\"2\" "
		    "fill=\"rgb(%d,%d,%d)\"/><text x=\"%.2f\" y=\"%.1f\">",
		d->x, y, d->w, FRAME_H - 1, rgb[0], rgb[1], rgb[2], d->x + 3, y + FRAME_H - 4.5);
	/* the same truncation as the script, so the graph reads well without JavaScript */
	if (name) {
		size_t n = (size_t)fmax(0, floor((d->w - 6) / (11 * 0.59))), len = strlen(name);

		if (n >= 3 && len <= n) {
			convert_xml_escape(fp, name);
		} else if (n >= 3) {
			char *cut = pgo_strndup(name, n - 2);

			/* a cut inside a UTF-8 sequence is replaced by U+FFFD by the escaper */
			if (cut) {
				convert_xml_escape(fp, cut);
				fputs("..", fp);
				free(cut);
			}
		}
	}
	fputs("</text></g>\n", fp);
}

int convert_flamegraph_write(FILE *fp, const struct convert_stackset *set,
			     const struct convert_flame_opts *opts)
{
	struct ftree t = { PGO_STRTAB_INIT, NULL, 0, 0, PGO_U64MAP_INIT };
	struct fdraws ds = { NULL, 0, 0 };
	enum convert_flame_class *classes = NULL;
	unsigned width = opts->width ? opts->width : 1200, height;
	double minwidth = opts->minwidth < 0 ? 0.1 : opts->minwidth, total, scale;
	uint32_t max_depth = 0;
	const char *title = opts->title ? opts->title
					: opts->base ? "Differential Flame Graph" : "Flame Graph";
	int err = -1;
	size_t i;

	if (width < 100 || width > 1000000)
		return pgo_error("flame graph width %u is out of range (100..1000000)", width);
	if (pgo_strtab_intern(&t.names, "all") < 0 || ftree_new_node(&t, 0) < 0)
		goto out;
	if (ftree_add(&t, set, opts, 0))
		goto out;
	if (opts->base && ftree_add(&t, opts->base, opts, 1))
		goto out;
	if (opts->base) {
		classes = pgo_calloc(t.names.nr, sizeof(*classes));
		if (!classes)
			goto out;
		for (i = 1; opts->classify && i < t.names.nr; i++) {
			classes[i] = opts->classify(opts->classify_data, pgo_strtab_str(&t.names, i));
			if ((unsigned)classes[i] > CONVERT_FLAME_IMPROVED)
				PGO_BUG("classify returned %d", (int)classes[i]);
		}
	}
	total = t.nodes[0].v;
	scale = total > 0 ? (width - 2.0 * XPAD) / total : 0;
	if (total > 0 && layout(&t, scale, minwidth, &ds, &max_depth))
		goto out;
	height = TOP_PAD + (max_depth + 1) * FRAME_H + BOTTOM_PAD;

	fprintf(fp, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		    "<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%u\" height=\"%u\" "
		    "viewBox=\"0 0 %u %u\" data-pgo=\"%s\">\n",
		width, height, width, height, opts->base ? "flamegraph-diff" : "flamegraph");
	fprintf(fp, "<style>\n%s</style>\n", style_css);
	fprintf(fp, "<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%u\" fill=\"#f8f8f4\"/>\n", width,
		height);
	fprintf(fp, "<text id=\"title\" x=\"%u\" y=\"24\" text-anchor=\"middle\">", width / 2);
	convert_xml_escape(fp, title);
	fputs("</text>\n", fp);
	fprintf(fp, "<text id=\"subtitle\" x=\"%u\" y=\"42\" text-anchor=\"middle\">", width / 2);
	if (opts->subtitle)
		convert_xml_escape(fp, opts->subtitle);
	if (total <= 0)
		fputs(opts->subtitle ? " (no samples)" : "(no samples)", fp);
	fputs("</text>\n", fp);
	fputs("<text id=\"unzoom\" class=\"btn hide\" x=\"10\" y=\"24\">Reset Zoom</text>\n", fp);
	fprintf(fp, "<text id=\"search\" class=\"btn\" x=\"%u\" y=\"24\" text-anchor=\"end\">Search</text>\n",
		width - XPAD);
	fprintf(fp, "<text id=\"clear\" class=\"btn hide\" x=\"%u\" y=\"42\" text-anchor=\"end\">Clear</text>\n",
		width - XPAD);
	fprintf(fp, "<text id=\"details\" x=\"10\" y=\"%u\"> </text>\n", height - 10);
	fprintf(fp, "<text id=\"matched\" x=\"%u\" y=\"%u\" text-anchor=\"end\"> </text>\n",
		width - XPAD, height - 10);
	fputs("<g id=\"frames\">\n", fp);
	for (i = 0; i < ds.nr; i++)
		write_frame(fp, &t, &ds.d[i], total, t.nodes[0].b, opts, classes, height);
	fputs("</g>\n<script type=\"text/javascript\"><![CDATA[\n", fp);
	fputs(viewer_js, fp);
	fputs("]]></script>\n</svg>\n", fp);
	/* a write error is reported by the caller, who knows the file's name */
	err = ferror(fp) ? -1 : 0;
out:
	free(classes);
	free(ds.d);
	ftree_release(&t);
	return err;
}
