// SPDX-License-Identifier: MIT
/* The gate's differential flamegraph, drawn by convert's flamegraph writer. */
#include <stdlib.h>
#include <string.h>

#include "convert/flamegraph.h"
#include "convert/stackset.h"
#include "convert/wall.h"
#include "gate/report.h"
#include "lib/alloc.h"
#include "lib/atomicfile.h"
#include "lib/report.h"

struct classes {
	struct pgo_strtab names;   /* folded function name -> id */
	unsigned char *cls;        /* id -> enum convert_flame_class */
	size_t alloc;
};

static int class_set(struct classes *c, const char *name, enum convert_flame_class k)
{
	long id = pgo_strtab_intern(&c->names, name);

	if (id < 0 || PGO_ALLOC_GROW(c->cls, (size_t)id + 1, c->alloc))
		return -1;
	/* A regression wins over an improvement of the other kind (self vs inclusive). */
	if (c->cls[id] != CONVERT_FLAME_REGRESSED)
		c->cls[id] = k;
	return 0;
}

static enum convert_flame_class classify(void *data, const char *name)
{
	struct classes *c = data;
	size_t len = strlen(name), klen, base;
	char buf[512];
	long id;

	/* Frames carry clone suffixes; the verdict names folded functions. */
	klen = (len > 4 && !memcmp(name + len - 4, "_[k]", 4)) ? 4 : 0;
	base = gate_fold_clone_len(name, len - klen);
	if (base + klen >= sizeof(buf))
		return CONVERT_FLAME_UNFLAGGED;
	memcpy(buf, name, base);
	memcpy(buf + base, name + len - klen, klen);
	buf[base + klen] = '\0';
	id = pgo_strtab_find(&c->names, buf);
	return id < 0 ? CONVERT_FLAME_UNFLAGGED : (enum convert_flame_class)c->cls[id];
}

/*
 * The set to draw for a side: its only set as is, else a copy with the confirmation
 * runs appended; in the wall view convert's wall set (on-CPU stacks get a "[running]"
 * leaf, drawn as a CPU view). *tmp holds what was made.
 */
static int side_set(const struct gate_svg_side *side, enum gate_view_kind view,
		    struct convert_stackset *tmp, const struct convert_stackset **out)
{
	struct convert_stackset all = CONVERT_STACKSET_INIT;
	const struct convert_stackset *src = side->set[0];
	size_t i;
	int err = 0;

	if (side->nr > 1) {
		for (i = 0; i < side->nr && !err; i++)
			err = convert_stackset_append(&all, side->set[i]);
		src = &all;
	}
	if (!err && view == GATE_VIEW_WALL) {
		err = convert_stackset_wall(src, tmp);
		convert_stackset_release(&all);
	} else {
		*tmp = all;
	}
	*out = side->nr > 1 || view == GATE_VIEW_WALL ? tmp : side->set[0];
	return err;
}

int gate_report_svg(const struct gate_verdict *v, const struct gate_svg_side *base,
		    const struct gate_svg_side *head, const char *path)
{
	struct convert_stackset bset = CONVERT_STACKSET_INIT, hset = CONVERT_STACKSET_INIT;
	const struct convert_stackset *bp, *hp;
	struct convert_flame_opts fo = CONVERT_FLAME_OPTS_INIT;
	struct pgo_atomic_file af = PGO_ATOMIC_FILE_INIT;
	struct classes c = { PGO_STRTAB_INIT, NULL, 0 };
	char subtitle[256];
	size_t i;
	int err = -1, werr;

	for (i = 0; i < v->nr_results; i++) {
		const struct gate_result *r = &v->results[i];

		if ((r->role == GATE_ROLE_ROOT || r->role == GATE_ROLE_ROOT_INCL ||
		     r->role == GATE_ROLE_VIA) && class_set(&c, r->name, CONVERT_FLAME_REGRESSED))
			goto out;
		if (r->role == GATE_ROLE_IMPROVED && class_set(&c, r->name, CONVERT_FLAME_IMPROVED))
			goto out;
	}
	if (side_set(base, v->opts.view, &bset, &bp) || side_set(head, v->opts.view, &hset, &hp))
		goto out;
	snprintf(subtitle, sizeof(subtitle), "%s vs %s, %s view: %s (red: regressed, blue: "
		 "improved, grey: within noise)", v->base_label, v->head_label,
		 gate_view_name(v->opts.view), v->regression ? "REGRESSION" : "pass");
	fo.title = "pgo gate: differential flame graph (head widths)";
	fo.subtitle = subtitle;
	fo.view = v->opts.view == GATE_VIEW_OFFCPU ? CONVERT_VIEW_OFFCPU : CONVERT_VIEW_CPU;
	fo.mean_per_run = 1;
	fo.base = bp;
	fo.classify = classify;
	fo.classify_data = &c;
	if (pgo_atomic_open(&af, path))
		goto out;
	/* a write error (ferror set, unreported) is reported by the commit, naming the file */
	werr = convert_flamegraph_write(af.fp, hp, &fo);
	if (werr && !ferror(af.fp)) {
		pgo_atomic_abort(&af);
		goto out;
	}
	err = pgo_atomic_commit(&af) || werr ? -1 : 0;
out:
	convert_stackset_release(&bset);
	convert_stackset_release(&hset);
	pgo_strtab_release(&c.names);
	free(c.cls);
	return err;
}
