// SPDX-License-Identifier: MIT
/* The gate's differential flamegraph, drawn by convert's flamegraph writer. */
#include <stdlib.h>
#include <string.h>

#include "convert/flamegraph.h"
#include "convert/profile_json.h"
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

static int load_side(const struct gate_svg_side *side, struct convert_stackset *set)
{
	size_t i;

	for (i = 0; i < side->nr; i++) {
		struct convert_stackset one = CONVERT_STACKSET_INIT;
		int err;

		if (convert_profile_json_parse(side->text[i], strlen(side->text[i]), side->label, &one))
			return -1;
		err = i ? convert_stackset_append(set, &one) : 0;
		if (!i)
			*set = one;
		else
			convert_stackset_release(&one);
		if (err)
			return -1;
	}
	return 0;
}

int gate_report_svg(const struct gate_verdict *v, const struct gate_svg_side *base,
		    const struct gate_svg_side *head, const char *path)
{
	struct convert_stackset bset = CONVERT_STACKSET_INIT, hset = CONVERT_STACKSET_INIT;
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
	if (load_side(base, &bset) || load_side(head, &hset))
		goto out;
	if (v->opts.view == GATE_VIEW_WALL) {
		/* convert's wall view: on-CPU stacks get a "[running]" leaf, drawn as CPU view. */
		struct convert_stackset bw = CONVERT_STACKSET_INIT, hw = CONVERT_STACKSET_INIT;

		if (convert_stackset_wall(&bset, &bw))
			goto out;
		if (convert_stackset_wall(&hset, &hw)) {
			convert_stackset_release(&bw);
			goto out;
		}
		convert_stackset_release(&bset);
		convert_stackset_release(&hset);
		bset = bw;
		hset = hw;
	}
	snprintf(subtitle, sizeof(subtitle), "%s vs %s, %s view: %s (red: regressed, blue: "
		 "improved, grey: within noise)", v->base_label, v->head_label,
		 gate_view_name(v->opts.view), v->regression ? "REGRESSION" : "pass");
	fo.title = "pgo gate: differential flame graph (head widths)";
	fo.subtitle = subtitle;
	fo.view = v->opts.view == GATE_VIEW_OFFCPU ? CONVERT_VIEW_OFFCPU : CONVERT_VIEW_CPU;
	fo.mean_per_run = 1;
	fo.base = &bset;
	fo.classify = classify;
	fo.classify_data = &c;
	if (pgo_atomic_open(&af, path))
		goto out;
	/* a write error (ferror set, unreported) is reported by the commit, naming the file */
	werr = convert_flamegraph_write(af.fp, &hset, &fo);
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
