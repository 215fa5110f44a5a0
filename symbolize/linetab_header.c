// SPDX-License-Identifier: MIT
/*
 * A line program's header, directory and file tables (DWARF 5 section 6.2.4; DWARF 2-4's
 * forms too), and the sections they point into (symbolize/linetab_internal.h).
 */
#include <dwarf.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize/linetab.h"
#include "symbolize/linetab_internal.h"
#include "lib/alloc.h"
#include "lib/leb128.h"

static uint64_t rd_n(struct cur *c, size_t n)
{
	uint64_t v;

	if (c->bad || c->p > c->end || (size_t)(c->end - c->p) < n) {
		c->bad = 1;
		return 0;
	}
	v = pgo_le(c->p, (unsigned)n);
	c->p += n;
	return v;
}

static uint64_t rd_uleb(struct cur *c)
{
	const uint8_t *q;
	uint64_t v;

	if (c->bad || !(q = pgo_uleb128(c->p, c->end, &v))) {
		c->bad = 1;
		return 0;
	}
	c->p = q;
	return v;
}

static const char *rd_cstr(struct cur *c)
{
	const char *s = (const char *)c->p;
	const uint8_t *nul;

	if (c->bad || c->p >= c->end || !(nul = memchr(c->p, 0, c->end - c->p))) {
		c->bad = 1;
		return NULL;
	}
	c->p = nul + 1;
	return s;
}

static const char *str_at(const uint8_t *sec, size_t size, uint64_t off)
{
	if (!sec || off >= size || !memchr(sec + off, 0, size - off))
		return NULL;
	return (const char *)sec + off;
}

int symbolize_dwsecs_get(Dwarf *dwarf, struct symbolize_dwsecs *s)
{
	Elf *elf = dwarf_getelf(dwarf);
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	size_t shstrndx;

	memset(s, 0, sizeof(*s));
	/* relocatable files need relocations applied to their addresses, which libdw does */
	if (!elf || !gelf_getehdr(elf, &eh) || eh.e_type == ET_REL || eh.e_ident[EI_DATA] != ELFDATA2LSB ||
	    elf_getshdrstrndx(elf, &shstrndx) != 0)
		return -1;
	while ((scn = elf_nextscn(elf, scn))) {
		const uint8_t **ptr = NULL;
		size_t *size = NULL;
		GElf_Shdr sh;
		const char *name;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		if (!strcmp(name, ".debug_line"))
			ptr = &s->line, size = &s->line_size;
		else if (!strcmp(name, ".debug_line_str"))
			ptr = &s->line_str, size = &s->line_str_size;
		else if (!strcmp(name, ".debug_str"))
			ptr = &s->str, size = &s->str_size;
		else if (!strcmp(name, ".debug_info"))
			ptr = &s->info, size = &s->info_size;
		else if (!strcmp(name, ".debug_abbrev"))
			ptr = &s->abbrev, size = &s->abbrev_size;
		else if (!strcmp(name, ".debug_ranges"))
			ptr = &s->ranges, size = &s->ranges_size;
		else
			continue;
		/* libdw decompresses the sections it uses in place; anything else is not ours */
		if ((sh.sh_flags & SHF_COMPRESSED) || sh.sh_type == SHT_NOBITS)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf)
			continue;
		*ptr = d->d_buf;
		*size = d->d_size;
	}
	return s->line ? 0 : -1;
}

int symbolize_linetab_add_name(struct symbolize_linetab *t, const char *dir, const char *name)
{
	size_t dl = dir ? strlen(dir) : 0, nl = strlen(name), need = dl + 1 + nl + 1;

	if (PGO_ALLOC_GROW(t->name_off, t->nr_files + 1, t->alloc_files) < 0 ||
	    PGO_ALLOC_GROW(t->names, t->names_len + need, t->names_alloc) < 0)
		return -1;
	t->name_off[t->nr_files++] = (uint32_t)t->names_len;
	/* libdw: an absolute name as is, else the directory (if known) and the name */
	if (name[0] != '/' && dir) {
		memcpy(t->names + t->names_len, dir, dl);
		t->names_len += dl;
		t->names[t->names_len++] = '/';
	}
	memcpy(t->names + t->names_len, name, nl + 1);
	t->names_len += nl + 1;
	return 0;
}

enum { MAX_DIRS = 1 << 16 };

/* One DWARF 5 entry-format field: a path string or an unsigned number. */
static int v5_field(struct cur *c, const struct hdr *h, const struct symbolize_dwsecs *s,
		    unsigned form, const char **str, uint64_t *num)
{
	uint64_t off;

	*str = NULL;
	*num = 0;
	switch (form) {
	case DW_FORM_string:
		*str = rd_cstr(c);
		break;
	case DW_FORM_line_strp:
	case DW_FORM_strp:
		off = rd_n(c, h->offset_size);
		*str = form == DW_FORM_line_strp ? str_at(s->line_str, s->line_str_size, off)
						 : str_at(s->str, s->str_size, off);
		if (!*str)
			return -1;
		break;
	case DW_FORM_udata:
		*num = rd_uleb(c);
		break;
	case DW_FORM_data1:
		*num = rd_n(c, 1);
		break;
	case DW_FORM_data2:
		*num = rd_n(c, 2);
		break;
	case DW_FORM_data4:
		*num = rd_n(c, 4);
		break;
	case DW_FORM_data8:
		*num = rd_n(c, 8);
		break;
	case DW_FORM_data16:               /* an MD5: no number libdw would take */
		rd_n(c, 8);
		rd_n(c, 8);
		*num = UINT64_MAX;
		break;
	case DW_FORM_block:
		off = rd_uleb(c);
		if (c->bad || off > (uint64_t)(c->end - c->p))
			return -1;
		c->p += off;
		*num = UINT64_MAX;
		break;
	default:
		/* strx forms need the unit's .debug_str_offsets base; GNU/sup forms a dwz file */
		return -1;
	}
	return c->bad ? -1 : 0;
}

/* DWARF 5 directory and file tables; dirs receives the directory names. */
int symbolize_linetab_read_v5_tables(struct cur *c, const struct hdr *h, const struct symbolize_dwsecs *s,
			  struct symbolize_linetab *t, const char ***dirs)
{
	unsigned form[256], desc[256], nforms, i, m;
	uint64_t n, k;
	int pass;
	size_t ndirs = 0;

	*dirs = NULL;
	for (pass = 0; pass < 2; pass++) {
		int path = -1, dirix = -1;

		nforms = (unsigned)rd_n(c, 1);
		for (i = 0; i < nforms; i++) {
			desc[i] = (unsigned)rd_uleb(c);
			form[i] = (unsigned)rd_uleb(c);
			if (desc[i] == DW_LNCT_path)
				path = (int)i;
			else if (desc[i] == DW_LNCT_directory_index)
				dirix = (int)i;
		}
		n = rd_uleb(c);
		if (c->bad || (nforms == 0 && n) || (nforms && (path < 0 || (pass && dirix < 0))) ||
		    (nforms && n > (uint64_t)(c->end - c->p) / nforms) || (!pass && n > MAX_DIRS))
			return -1;
		if (!pass) {
			ndirs = (size_t)n;
			*dirs = pgo_calloc(ndirs + 1, sizeof(**dirs));
			if (!*dirs)
				return -1;
		}
		for (k = 0; k < n; k++) {
			const char *name = NULL;
			uint64_t dir = UINT64_MAX;

			for (m = 0; m < nforms; m++) {
				const char *sv;
				uint64_t nv;

				if (v5_field(c, h, s, form[m], &sv, &nv) < 0)
					return -1;
				if ((int)m == path)
					name = sv;
				else if ((int)m == dirix && !sv)
					dir = nv;
			}
			if (!name)
				return -1;
			if (!pass) {
				(*dirs)[k] = name;
				continue;
			}
			if (dir >= ndirs)
				return -1;
			/* entry 0 is the unit's primary file; libdw's table starts with it too */
			if (k == 0)
				t->nr_files = t->names_len = 0;
			if (symbolize_linetab_add_name(t, (*dirs)[dir], name) < 0)
				return -1;
		}
	}
	return 0;
}

/* DWARF 2-4: include_directories and file_names, directory 0 being comp_dir. */
int symbolize_linetab_read_v4_tables(struct cur *c, const char *comp_dir, struct symbolize_linetab *t)
{
	const char **dirs;
	size_t ndirs = 1, i;
	struct cur d = *c;
	int err = -1;

	while (!d.bad && d.p < d.end && *d.p) {
		rd_cstr(&d);
		ndirs++;
	}
	if (d.bad || d.p >= d.end || ndirs > MAX_DIRS)
		return -1;
	dirs = pgo_calloc(ndirs, sizeof(*dirs));
	if (!dirs)
		return -1;
	dirs[0] = comp_dir;
	for (i = 1; i < ndirs; i++)
		dirs[i] = rd_cstr(c);
	c->p++;                            /* the directory list's terminating NUL */
	if (c->p >= c->end)
		goto out;
	while (!c->bad && c->p < c->end && *c->p) {
		const char *name = rd_cstr(c);
		uint64_t dir = rd_uleb(c);

		rd_uleb(c);                /* modification time */
		rd_uleb(c);                /* length */
		if (c->bad || dir >= ndirs || symbolize_linetab_add_name(t, dirs[dir], name) < 0)
			goto out;
	}
	if (c->bad || c->p >= c->end)
		goto out;
	c->p++;
	err = 0;
out:
	free(dirs);
	return err;
}

int symbolize_linetab_read_header(struct cur *c, const uint8_t *sec_end, unsigned cu_addr_size, struct hdr *h)
{
	uint64_t len, hlen;
	const uint8_t *hstart;

	memset(h, 0, sizeof(*h));
	len = rd_n(c, 4);
	h->offset_size = 4;
	if (len == 0xffffffff) {
		len = rd_n(c, 8);
		h->offset_size = 8;
	}
	if (c->bad || len > (uint64_t)(sec_end - c->p))
		return -1;
	h->unit_end = c->p + len;
	c->end = h->unit_end;
	h->version = (unsigned)rd_n(c, 2);
	if (c->bad || h->version < 2 || h->version > 5)
		return -1;
	h->addr_size = cu_addr_size;
	if (h->version >= 5) {
		unsigned as = (unsigned)rd_n(c, 1), seg = (unsigned)rd_n(c, 1);

		if (as != cu_addr_size || seg != 0)
			return -1;
	}
	hlen = rd_n(c, h->offset_size);
	hstart = c->p;
	if (c->bad || hlen > (uint64_t)(h->unit_end - hstart))
		return -1;
	h->prog = hstart + hlen;
	h->min_inst_len = (unsigned)rd_n(c, 1);
	h->max_ops = h->version >= 4 ? (unsigned)rd_n(c, 1) : 1;
	h->default_is_stmt = (unsigned)rd_n(c, 1);
	h->line_base = (int8_t)rd_n(c, 1);
	h->line_range = (unsigned)rd_n(c, 1);
	h->opcode_base = (unsigned)rd_n(c, 1);
	if (c->bad || c->p > h->prog || !h->max_ops || !h->opcode_base ||
	    (size_t)(h->prog - c->p) < h->opcode_base - 1)
		return -1;
	h->std_len = c->p - 1;
	c->p += h->opcode_base - 1;
	/* libdw reads standard_opcode_lengths[4] for DW_LNE_set_discriminator, in any header */
	if ((size_t)(h->prog - (h->std_len + 1)) < 4)
		return -1;
	return 0;
}

/* The registers as the slow path of a row (emit) takes them. */
