// SPDX-License-Identifier: MIT
/*
 * Which binaries a profile is for (the -b options matched by build-id, else path; by
 * default the sampled main executable), and their samples, calls and branches.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "convert/profile_internal.h"
#include "lib/alloc.h"
#include "lib/report.h"

/* What same_file() worked out about the binary (b), once. */
struct same_file_b {
	int have_st;                   /* 0: not yet, 1: st is b's, -1: b cannot be stat'ed */
	struct stat st;
	int have_real;                 /* 0: not yet, 1: real is b's real path, -1: none */
	char real[PATH_MAX];
};

/*
 * Whether a and b have the same real path. Each realpath() is a readlink per component
 * of the path: b's is worked out once, not once per DSO of the recording, and a DSO that
 * is another file (another inode) or none ([vdso]: realpath() would fail as stat() does)
 * is told by a stat.
 */
static int same_file(const char *a, const char *b, struct same_file_b *bb)
{
	char ra[PATH_MAX];
	struct stat sa;

	if (!bb->have_st)
		bb->have_st = stat(b, &bb->st) ? -1 : 1;
	if (bb->have_st < 0 || stat(a, &sa) || sa.st_dev != bb->st.st_dev || sa.st_ino != bb->st.st_ino)
		return 0;
	if (!bb->have_real)
		bb->have_real = realpath(b, bb->real) ? 1 : -1;
	if (bb->have_real < 0 || !realpath(a, ra))
		return 0;
	return !strcmp(ra, bb->real);
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/*
 * required: 0 = best effort (stacks; failures are quiet), 1 = must be readable and have
 * samples, 2 = must be readable, no samples is a warning (one of several -b).
 */
static int add_binary(struct convert_profile *p, const char *path, int force, int required)
{
	struct convert_binary *b;
	const uint8_t *bid;
	char hex[41], rhex[41];
	struct same_file_b bb = { 0 };
	size_t i, matched = 0, mismatched = 0;
	int bid_len;
	const char *rec_hex = NULL;

	b = &p->bins[p->nr_bins];
	memset(b, 0, sizeof(*b));
	b->path = pgo_strdup(path);
	if (!b->path)
		return -1;
	/* for stacks alone a binary is a bonus: without one, no error */
	if (symbolize_symtab_open(path, &p->strs,
				SYMBOLIZE_SYMTAB_NEED_DWARF | (required ? 0 : SYMBOLIZE_SYMTAB_QUIET), &b->st) < 0) {
		free(b->path);
		return required ? -1 : 0;
	}
	p->nr_bins++;
	bid_len = symbolize_symtab_build_id(b->st, &bid);
	collect_build_id_hex(bid, bid_len, b->build_id_hex);
	memcpy(hex, b->build_id_hex, sizeof(hex));
	for (i = 0; i < p->nr_dsos; i++) {
		struct convert_dso *d = &p->dsos[i];
		int by_id = bid_len && d->build_id_len == bid_len && !memcmp(d->build_id, bid, bid_len);
		int by_path;

		if (d->binary)
			continue;
		/* the cheap tests first: same_file() makes system calls */
		by_path = !by_id && (!strcmp(d->path, path) || !strcmp(base_name(d->path), base_name(path)) ||
				     same_file(d->path, path, &bb));
		if (!by_id && !by_path)
			continue;
		if (!by_id && d->build_id_len && bid_len) {
			if (d->samples) {
				mismatched++;
				collect_build_id_hex(d->build_id, d->build_id_len, rhex);
				rec_hex = rhex;
			}
			if (!force)
				continue;
		}
		d->binary = p->nr_bins;
		matched += d->samples;
	}
	if (mismatched && !matched && !force && !required) {
		pgo_warn("'%s' was rebuilt since the recording; its samples stay unresolved", path);
		return 0;
	}
	if (mismatched && !matched && !force)
		return pgo_error("'%s' was rebuilt since the recording (build-id %s, recorded %s); "
				 "record again, or use --force to convert anyway", path, hex,
				 rec_hex ? rec_hex : "?");
	if (mismatched && force)
		pgo_warn("'%s' does not match the recorded build-id; converting anyway (--force)", path);
	if (!matched && required == 1)
		return pgo_error("no samples in '%s' (the recording has none in this binary; check "
				 "-b and -i)", path);
	if (!matched && required > 1)
		pgo_warn("no samples in '%s'", path);
	return 0;
}

int convert_select_binaries(struct convert_profile *p, const struct convert_options *o)
{
	size_t i, best = SIZE_MAX;
	int required = !o->want_stacks;

	p->bins = pgo_calloc(o->nr_binaries ? o->nr_binaries : 1, sizeof(*p->bins));
	if (!p->bins)
		return -1;
	/* with several binaries, one without samples is a warning; all without, an error */
	for (i = 0; i < o->nr_binaries; i++)
		if (add_binary(p, o->binaries[i], o->force, o->nr_binaries > 1 ? 2 : 1) < 0)
			return -1;
	if (o->nr_binaries > 1) {
		uint64_t total = 0;

		for (i = 0; i < p->nr_dsos; i++)
			if (p->dsos[i].binary)
				total += p->dsos[i].samples;
		if (!total && required)
			return pgo_error("no samples in any of the %zu binaries (check -b and -i)",
					 o->nr_binaries);
	}
	if (o->nr_binaries)
		return 0;
	for (i = 0; i < p->nr_dsos; i++) {
		const struct convert_dso *d = &p->dsos[i];

		if (!d->samples || convert_is_special_path(d->path) || convert_is_shared_object(d->path))
			continue;
		if (best == SIZE_MAX || d->samples > p->dsos[best].samples)
			best = i;
	}
	if (best == SIZE_MAX) {
		if (!required)
			return 0;
		return pgo_error("no samples in a main executable; name the binary with -b");
	}
	pgo_debug(1, "binary: '%s', the executable with the most samples (%llu)", p->dsos[best].path,
		  (unsigned long long)p->dsos[best].samples);
	if (add_binary(p, p->dsos[best].path, o->force, required) < 0 && required) {
		pgo_info("'%s' was chosen as the executable with the most samples; name the binary "
			 "with -b", p->dsos[best].path);
		return -1;
	}
	return 0;
}

/* ADDR_KEY pairs whose both ends lie in one selected binary -> that binary's vaddr pairs. */
static int attribute_pairs(struct convert_profile *p, const struct pairmap *in, size_t which)
{
	size_t i;

	for (i = 0; i < in->nr; i++) {
		const struct pair_ent *e = &in->e[i];
		const struct convert_dso *da = &p->dsos[ADDR_KEY_DSO(e->a)];
		const struct convert_dso *db = &p->dsos[ADDR_KEY_DSO(e->b)];
		struct convert_binary *b;
		struct pairmap *out;
		uint64_t va, vb;

		if (!da->binary || da->binary != db->binary)
			continue;
		b = &p->bins[da->binary - 1];
		if (symbolize_symtab_offset_to_vaddr(b->st, ADDR_KEY_OFF(e->a), &va) < 0 ||
		    symbolize_symtab_offset_to_vaddr(b->st, ADDR_KEY_OFF(e->b), &vb) < 0)
			continue;
		out = which == 0 ? &b->branches : which == 1 ? &b->ranges : which == 2 ? &b->calls :
		      which == 3 ? &b->ucalls : which == 4 ? &b->leaf_calls : &b->leaf_ucalls;
		if (pairmap_add(out, va, vb, e->count) < 0)
			return -1;
	}
	return 0;
}

int convert_attribute_samples(struct convert_profile *p)
{
	size_t i;
	uint64_t user = 0;

	for (i = 0; p->addr_counts.slots && i <= p->addr_counts.mask; i++) {
		const struct convert_addr_count *s = &p->addr_counts.slots[i];
		const struct convert_dso *d;
		struct convert_binary *b;
		uint64_t vaddr, *v;

		if (!s->n)
			continue;
		user += s->n;
		d = &p->dsos[ADDR_KEY_DSO(s->key)];
		if (!d->binary)
			continue;
		b = &p->bins[d->binary - 1];
		if (symbolize_symtab_offset_to_vaddr(b->st, ADDR_KEY_OFF(s->key), &vaddr) < 0) {
			p->info.samples_unmapped += s->n;
			user -= s->n;
			continue;
		}
		if (pgo_u64map_get(&b->counts, vaddr, &v) < 0)
			return -1;
		*v += s->n;
		b->samples += s->n;
		p->info.samples_binary += s->n;
	}
	p->info.samples_other_dso = user - p->info.samples_binary;
	if (attribute_pairs(p, &p->branches, 0) < 0 || attribute_pairs(p, &p->ranges, 1) < 0 ||
	    attribute_pairs(p, &p->calls, 2) < 0 || attribute_pairs(p, &p->ucalls, 3) < 0 ||
	    attribute_pairs(p, &p->leaf_calls, 4) < 0 || attribute_pairs(p, &p->leaf_ucalls, 5) < 0)
		return -1;
	return 0;
}
