// SPDX-License-Identifier: MIT
/*
 * Symbolized stacks of a loaded profile (convert/stacks.h): each aggregated stack's
 * frames are resolved through the DSO's symtab (cached per address there) and
 * expanded with their inline chains, root first.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/offcpu.h"
#include "convert/internal.h"
#include "symbolize/ksyms.h"
#include "lib/alloc.h"
#include "lib/report.h"

struct frame_buf {
	struct convert_frame *f;
	size_t nr, alloc;
};

static int push(struct frame_buf *b, const char *name, const char *dso, const char *file,
		unsigned line, int inlined, int kernel, int own)
{
	struct convert_frame *f;

	if (PGO_ALLOC_GROW(b->f, b->nr + 1, b->alloc) < 0)
		return -1;
	f = &b->f[b->nr++];
	f->name = name;
	f->dso = dso;
	f->file = file;
	f->line = line;
	f->inlined = inlined;
	f->kernel = kernel;
	f->own = own;
	return 0;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/*
 * Is d the benchmark's own code? The profiled binaries are, and so is a shared object
 * built from the same tree as the first of them: not installed under a system prefix,
 * and in the same top two directories (/work/proj/build/libfoo.so for
 * /work/proj/build/bench). The gate looks for root causes in own code only
 * (docs/profile-json.md, "dsos").
 */
static int dso_own(const struct convert_profile *p, const struct convert_dso *d)
{
	static const char *const system[] = { "/usr/", "/lib/", "/lib32/", "/lib64/", "/libx32/",
					      "/opt/", "/snap/", "/nix/", "/gnu/" };
	const char *main_path, *a, *b;
	size_t i;
	int slashes = 0;

	if (d->binary)
		return 1;
	if (!convert_profile_nr_binaries(p) || d->path[0] != '/' || !strstr(base_name(d->path), ".so"))
		return 0;
	for (i = 0; i < PGO_ARRAY_SIZE(system); i++)
		if (!strncmp(d->path, system[i], strlen(system[i])))
			return 0;
	main_path = convert_profile_binary_path(p, 0);
	for (a = d->path, b = main_path; *a && *a == *b; a++, b++)
		if (*a == '/' && ++slashes == 3)
			return 1;
	return 0;
}

/* Append the frames of one address, outermost inline level first. */
static int symbolize(struct convert_profile *p, const struct stack_frame *sf, struct frame_buf *b,
		     struct pgo_strtab *bracket)
{
	const struct convert_dso *d;
	struct symbolize_symtab *st;
	struct symbolize_sym sym;
	uint64_t vaddr;
	const char *dso, *name;
	uint32_t i;
	char tmp[4096];
	long id;
	int own;

	if (sf->dso == DSO_STATE)
		return push(b, collect_offcpu_state_frame((unsigned int)sf->addr), NULL, NULL, 0, 0, 0, 0);
	if (sf->dso == DSO_KERNEL) {
		const char *kname;

		if (!p->ksyms)
			p->ksyms = symbolize_ksyms_load(NULL);
		kname = p->ksyms ? symbolize_ksyms_find(p->ksyms, sf->addr - (sf->ret ? 1 : 0)) : NULL;
		if (!kname)
			return push(b, "[kernel.kallsyms]_[k]", "[kernel.kallsyms]", NULL, 0, 0, 1, 0);
		snprintf(tmp, sizeof(tmp), "%s_[k]", kname);
		id = pgo_strtab_intern(bracket, tmp);
		if (id < 0)
			return -1;
		return push(b, pgo_strtab_str(bracket, id), "[kernel.kallsyms]", NULL, 0, 0, 1, 0);
	}
	if (sf->dso == DSO_UNKNOWN || sf->dso >= p->nr_dsos)
		return push(b, "[unknown]", NULL, NULL, 0, 0, 0, 0);
	d = &p->dsos[sf->dso];
	dso = base_name(d->path);
	own = dso_own(p, d);
	st = convert_dso_symtab(p, sf->dso);
	if (st && symbolize_symtab_offset_to_vaddr(st, sf->addr, &vaddr) == 0) {
		sym = symbolize_symtab_lookup(st, vaddr - (sf->ret && vaddr ? 1 : 0));
		for (i = 0; i < sym.nr_frames; i++) {
			const struct symbolize_sym_frame *f = &sym.frames[i];

			name = convert_str(p, f->name);
			if (i == 0 && sym.sym_name != SYMBOLIZE_NO_NAME)
				name = convert_str(p, sym.sym_name);
			if (push(b, name, dso, f->file == SYMBOLIZE_NO_NAME ? NULL : convert_str(p, f->file),
				 f->line, i > 0, 0, own) < 0)
				return -1;
		}
		if (sym.nr_frames)
			return 0;
		if (sym.sym_name != SYMBOLIZE_NO_NAME)
			return push(b, convert_str(p, sym.sym_name), dso, NULL, 0, 0, 0, own);
	}
	snprintf(tmp, sizeof(tmp), "[%s]", dso);
	id = pgo_strtab_intern(bracket, tmp);
	if (id < 0)
		return -1;
	return push(b, pgo_strtab_str(bracket, id), dso, NULL, 0, 0, 0, own);
}

/*
 * Is leaf (the frames of pool frame 1 of sr) the __schedule above an off-CPU stack's
 * state frame? The collector drops the tracing machinery's frames at the top of a
 * switch-out's kernel stack by count, but there is one frame more (the tracepoint's
 * iterator) while another probe shares sched_switch, as perf record -e sched:sched_switch
 * does: __schedule is the kernel leaf then, and not otherwise. Dropping it makes a wait
 * look the same whatever else traces the machine; it ends at __schedule's caller
 * (schedule, preempt_schedule_irq, ...) either way.
 */
static int is_switch_leaf(const struct convert_profile *p, const struct stack_rec *sr,
			  const struct frame_buf *leaf)
{
	return sr->nr >= 3 && p->frames[sr->first].dso == DSO_STATE &&
	       p->frames[sr->first + 1].dso == DSO_KERNEL && leaf->nr == 1 &&
	       !strcmp(leaf->f[0].name, "__schedule_[k]");
}

/* Every frame of one address carries the address it came from. */
static void set_address(struct frame_buf *leaf, const struct stack_frame *sf)
{
	size_t j;

	for (j = 0; j < leaf->nr; j++) {
		leaf->f[j].dso_index = sf->dso;
		leaf->f[j].addr = sf->addr;
		leaf->f[j].ret = sf->ret != 0;
	}
}

size_t convert_profile_nr_dsos(const struct convert_profile *p)
{
	return p->nr_dsos;
}

int convert_profile_dso(const struct convert_profile *p, uint32_t dso, const char **path,
			char build_id_hex[41])
{
	const struct convert_dso *d;
	int i;

	if (dso >= p->nr_dsos)
		return -1;
	d = &p->dsos[dso];
	*path = d->path;
	for (i = 0; i < d->build_id_len && i < 20; i++)
		snprintf(build_id_hex + 2 * i, 3, "%02x", d->build_id[i]);
	build_id_hex[2 * i] = 0;
	return 0;
}

static int cmp_run(const void *a, const void *b, void *arg)
{
	const struct stack_rec *s = arg;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	if (s[x].run != s[y].run)
		return s[x].run < s[y].run ? -1 : 1;
	return x < y ? -1 : x > y;
}

int convert_stacks_foreach(struct convert_profile *p, convert_stack_fn fn, void *data)
{
	struct frame_buf b = { NULL, 0, 0 }, leaf = { NULL, 0, 0 };
	struct pgo_strtab *bracket = &p->strs;
	size_t *order, i;
	int ret = 0;

	if (!p->nr_stacks)
		return 0;
	order = pgo_calloc(p->nr_stacks, sizeof(*order));
	if (!order)
		return -1;
	for (i = 0; i < p->nr_stacks; i++)
		order[i] = i;
	qsort_r(order, p->nr_stacks, sizeof(*order), cmp_run, p->stacks);
	for (i = 0; i < p->nr_stacks && !ret; i++) {
		const struct stack_rec *sr = &p->stacks[order[i]];
		struct convert_stack cs;
		uint32_t k;

		b.nr = 0;
		/* pool frames are leaf first; each address expands root-first */
		for (k = sr->nr; k-- > 0;) {
			leaf.nr = 0;
			if (symbolize(p, &p->frames[sr->first + k], &leaf, bracket) < 0) {
				ret = -1;
				break;
			}
			if (k == 1 && is_switch_leaf(p, sr, &leaf))
				continue;
			set_address(&leaf, &p->frames[sr->first + k]);
			if (PGO_ALLOC_GROW(b.f, b.nr + leaf.nr, b.alloc) < 0) {
				ret = -1;
				break;
			}
			memcpy(b.f + b.nr, leaf.f, leaf.nr * sizeof(*leaf.f));
			b.nr += leaf.nr;
		}
		if (ret)
			break;
		cs.run = sr->run;
		cs.pid = sr->pid;
		cs.tid = sr->tid;
		cs.view = sr->view;
		cs.event = convert_str(p, sr->attr_name);
		cs.weight_ns = sr->weight;
		cs.samples = sr->samples;
		cs.nr_frames = b.nr;
		cs.frames = b.f;
		ret = fn(&cs, data);
	}
	free(order);
	free(b.f);
	free(leaf.f);
	return ret;
}
