// SPDX-License-Identifier: MIT
/*
 * Turn an x86-64 ELF file's call frame information into the off-CPU unwinder's rows.
 *
 * The CIEs and FDEs are parsed and their DW_CFA_* programs interpreted here, not through
 * libdw: libdw answers one address at a time (dwarf_cfi_addrframe), with no way to list
 * the rows of an FDE, and asking it for every instruction address of libc would take
 * seconds; the table also has to be built in collect/, below symbolize/ (libdw's floor).
 * tests/unit/collect-unwtab.c checks the rows against dwarf_cfi_addrframe.
 */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collect/unwtab.h"
#include "lib/alloc.h"
#include "lib/leb128.h"

/* DWARF register numbers (x86-64 psABI) */
#define REG_RBP 6
#define REG_RSP 7
#define REG_RA 16

#define MAX_SEGMENTS 16
#define MAX_REMEMBER 16

struct segment {
	uint64_t vaddr, memsz, offset, filesz;
};

struct section {
	const uint8_t *data;
	size_t size;
	uint64_t addr;           /* sh_addr: base of pc-relative pointers */
	int eh;                  /* .eh_frame (else .debug_frame) */
};

struct cie {
	uint64_t code_align;
	int64_t data_align;
	uint64_t ra_reg;
	uint8_t fde_enc;
	int has_aug_data;        /* 'z' */
	const uint8_t *insns, *insns_end;
	uint8_t addr_size;
};

struct fde {
	uint64_t start, end;     /* vaddrs */
	const uint8_t *insns, *insns_end;
	struct cie cie;
};

/* Register rule kinds */
enum { R_SAME, R_UNDEF, R_OFFSET, R_EXPR_RSP, R_OTHER };
/* CFA rule kinds */
enum { C_REG, C_PLT, C_SIGNAL, C_OTHER };

struct rule {
	uint8_t kind;
	int64_t off;
};

struct state {
	uint8_t cfa_kind;
	uint64_t cfa_reg;
	int64_t cfa_off;
	struct rule rbp, ra, rsp;
};

struct builder {
	struct collect_unwtab *t;
	struct section sec;
	struct segment seg[MAX_SEGMENTS];
	int nr_seg;
	struct fde *fdes;
	size_t nr_fdes, alloc_fdes;
};

static int fail(struct collect_unwtab *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct collect_unwtab *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t->why, sizeof(t->why), fmt, ap);
	va_end(ap);
	return -1;
}

static const uint8_t *read_u(const uint8_t *p, const uint8_t *end, int n, uint64_t *v)
{
	uint64_t x = 0;
	int i;

	if (!p || end - p < n)
		return NULL;
	for (i = 0; i < n; i++)
		x |= (uint64_t)p[i] << (8 * i);
	*v = x;
	return p + n;
}

/*
 * Read a pointer in encoding enc (DW_EH_PE_*) at p; `at` is the vaddr of p (for pcrel).
 * With absolute = 0 only the value's format counts (FDE pc ranges). NULL if the encoding
 * is one the unwinder has no base for, or the value runs past end.
 */
static const uint8_t *read_ptr(const struct builder *b, const uint8_t *p, const uint8_t *end,
			       uint8_t enc, int absolute, uint64_t *v)
{
	uint64_t at = b->sec.addr + (uint64_t)(p - b->sec.data), u = 0;
	int64_t s = 0;

	if (enc == 0xff)
		return NULL;
	switch (enc & 0x0f) {
	case 0x00: p = read_u(p, end, 8, &u); break;
	case 0x01: p = p ? pgo_uleb128(p, end, &u) : NULL; break;
	case 0x02: p = read_u(p, end, 2, &u); break;
	case 0x03: p = read_u(p, end, 4, &u); break;
	case 0x04: p = read_u(p, end, 8, &u); break;
	case 0x09: p = p ? pgo_sleb128(p, end, &s) : NULL; u = (uint64_t)s; break;
	case 0x0a: p = read_u(p, end, 2, &u); u = (uint64_t)(int64_t)(int16_t)u; break;
	case 0x0b: p = read_u(p, end, 4, &u); u = (uint64_t)(int64_t)(int32_t)u; break;
	case 0x0c: p = read_u(p, end, 8, &u); break;
	default: return NULL;
	}
	if (!p)
		return NULL;
	if (absolute) {
		if (enc & 0x80)  /* indirect: only personality pointers use it */
			return NULL;
		switch (enc & 0x70) {
		case 0x00: break;
		case 0x10: u += at; break;
		default: return NULL; /* textrel, datarel, funcrel, aligned: no base here */
		}
	}
	*v = u;
	return p;
}

/* Parse the CIE at section offset off. 0 or -1. */
static int parse_cie(const struct builder *b, uint64_t off, struct cie *c)
{
	const uint8_t *p, *end, *aug, *aug_end;
	uint64_t len, id, v;
	int is64 = 0;
	uint8_t version;

	memset(c, 0, sizeof(*c));
	c->addr_size = 8;
	if (off >= b->sec.size)
		return -1;
	p = b->sec.data + off;
	end = b->sec.data + b->sec.size;
	p = read_u(p, end, 4, &len);
	if (!p)
		return -1;
	if (len == 0xffffffff) {
		p = read_u(p, end, 8, &len);
		is64 = 1;
	}
	if (!p || len > (uint64_t)(end - p) || len < 4)
		return -1;
	end = p + len;
	p = read_u(p, end, is64 ? 8 : 4, &id);
	if (!p || id != (b->sec.eh ? 0 : (is64 ? ~0ULL : 0xffffffffULL)))
		return -1;
	if (p >= end)
		return -1;
	version = *p++;
	if (version != 1 && version != 3 && version != 4)
		return -1;
	aug = p;
	while (p < end && *p)
		p++;
	if (p >= end)
		return -1;
	p++;
	if (version == 4) {
		if (end - p < 2)
			return -1;
		c->addr_size = p[0];
		if (p[0] != 8 || p[1] != 0)
			return -1;
		p += 2;
	}
	if (!(p = pgo_uleb128(p, end, &c->code_align)) || !(p = pgo_sleb128(p, end, &c->data_align)))
		return -1;
	if (version == 1) {
		if (p >= end)
			return -1;
		c->ra_reg = *p++;
	} else if (!(p = pgo_uleb128(p, end, &c->ra_reg))) {
		return -1;
	}
	c->fde_enc = 0x00;  /* DW_EH_PE_absptr */
	aug_end = NULL;
	if (*aug == 'z') {
		if (!(p = pgo_uleb128(p, end, &v)) || v > (uint64_t)(end - p))
			return -1;
		c->has_aug_data = 1;
		aug_end = p + v;
		aug++;
	} else if (*aug) {
		return -1;  /* "eh" and other old augmentations */
	}
	for (; *aug; aug++) {
		switch (*aug) {
		case 'R':
			if (p >= aug_end)
				return -1;
			c->fde_enc = *p++;
			break;
		case 'L':
			if (p >= aug_end)
				return -1;
			p++;
			break;
		case 'P': {
			uint8_t enc;

			if (p >= aug_end)
				return -1;
			enc = *p++;
			if (!(p = read_ptr(b, p, aug_end, enc & 0x7f, 0, &v)))
				return -1;
			break;
		}
		case 'S':
		case 'B':
			break;
		default:
			return -1;
		}
	}
	if (aug_end)
		p = aug_end;
	c->insns = p;
	c->insns_end = end;
	return 0;
}

static int vaddr_to_offset(const struct builder *b, uint64_t start, uint64_t end, uint64_t *off)
{
	int i;

	for (i = 0; i < b->nr_seg; i++) {
		const struct segment *s = &b->seg[i];

		if (start >= s->vaddr && end <= s->vaddr + s->filesz && end >= start) {
			*off = start - s->vaddr + s->offset;
			return 0;
		}
	}
	return -1;
}

/* List the FDEs (first pass). -1 when the section's structure is broken. */
static int list_fdes(struct builder *b)
{
	const uint8_t *base = b->sec.data, *end = base + b->sec.size, *p = base, *rec, *rend;
	uint64_t len, id = 0, cie_off, last_cie = ~0ULL, start, range, aug;
	struct cie cie;
	int is64, cie_ok = 0;
	struct fde *f;

	while (end - p >= 4) {
		rec = p;
		p = read_u(p, end, 4, &len);
		is64 = 0;
		if (len == 0) {
			if (b->sec.eh)
				break;  /* the terminator */
			continue;
		}
		if (len == 0xffffffff) {
			if (!(p = read_u(p, end, 8, &len)))
				return fail(b->t, "truncated 64-bit length at offset %zu", (size_t)(rec - base));
			is64 = 1;
		}
		if (len > (uint64_t)(end - p) || len < 4)
			return fail(b->t, "record at offset %zu runs past the section", (size_t)(rec - base));
		rend = p + len;
		read_u(p, rend, is64 ? 8 : 4, &id);
		if (id == (b->sec.eh ? 0 : (is64 ? ~0ULL : 0xffffffffULL))) {
			p = rend;
			continue;  /* a CIE: parsed when an FDE names it */
		}
		cie_off = b->sec.eh ? (uint64_t)(p - base) - id : id;
		if (b->sec.eh && id > (uint64_t)(p - base))
			return fail(b->t, "FDE at offset %zu points before the section", (size_t)(rec - base));
		p += is64 ? 8 : 4;
		if (cie_off != last_cie) {
			last_cie = cie_off;
			cie_ok = !parse_cie(b, cie_off, &cie);
		}
		if (!cie_ok) {
			b->t->fdes_bad++;
			p = rend;
			continue;
		}
		p = read_ptr(b, p, rend, cie.fde_enc, 1, &start);
		p = p ? read_ptr(b, p, rend, cie.fde_enc & 0x0f, 0, &range) : NULL;
		if (p && cie.has_aug_data) {
			p = pgo_uleb128(p, rend, &aug);
			if (p && aug > (uint64_t)(rend - p))
				p = NULL;
			if (p)
				p += aug;
		}
		if (!p || start + range < start) {
			b->t->fdes_bad++;
			p = rend;
			continue;
		}
		if (range) {
			if (PGO_ALLOC_GROW(b->fdes, b->nr_fdes + 1, b->alloc_fdes))
				return fail(b->t, "out of memory");
			f = &b->fdes[b->nr_fdes++];
			f->start = start;
			f->end = start + range;
			f->insns = p;
			f->insns_end = rend;
			f->cie = cie;
		}
		p = rend;
	}
	return 0;
}

static int cmp_fde(const void *a, const void *b)
{
	const struct fde *x = a, *y = b;

	return (x->start > y->start) - (x->start < y->start);
}

/* The row for a state; *unsupported set when it is OFFCPU_CFA_UNSUPPORTED. */
static struct offcpu_unwind_row make_row(const struct state *st, uint32_t pc)
{
	struct offcpu_unwind_row r = { .pc = pc };
	uint8_t cfa = OFFCPU_CFA_UNSUPPORTED, rbp = OFFCPU_RBP_LOST;

	if (st->ra.kind == R_UNDEF) {
		cfa = OFFCPU_CFA_END;
		rbp = OFFCPU_RBP_SAME;
	} else if (st->cfa_kind == C_SIGNAL) {
		if (st->ra.kind == R_EXPR_RSP && st->ra.off == OFFCPU_SIGFRAME_RIP &&
		    (st->rsp.kind == R_SAME ||
		     (st->rsp.kind == R_EXPR_RSP && st->rsp.off == OFFCPU_SIGFRAME_RSP)) &&
		    st->rbp.kind == R_EXPR_RSP && st->rbp.off == OFFCPU_SIGFRAME_RBP) {
			cfa = OFFCPU_CFA_SIGNAL;
			rbp = OFFCPU_RBP_SAME;
		}
	} else if (st->ra.kind == R_OFFSET && st->ra.off == -8 && st->rsp.kind == R_SAME) {
		if (st->rbp.kind == R_SAME)
			rbp = OFFCPU_RBP_SAME;
		else if (st->rbp.kind == R_OFFSET && !(st->rbp.off & 7) && st->rbp.off / 8 >= -128 &&
			 st->rbp.off / 8 <= 127) {
			rbp = OFFCPU_RBP_SAVED;
			r.rbp_off = (int8_t)(st->rbp.off / 8);
		}
		if (st->cfa_kind == C_PLT) {
			cfa = OFFCPU_CFA_PLT;
			r.cfa_off = 8;
			r.rbp_off = (int8_t)st->cfa_off;  /* the threshold */
			rbp = OFFCPU_RBP_SAME;
		} else if (st->cfa_kind == C_REG && st->cfa_off >= 8 && st->cfa_off <= 0xffff &&
			   (st->cfa_reg == REG_RSP || st->cfa_reg == REG_RBP)) {
			cfa = st->cfa_reg == REG_RSP ? OFFCPU_CFA_RSP : OFFCPU_CFA_RBP;
			r.cfa_off = (uint16_t)st->cfa_off;
		}
	}
	if (cfa == OFFCPU_CFA_UNSUPPORTED) {
		r.cfa_off = 0;
		r.rbp_off = 0;
		rbp = OFFCPU_RBP_SAME;
	}
	r.kind = OFFCPU_ROW_KIND(cfa, rbp);
	return r;
}

static int same_rule(const struct offcpu_unwind_row *a, const struct offcpu_unwind_row *b)
{
	return a->kind == b->kind && a->cfa_off == b->cfa_off && a->rbp_off == b->rbp_off;
}

/* Append a row at pc, replacing the last one if it is at the same pc. */
static int push_row(struct collect_unwtab *t, struct offcpu_unwind_row r, size_t fde_first)
{
	if (t->nr > fde_first && t->rows[t->nr - 1].pc == r.pc) {
		t->rows[t->nr - 1] = r;
		return 0;
	}
	if (PGO_ALLOC_GROW_UNINIT(t->rows, t->nr + 1, t->alloc))
		return -1;
	t->rows[t->nr++] = r;
	return 0;
}

/*
 * Recognize the DW_CFA_def_cfa_expression of a .plt section (binutils ld's
 * elf_x86_64_eh_frame_plt): rsp + 8 + ((rip & 15) >= K) << 3. Returns K or -1.
 */
static int plt_expr(const uint8_t *e, uint64_t n)
{
	static const uint8_t head[] = { 0x77, 0x08, 0x80, 0x00, 0x3f, 0x1a };
	static const uint8_t tail[] = { 0x2a, 0x33, 0x24, 0x22 };

	if (n != sizeof(head) + 1 + sizeof(tail) || memcmp(e, head, sizeof(head)) ||
	    memcmp(e + sizeof(head) + 1, tail, sizeof(tail)))
		return -1;
	if (e[sizeof(head)] < 0x30 || e[sizeof(head)] > 0x4f)  /* DW_OP_lit0..31 */
		return -1;
	return e[sizeof(head)] - 0x30;
}

/* DW_OP_breg7 (rsp) N, optionally followed by DW_OP_deref: 0 and *off, or -1. */
static int rsp_expr(const uint8_t *e, uint64_t n, int deref, int64_t *off)
{
	const uint8_t *p;

	if (n < 2 || e[0] != 0x77)
		return -1;
	p = pgo_sleb128(e + 1, e + n, off);
	if (!p)
		return -1;
	if (deref)
		return p + 1 == e + n && *p == 0x06 ? 0 : -1;
	return p == e + n ? 0 : -1;
}

static void set_reg(struct state *st, uint64_t reg, uint8_t kind, int64_t off)
{
	struct rule r = { kind, off };

	if (reg == REG_RBP)
		st->rbp = r;
	else if (reg == REG_RA)
		st->ra = r;
	else if (reg == REG_RSP)
		st->rsp = r;  /* the caller's rsp is the CFA unless a rule says otherwise */
}

/*
 * Run a CFA program from `pc` (fde != NULL: emitting rows up to fde->end), on st.
 * Returns 0, or 1 when an instruction is not understood (the state becomes unsupported
 * from there on), or -1 when out of memory. Over 100 lines: one switch over the DW_CFA
 * opcodes, each case a few lines, reads best as one (as in the DWARF spec's table).
 */
static int run_cfa(struct builder *b, const struct cie *c, const uint8_t *p, const uint8_t *end,
		   struct state *st, const struct state *init, const struct fde *fde, uint64_t base_off,
		   size_t fde_first)
{
	struct state stack[MAX_REMEMBER];
	int depth = 0, bad = 0;
	uint64_t loc = fde ? fde->start : 0, reg, u, delta;
	int64_t s, k;

	while (p && p < end && !bad) {
		uint8_t op = *p++, hi = op & 0xc0, lo = op & 0x3f;

		delta = ~0ULL;
		if (hi == 0x40) {
			delta = lo * c->code_align;
		} else if (hi == 0x80) {
			if (!(p = pgo_uleb128(p, end, &u)))
				break;
			set_reg(st, lo, R_OFFSET, (int64_t)u * c->data_align);
		} else if (hi == 0xc0) {
			if (!init)
				bad = 1;
			else if (lo == REG_RBP)
				st->rbp = init->rbp;
			else if (lo == REG_RA)
				st->ra = init->ra;
		} else {
			switch (op) {
			case 0x00: break;
			case 0x01:  /* set_loc */
				if (!(p = read_ptr(b, p, end, c->fde_enc, 1, &u)) || !fde || u < loc)
					bad = 1;
				else
					delta = u - loc;
				break;
			case 0x02: if ((p = read_u(p, end, 1, &u))) delta = u * c->code_align; break;
			case 0x03: if ((p = read_u(p, end, 2, &u))) delta = u * c->code_align; break;
			case 0x04: if ((p = read_u(p, end, 4, &u))) delta = u * c->code_align; break;
			case 0x05:  /* offset_extended */
				if ((p = pgo_uleb128(p, end, &reg)) && (p = pgo_uleb128(p, end, &u)))
					set_reg(st, reg, R_OFFSET, (int64_t)u * c->data_align);
				break;
			case 0x06:  /* restore_extended */
				if ((p = pgo_uleb128(p, end, &reg))) {
					if (!init)
						bad = 1;
					else if (reg == REG_RBP)
						st->rbp = init->rbp;
					else if (reg == REG_RA)
						st->ra = init->ra;
				}
				break;
			case 0x07:  /* undefined */
				if ((p = pgo_uleb128(p, end, &reg)))
					set_reg(st, reg, R_UNDEF, 0);
				break;
			case 0x08:  /* same_value */
				if ((p = pgo_uleb128(p, end, &reg)))
					set_reg(st, reg, R_SAME, 0);
				break;
			case 0x09:  /* register */
				if ((p = pgo_uleb128(p, end, &reg)) && (p = pgo_uleb128(p, end, &u)))
					set_reg(st, reg, R_OTHER, 0);
				break;
			case 0x0a:  /* remember_state */
				if (depth >= MAX_REMEMBER)
					bad = 1;
				else
					stack[depth++] = *st;
				break;
			case 0x0b:  /* restore_state: the CFA is restored too (as libdw and gdb do) */
				if (!depth)
					bad = 1;
				else
					*st = stack[--depth];
				break;
			case 0x0c:  /* def_cfa */
				if ((p = pgo_uleb128(p, end, &reg)) && (p = pgo_uleb128(p, end, &u))) {
					st->cfa_kind = C_REG;
					st->cfa_reg = reg;
					st->cfa_off = (int64_t)u;
				}
				break;
			case 0x0d:  /* def_cfa_register */
				if ((p = pgo_uleb128(p, end, &reg))) {
					if (st->cfa_kind != C_REG)
						st->cfa_kind = C_OTHER;
					st->cfa_reg = reg;
				}
				break;
			case 0x0e:  /* def_cfa_offset */
				if ((p = pgo_uleb128(p, end, &u))) {
					if (st->cfa_kind != C_REG)
						st->cfa_kind = C_OTHER;
					st->cfa_off = (int64_t)u;
				}
				break;
			case 0x0f:  /* def_cfa_expression */
				if (!(p = pgo_uleb128(p, end, &u)) || u > (uint64_t)(end - p)) {
					p = NULL;
					break;
				}
				if ((k = plt_expr(p, u)) >= 0) {
					st->cfa_kind = C_PLT;
					st->cfa_off = k;
				} else if (!rsp_expr(p, u, 1, &s) && s == OFFCPU_SIGFRAME_RSP) {
					st->cfa_kind = C_SIGNAL;
				} else {
					st->cfa_kind = C_OTHER;
				}
				p += u;
				break;
			case 0x10:  /* expression */
				if (!(p = pgo_uleb128(p, end, &reg)) || !(p = pgo_uleb128(p, end, &u)) ||
				    u > (uint64_t)(end - p)) {
					p = NULL;
					break;
				}
				if (!rsp_expr(p, u, 0, &s))
					set_reg(st, reg, R_EXPR_RSP, s);
				else
					set_reg(st, reg, R_OTHER, 0);
				p += u;
				break;
			case 0x11:  /* offset_extended_sf */
				if ((p = pgo_uleb128(p, end, &reg)) && (p = pgo_sleb128(p, end, &s)))
					set_reg(st, reg, R_OFFSET, s * c->data_align);
				break;
			case 0x12:  /* def_cfa_sf */
				if ((p = pgo_uleb128(p, end, &reg)) && (p = pgo_sleb128(p, end, &s))) {
					st->cfa_kind = C_REG;
					st->cfa_reg = reg;
					st->cfa_off = s * c->data_align;
				}
				break;
			case 0x13:  /* def_cfa_offset_sf */
				if ((p = pgo_sleb128(p, end, &s))) {
					if (st->cfa_kind != C_REG)
						st->cfa_kind = C_OTHER;
					st->cfa_off = s * c->data_align;
				}
				break;
			case 0x14:  /* val_offset */
				if ((p = pgo_uleb128(p, end, &reg)) && (p = pgo_uleb128(p, end, &u)))
					set_reg(st, reg, R_OTHER, 0);
				break;
			case 0x15:  /* val_offset_sf */
				if ((p = pgo_uleb128(p, end, &reg)) && (p = pgo_sleb128(p, end, &s)))
					set_reg(st, reg, R_OTHER, 0);
				break;
			case 0x16:  /* val_expression */
				if (!(p = pgo_uleb128(p, end, &reg)) || !(p = pgo_uleb128(p, end, &u)) ||
				    u > (uint64_t)(end - p)) {
					p = NULL;
					break;
				}
				set_reg(st, reg, R_OTHER, 0);
				p += u;
				break;
			case 0x2e:  /* GNU_args_size */
				p = pgo_uleb128(p, end, &u);
				break;
			case 0x2f:  /* GNU_negative_offset_extended */
				if ((p = pgo_uleb128(p, end, &reg)) && (p = pgo_uleb128(p, end, &u)))
					set_reg(st, reg, R_OFFSET, -(int64_t)u * c->data_align);
				break;
			default:
				bad = 1;
			}
		}
		if (delta != ~0ULL && fde) {
			if (push_row(b->t, make_row(st, (uint32_t)(loc - fde->start + base_off)), fde_first))
				return -1;
			if (delta >= fde->end - loc)
				return 0;  /* the rest applies past the FDE */
			loc += delta;
		}
	}
	if (!p)
		bad = 1;
	if (bad)
		st->cfa_kind = C_OTHER;
	if (fde && push_row(b->t, make_row(st, (uint32_t)(loc - fde->start + base_off)), fde_first))
		return -1;
	return bad;
}

static int build_rows(struct builder *b)
{
	struct collect_unwtab *t = b->t;
	struct state st, init;
	uint64_t off, next_start;
	size_t i, j, first;
	int r;

	qsort(b->fdes, b->nr_fdes, sizeof(*b->fdes), cmp_fde);
	for (i = 0; i < b->nr_fdes; i++) {
		const struct fde *f = &b->fdes[i];
		uint64_t end = f->end;

		/* rows hold 32-bit offsets: the whole FDE must fit (off itself may have wrapped) */
		if (vaddr_to_offset(b, f->start, f->end, &off) || off > UINT32_MAX ||
		    f->end - f->start > UINT32_MAX - off) {
			t->fdes_bad++;
			continue;
		}
		/* an FDE overlapping the previous one's start is left out; a later one clips it */
		if (t->nr && off < t->rows[t->nr - 1].pc) {
			t->fdes_bad++;
			continue;
		}
		next_start = i + 1 < b->nr_fdes ? b->fdes[i + 1].start : ~0ULL;
		memset(&st, 0, sizeof(st));
		st.cfa_kind = C_OTHER;
		st.ra.kind = R_OTHER;
		r = run_cfa(b, &f->cie, f->cie.insns, f->cie.insns_end, &st, NULL, NULL, 0, 0);
		if (r < 0)
			return fail(t, "out of memory");
		init = st;
		first = t->nr;
		/* a gap row of the previous FDE at this very pc is replaced */
		if (first && t->rows[first - 1].pc == off)
			first = --t->nr;
		r = run_cfa(b, &f->cie, f->insns, f->insns_end, &st, &init, f, off, first);
		if (r < 0)
			return fail(t, "out of memory");
		t->fdes++;
		for (j = first; j < t->nr; j++)
			if (OFFCPU_ROW_CFA(t->rows[j].kind) == OFFCPU_CFA_UNSUPPORTED) {
				t->fdes_unsupported++;
				break;
			}
		if (next_start < end) {
			/* overlap: the next FDE takes over at its start */
			while (t->nr > first + 1 && t->rows[t->nr - 1].pc >= off + (next_start - f->start))
				t->nr--;
			continue;
		}
		if (next_start > end) {
			struct offcpu_unwind_row gap = { .pc = (uint32_t)(off + (end - f->start)) };

			if (PGO_ALLOC_GROW_UNINIT(t->rows, t->nr + 1, t->alloc))
				return fail(t, "out of memory");
			t->rows[t->nr++] = gap;
		}
	}
	/* merge runs of equal rules */
	for (i = j = 0; i < t->nr; i++) {
		if (j && same_rule(&t->rows[j - 1], &t->rows[i]))
			continue;
		if (j && t->rows[j - 1].pc >= t->rows[i].pc) {
			t->rows[j - 1] = t->rows[i];
			continue;
		}
		t->rows[j++] = t->rows[i];
	}
	t->nr = j;
	return 0;
}

static int build_elf(Elf *elf, struct collect_unwtab *t)
{
	struct builder b = { .t = t };
	Elf_Scn *scn = NULL, *eh = NULL, *dbg = NULL;
	GElf_Ehdr ehdr;
	GElf_Shdr sh;
	GElf_Phdr ph;
	size_t shstrndx, nph, i;
	Elf_Data *d;
	int err;

	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &ehdr))
		return fail(t, "not an ELF file");
	if (gelf_getclass(elf) != ELFCLASS64 || ehdr.e_machine != EM_X86_64)
		return fail(t, "not an x86-64 ELF file");
	if (elf_getphdrnum(elf, &nph) || elf_getshdrstrndx(elf, &shstrndx))
		return fail(t, "no program headers");
	for (i = 0; i < nph; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (b.nr_seg < MAX_SEGMENTS)
			b.seg[b.nr_seg++] = (struct segment){ ph.p_vaddr, ph.p_memsz, ph.p_offset, ph.p_filesz };
	}
	if (!b.nr_seg)
		return fail(t, "no PT_LOAD segment");
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name)
			continue;
		if (!strcmp(name, ".eh_frame"))
			eh = scn;
		else if (!strcmp(name, ".debug_frame"))
			dbg = scn;
	}
	scn = eh ? eh : dbg;
	if (!scn)
		return fail(t, "no .eh_frame or .debug_frame");
	t->section = eh ? ".eh_frame" : ".debug_frame";
	if (!gelf_getshdr(scn, &sh))
		return fail(t, "unreadable %s header", t->section);
	if ((sh.sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0)
		return fail(t, "cannot decompress %s", t->section);
	d = elf_getdata(scn, NULL);
	if (!d || !d->d_buf)
		return fail(t, "%s has no data", t->section);
	b.sec.data = d->d_buf;
	b.sec.size = d->d_size;
	b.sec.addr = sh.sh_addr;
	b.sec.eh = !!eh;
	err = list_fdes(&b);
	if (!err)
		err = build_rows(&b);
	free(b.fdes);
	return err;
}

int collect_unwtab_build_mem(const void *image, size_t size, struct collect_unwtab *t)
{
	Elf *elf;
	int err;

	*t = (struct collect_unwtab)COLLECT_UNWTAB_INIT;
	elf_version(EV_CURRENT);
	/* libelf writes into the image when it decompresses a section: give it a copy */
	elf = elf_memory((char *)image, size);
	err = build_elf(elf, t);
	elf_end(elf);
	if (err) {
		PGO_ZFREE(&t->rows);
		t->nr = t->alloc = 0;
	}
	return err;
}

int collect_unwtab_build(const char *path, struct collect_unwtab *t)
{
	Elf *elf;
	int fd, err;

	*t = (struct collect_unwtab)COLLECT_UNWTAB_INIT;
	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fail(t, "cannot open the file");
	elf = elf_begin(fd, ELF_C_READ_MMAP_PRIVATE, NULL);
	err = build_elf(elf, t);
	elf_end(elf);
	close(fd);
	if (err) {
		PGO_ZFREE(&t->rows);
		t->nr = t->alloc = 0;
	}
	return err;
}

void collect_unwtab_release(struct collect_unwtab *t)
{
	PGO_ZFREE(&t->rows);
	t->nr = t->alloc = 0;
}

const struct offcpu_unwind_row *collect_unwtab_find(const struct collect_unwtab *t, uint64_t off)
{
	size_t lo = 0, hi = t->nr;

	if (!t->nr || off < t->rows[0].pc)
		return NULL;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->rows[mid].pc <= off)
			lo = mid;
		else
			hi = mid;
	}
	return &t->rows[lo];
}
