/* SPDX-License-Identifier: MIT */
/*
 * Interactive flame graph SVG, self-contained (embedded CSS and JavaScript, no network):
 * click a frame to zoom, "Reset Zoom", "Search" (regex; highlights matches and prints
 * the matched share of the total), tooltips with name, ns and share, colours stable
 * across graphs (a hash of the frame name). Opening the file with "?s=REGEX" appended to
 * its URL runs that search on load, "?z=NAME" zooms into the first frame called NAME
 * (links from reports, and tests: the root element gets data-pgo-ready, -matched,
 * -hits, -zoomed and -error attributes).
 *
 * Differential mode (opts.base != NULL), for the gate: widths are the head profile's
 * (`set`); each frame also carries the base value, tooltips show base, head and change,
 * and frames are coloured by a class the caller assigns per frame name: regressed (red),
 * improved (blue), unflagged (grey). Each frame is a <g> whose class attribute is
 * "f regressed", "f improved" or "f unflagged" (plain graphs: "f").
 *
 * Frames narrower than opts.minwidth pixels are not drawn one by one: the small children
 * of a frame are merged into one "[N small frames]" frame (drawn if it is wide enough),
 * so huge profiles still give small files. All text is XML-escaped and invalid UTF-8 or
 * control characters are replaced, so any frame name gives a well-formed document.
 */
#ifndef PGO_CONVERT_FLAMEGRAPH_H
#define PGO_CONVERT_FLAMEGRAPH_H

#include <stdio.h>

#include "convert/stackset.h"

enum convert_flame_class {
	CONVERT_FLAME_UNFLAGGED = 0,
	CONVERT_FLAME_REGRESSED,
	CONVERT_FLAME_IMPROVED,
};

/* Called once per distinct frame name in differential mode; `name` is borrowed. */
typedef enum convert_flame_class (*convert_flame_classify_fn)(void *data, const char *name);

struct convert_flame_opts {
	const char *title;     /* NULL: "Flame Graph" or "Differential Flame Graph" */
	const char *subtitle;  /* NULL: none */
	enum convert_view view;
	long run;              /* run index, or -1 for all runs */
	int mean_per_run;      /* divide each profile by its number of runs (compare
				* collections with different run counts) */
	unsigned width;        /* image width in px; 0: 1200 */
	double minwidth;       /* px; frames narrower than this are merged; < 0: 0.1 */
	const struct convert_stackset *base; /* non-NULL: differential mode */
	convert_flame_classify_fn classify;  /* NULL: every frame unflagged */
	void *classify_data;
};
#define CONVERT_FLAME_OPTS_INIT { NULL, NULL, CONVERT_VIEW_CPU, -1, 0, 0, -1, NULL, NULL, NULL }

/*
 * Write the SVG to fp. An empty profile gives a valid graph saying so. Returns 0, or -1:
 * after reporting (allocation failure, bad options), or on a write error with
 * ferror(fp) set and nothing reported, so the caller names the file
 * (pgo_atomic_commit() does).
 */
int convert_flamegraph_write(FILE *fp, const struct convert_stackset *set,
			     const struct convert_flame_opts *opts);

/*
 * Write s to fp as XML character data / attribute value: & < > " ' escaped, control
 * characters and invalid UTF-8 replaced by '?' / U+FFFD. Shared with other SVG writers.
 */
void convert_xml_escape(FILE *fp, const char *s);

#endif
