/* SPDX-License-Identifier: MIT */
/*
 * The stack-set outputs of `pgo convert`: --to folded, svg and json. cmd/convert.c
 * builds a convert_stackset (from perf.data or from a profile JSON) and hands it here;
 * this file owns the options of those formats and the atomic output file.
 */
#ifndef PGO_CMD_CONVERT_RENDER_H
#define PGO_CMD_CONVERT_RENDER_H

#include "convert/stackset.h"

struct cmd_render_opts {
	const char *to;       /* "folded", "svg" or "json" */
	const char *output;   /* NULL or "-": stdout */
	enum convert_view view;
	long run;             /* -1: all runs */
	const char *title, *subtitle;
	double minwidth;      /* < 0: default */
	int header;           /* folded: "# ..." unit line */
	int wall;             /* --view wall: on-CPU + off-CPU with state frames (convert/wall.h) */
};
#define CMD_RENDER_OPTS_INIT { NULL, NULL, CONVERT_VIEW_CPU, -1, NULL, NULL, -1, 0, 0 }

/* Is fmt one of the formats written here? */
int cmd_render_handles(const char *fmt);

/*
 * Parse one of the options below (getopt_long value `opt`, argument `arg`) into o.
 * Returns 1 if it was one of ours, 0 if not, -1 after reporting a bad value (usage).
 */
int cmd_render_parse_opt(struct cmd_render_opts *o, int opt, const char *arg);
#define CMD_RENDER_OPT_VIEW 0x1000
#define CMD_RENDER_OPT_RUN 0x1001
#define CMD_RENDER_OPT_TITLE 0x1002
#define CMD_RENDER_OPT_SUBTITLE 0x1003
#define CMD_RENDER_OPT_MINWIDTH 0x1004
#define CMD_RENDER_OPT_HEADER 0x1005
/* getopt_long entries for the options above (no terminator): splice into a table. */
#define CMD_RENDER_LONGOPTS                                                   \
	{ "view", required_argument, NULL, CMD_RENDER_OPT_VIEW },             \
	{ "run", required_argument, NULL, CMD_RENDER_OPT_RUN },               \
	{ "title", required_argument, NULL, CMD_RENDER_OPT_TITLE },           \
	{ "subtitle", required_argument, NULL, CMD_RENDER_OPT_SUBTITLE },     \
	{ "minwidth", required_argument, NULL, CMD_RENDER_OPT_MINWIDTH },     \
	{ "header", no_argument, NULL, CMD_RENDER_OPT_HEADER }
#define CMD_RENDER_USAGE                                                                        \
	"  --view cpu|offcpu|wall  folded/svg: which view to draw (default cpu); wall = on-CPU\n"  \
	"                      + off-CPU time, the thread state as the leaf frame\n"            \
	"  --run N             folded/svg: only run N of the collection (default: all runs)\n"    \
	"  --title T, --subtitle S   svg: titles\n"                                             \
	"  --minwidth PX       svg: merge frames narrower than PX pixels (default 0.1)\n"         \
	"  --header            folded: start with a '# ... unit=ns' comment line\n"

/* Write set in o->to format to o->output, atomically. Returns 0 or -1 after reporting. */
int cmd_render_write(const struct convert_stackset *set, const struct cmd_render_opts *o);

struct convert_options;
/*
 * The whole `pgo convert --to folded|svg|json` path: load the inputs of `co` (perf.data
 * files, through the stack loader; or profile JSON files, recognised by content, merged
 * run after run), write o->to. Returns a PGO_EXIT_* code.
 */
int cmd_render_run(struct convert_options *co, const struct cmd_render_opts *o);

#endif
