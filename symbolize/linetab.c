// SPDX-License-Identifier: MIT
/*
 * .debug_line programs decoded into one array per unit (symbolize/linetab.h). The decoding
 * follows the DWARF 5 standard (section 6.2) and, where the standard leaves room or a
 * file is malformed, what libdw 0.188 does: this reader either gives libdw's rows or fails.
 * This file runs the line program; linetab_header.c reads what precedes it, linetab_rows.c
 * orders the rows and looks them up.
 */
#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize/linetab.h"
#include "symbolize/linetab_internal.h"
#include "lib/alloc.h"
#include "lib/leb128.h"

struct state {
	uint64_t base;                /* the unit's first row's address, once based */
	int based;
	uint64_t addr;
	unsigned file, wide, wide_col; /* wide, wide_col: a field past what libdw 0.188 keeps */
	int64_t line;
	uint64_t discr;
	uint64_t bad;                 /* non-zero once a row libdw calls invalid was made */
};

/* Room for n rows, at most UINT32_MAX (not zeroed: each row is written before it is read). */
static int reserve_rows(struct symbolize_linetab *t, size_t n)
{
	struct symbolize_line *r;

	if (n > UINT32_MAX)
		n = UINT32_MAX;
	if (n <= t->alloc_rows || !(r = realloc(t->rows, n * sizeof(*r))))
		return -1;
	t->rows = r;
	t->alloc_rows = n;
	return 0;
}

/* The sequence being read ends at the last row: add it to t->seqs. */
static int end_seqs(struct symbolize_linetab *t)
{
	struct symbolize_lineseq *q;

	if (PGO_ALLOC_GROW(t->seqs, t->nr_seqs + 1, t->alloc_seqs) < 0)
		return -1;
	q = &t->seqs[t->nr_seqs++];
	q->start = t->seq_start;
	q->n = t->nr_rows - t->seq_start;
	t->seq_start = t->nr_rows;
	return 0;
}

/* Append a row. Fields are written one by one: a row built in a temporary by narrow stores
 * and then copied whole makes the copy wait for them (no store forwarding). */
static inline int store(struct symbolize_linetab *t, const struct symbolize_lineval *v, int end_seq)
{
	struct symbolize_line *r;

	if (t->nr_rows == t->alloc_rows &&
	    reserve_rows(t, t->alloc_rows ? 2 * t->alloc_rows : 1024) < 0)
		return -1;
	r = &t->rows[t->nr_rows];
	if (t->nr_rows && (r[-1].off > v->off || (r[-1].off == v->off && end_seq && !r[-1].end_seq))) {
		t->out_of_order = 1;
		t->backwards |= r[-1].off > v->off && !r[-1].end_seq;
	}
	r->off = v->off;
	r->line = v->line;
	r->file = v->file;
	r->discr = v->discr;
	r->end_seq = (uint32_t)end_seq;
	t->nr_rows++;
	/* every end passes here: the sequences as read, for symbolize_linetab_sort_rows() */
	return end_seq ? end_seqs(t) : 0;
}

size_t convert_linerange_above(const struct symbolize_linerange *r, size_t from, size_t n, uint64_t addr)
{
	size_t lo = from, hi = n;

	if (lo < hi && r[lo].hi > addr)     /* from itself while addresses only grow */
		return lo;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r[mid].hi > addr)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/*
 * A partial table's row (symbolize_linetab_read): the row held before it is kept if an
 * address of a range lies in [held, max(addr, held + 1)), where it is the row libdw finds;
 * the row itself is held until the next one. Sequence ends are all kept (one a section).
 */
static int keep_row(struct symbolize_linetab *t, const struct symbolize_lineval *v, int end_seq, uint64_t addr)
{
	struct symbolize_linekeep *k = &t->keep;

	if (k->have_held) {
		uint64_t to = addr > k->held_addr ? addr : k->held_addr + 1;

		if (addr < k->held_addr) {
			k->failed = 1;             /* backwards inside a sequence */
			return 0;
		}
		k->k = convert_linerange_above(k->r, k->k, k->n, k->held_addr);
		/* a row where its sequence ends sorts after the end: it reaches the next row of all */
		if (((k->k < k->n && k->r[k->k].lo < to) || (end_seq && addr == k->held_addr)) &&
		    store(t, &k->held, 0) < 0)
			return -1;
	} else {
		k->k = convert_linerange_above(k->r, 0, k->n, addr);
	}
	if (end_seq) {
		/* every end: with sequences that overlap, an end may be what libdw finds */
		k->have_held = 0;
		return store(t, v, 1);
	}
	k->held = *v;
	k->held_addr = addr;
	k->have_held = 1;
	k->k = convert_linerange_above(k->r, k->k, k->n, addr);
	k->next_lo = k->k < k->n ? k->r[k->k].lo : UINT64_MAX;
	k->cur_hi = k->k < k->n ? k->r[k->k].hi : 0;
	return 0;
}

/*
 * Non-zero unless a row at addr has an offset from base that fits int32 and has the sign
 * of addr - base, not wrapping around 0 (offsets order as addresses do).
 */
static inline uint64_t addr_bad(uint64_t addr, uint64_t base)
{
	uint64_t d = addr - base;

	return (d + 0x80000000ULL) >> 32 | (uint64_t)((addr >= base) ^ ((int64_t)d >= 0));
}

/* Append a row; -1 where libdw 0.188 calls the data invalid (its fields are narrower). */
static __attribute__((noinline)) int emit(struct symbolize_linetab *t, struct state *st, int end_seq)
{
	struct symbolize_lineval v;
	struct symbolize_lineval *h = &t->keep.held;
	uint64_t d;

	if (!st->based) {
		st->base = st->addr;
		st->based = 1;
	}
	/* the line fits int32; checked without a branch, the unit fails at its end */
	d = st->addr - st->base;
	st->bad |= addr_bad(st->addr, st->base) | ((uint64_t)st->line + 0x80000000ULL) >> 32 |
		   st->wide | st->wide_col | st->discr >> 24;
	if (t->keep.r && t->keep.have_held && !end_seq && st->addr >= t->keep.held_addr) {
		/* most rows: the next range starts past this one, so the row held before is dropped */
		int fast = st->addr < t->keep.next_lo;

		/* inside a range, up to its end: the row held before is kept */
		if (!fast && t->keep.held_addr >= t->keep.next_lo && st->addr < t->keep.cur_hi) {
			if (store(t, h, 0) < 0)
				return -1;
			fast = 1;
		}
		if (fast) {
			h->off = (int32_t)(uint32_t)d;
			h->line = (int32_t)st->line;
			h->file = st->file;
			h->discr = (uint32_t)st->discr;
			t->keep.held_addr = st->addr;
			return 0;
		}
	}
	v.off = (int32_t)(uint32_t)d;
	v.line = (int32_t)st->line;
	v.file = st->file;
	v.discr = (uint32_t)st->discr;
	return t->keep.r ? keep_row(t, &v, end_seq, st->addr) : store(t, &v, end_seq);
}

/* Operands of standard opcode op as DWARF defines them (libdw reads them so). */
static unsigned std_operands(unsigned op)
{
	return op == DW_LNS_copy || op == DW_LNS_negate_stmt || op == DW_LNS_set_basic_block ||
	       op == DW_LNS_const_add_pc || op == DW_LNS_set_prologue_end ||
	       op == DW_LNS_set_epilogue_begin ? 0 : 1;
}

/* Read a ULEB128 operand into dst, or fail the unit (run_ops's cursor p, end). */
#define OPERAND(dst)                                                         \
	do {                                                                  \
		if (p < end && !(*p & 0x80)) {                                \
			(dst) = *p++;                                         \
		} else {                                                      \
			uint64_t v_;                                          \
									      \
			if (!(p = pgo_uleb128(p, end, &v_)))                    \
				return -1;                                    \
			(dst) = v_;                                           \
		}                                                             \
	} while (0)

/* n bytes, little-endian, into dst, or fail the unit */
#define FIXED(dst, n)                                                        \
	do {                                                                  \
		if ((size_t)(end - p) < (n))                                  \
			return -1;                                            \
		(dst) = pgo_le(p, (n));                                       \
		p += (n);                                                     \
	} while (0)

/* 4 bytes, little-endian, in one load where the host is little-endian too */
static inline uint32_t le32(const uint8_t *p)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
#else
	return (uint32_t)pgo_le(p, 4);
#endif
}

/*
 * The short forms of the commonest operands, read in place; 0 leaves *pp as it was for the
 * general case. set_column's one-byte operand (rows keep no column: only whether it is
 * wider than libdw's matters, and one byte is not).
 */
static inline __attribute__((always_inline)) int column_short(const uint8_t **pp, const uint8_t *end)
{
	if (*pp < end && !(**pp & 0x80)) {
		(*pp)++;
		return 1;
	}
	return 0;
}

/*
 * advance_line's operand of up to 4 bytes (sqlite3's: 30% one, 28% two, 42% more) added to
 * *lineb, without a branch on how many: the operand's end, or NULL for the general case.
 */
static inline __attribute__((always_inline)) const uint8_t *line_short(const uint8_t *p, const uint8_t *end,
								      uint64_t *lineb)
{
	uint32_t w, m;

	if ((size_t)(end - p) < 4)
		return NULL;
	w = le32(p);
	m = ~w & 0x80808080u;
	if (m) {
		unsigned n = (unsigned)__builtin_ctz(m) / 8 + 1, sh = 64 - 7 * n;
		uint64_t v = (w & 0x7f) | (w >> 1 & 0x3f80) | (w >> 2 & 0x1fc000) | (w >> 3 & 0xfe00000);

		*lineb += (uint64_t)(int64_t)(int32_t)((int64_t)(v << sh) >> sh);
		return p + n;
	}
	return NULL;
}

/* Opcode classes of run_ops's dispatch: a standard opcode with DWARF's operand count is its own */
enum { OP_EXT = 0, OP_SPECIAL = DW_LNS_set_isa + 1, OP_FAIL, OP_SKIP };

/*
 * The line program (DWARF 5 section 6.2.5), opcode by opcode, into a partial table (keep)
 * or a whole one. sqlite3's one unit is 768 KB of opcodes, 500k of them for 208k rows
 * (150k special opcodes, 147k set_column, 90k negate_stmt, 58k copy, 43k advance_line),
 * run whole for any lookup in it. Its time goes to mispredicted branches on the opcode
 * more than to instructions: the registers stay in locals, the common opcodes are tested
 * first, one by one (on sqlite3's unit, jump tables are slower: one for all opcodes takes
 * 35% longer, one per opcode 19%; so is telling set_column from negate_stmt without a
 * branch, 27%: the cursor then waits for each opcode's load), and most rows take a fast
 * path of a few instructions instead of emit(), which checks everything and keeps rows.
 *
 * The fast path (fast: an instruction has one operation, as on every target but VLIW
 * ones, there is a line_range and the standard opcodes have DWARF's operand counts) takes
 * a row that is not below the row before it (as uint64) while no register is past
 * libdw's width (wide, wide_col, a discriminator past 24 bits: where one becomes so, lim
 * and cap go to 0 until emit() has seen a row). It checks less than emit(): the line
 * (lineb, the line plus 2^31, fits 32 bits where the line fits int32: acc collects them),
 * and the address of the last row of a run of fast rows once the run ends; the row before
 * the run went through emit(), and a run only goes up from it. A partial table drops its
 * held row or keeps it (inside a range, up to its end) as emit() does; a whole one appends
 * the row. The unit is ours or libdw's exactly as with emit() alone.
 *
 * A standard opcode whose operand count in the header is not DWARF's makes the unit
 * libdw's, as a line_range of 0 does once a special opcode needs it. A special opcode's
 * line and address steps come from a table made once.
 *
 * Long by design: one state machine whose loops (every opcode; a partial table's rows
 * below the next range, l_skip; rows inside a range, l_keep) jump into one another with
 * the registers in locals. Its labels are written out, each loop's dispatch a macro
 * naming them; the operands' short forms are the inline helpers above.
 */
static inline __attribute__((always_inline)) int run_ops(const struct hdr *h, struct symbolize_linetab *t,
							 const int fast, const int keep)
{
	uint64_t dline[256], daddr[256];
	/* const_add_pc's step; in l_skip, the held row's line + 2^31 */
	uint64_t const_add = 0, hlb = 0;
	uint8_t cls[256];
	const uint8_t *p = h->prog, *end = h->unit_end, *op_end;
	unsigned op, special = h->line_range ? h->opcode_base : 256;
	uint64_t addr, lineb, discr, base = t->base, bad = 0, acc = 0, u;
	unsigned file, column, isa, is_stmt, op_index, wide, wide_col;
	int based = t->based;
	/* a partial table's held row's address (none: UINT64_MAX; the rest of it is in
	 * t->keep.held but its offset), the ranges' next start and end */
	uint64_t held_addr = UINT64_MAX, next_lo = 0, cur_hi = 0;
	/* the fast path: rows below lim (partial), tables below cap rows; a whole table's last row */
	uint64_t lim = 0, prev = 0;
	size_t cap = 0;
	struct state st;

	for (op = 0; op < 256; op++) {
		if (op >= h->opcode_base)
			cls[op] = h->line_range ? OP_SPECIAL : OP_FAIL;
		else if (op == 0)
			cls[op] = OP_EXT;
		else if (op > DW_LNS_set_isa)
			cls[op] = OP_SKIP;
		else
			cls[op] = h->std_len[op] == std_operands(op) ? (uint8_t)op : OP_FAIL;
	}
	if (h->line_range) {
		/* (op - opcode_base) % and / line_range, counted: a unit's tables without a division */
		unsigned q = 0, r = 0;

		const_add = (uint64_t)h->min_inst_len * ((255 - h->opcode_base) / h->line_range);

		for (op = h->opcode_base; op < 256; op++) {
			dline[op] = (uint64_t)(int64_t)(h->line_base + (int)r);
			daddr[op] = h->min_inst_len * q;
			if (++r == h->line_range) {
				r = 0;
				q++;
			}
		}
	}
	/* a row takes a byte at least; gcc and clang write about 3.5 bytes a row */
	if ((size_t)(end - p) / 3 > 1024 && !keep && reserve_rows(t, (size_t)(end - p) / 3) < 0)
		return -1;

	/*
	 * Registers change far less often than rows are made: their limits are checked where
	 * they change (WIDTHS). The column, set for most rows, has its own flag; is_stmt's
	 * never changes (negate_stmt flips 0 and 1, or a default above 1 between values
	 * above 1), so negate_stmt does nothing.
	 */
#define WIDTHS() (wide = (is_stmt >> 1) | (op_index >> 8) | (isa >> 8))
#define RESET()                                                                  \
	do {                                                                     \
		addr = discr = 0;                                                \
		op_index = column = isa = wide_col = 0;                          \
		file = 1;                                                        \
		lineb = 1 + 0x80000000ULL;                                       \
		is_stmt = h->default_is_stmt;                                    \
		WIDTHS();                                                        \
	} while (0)
#define ADVANCE(adv)                                                             \
	do {                                                                     \
		if (fast) {                                                      \
			addr += (uint64_t)h->min_inst_len * (adv);               \
		} else {                                                         \
			addr += (uint64_t)h->min_inst_len * ((op_index + (adv)) / h->max_ops); \
			op_index = (op_index + (adv)) % h->max_ops;              \
			WIDTHS();                                                \
		}                                                                \
	} while (0)
/* no fast path until emit() has seen a row */
#define SLOW() (lim = 0, cap = 0)
/* after emit(): the fast path again, but where a register stays wide (or a partial table
 * went backwards: then every row is emit()'s) */
#define REFRESH()                                                                \
	do {                                                                     \
		int plain_ = fast && based && !(wide | wide_col) && !(keep && t->keep.failed); \
									         \
		lim = plain_ ? next_lo : 0;                                      \
		cap = plain_ ? t->alloc_rows : 0;                                \
	} while (0)
/* a row through emit(): the run of fast rows before it ends */
#define SLOW_ROW(end_seq)                                                        \
	do {                                                                     \
		if (keep && t->keep.have_held && !t->keep.failed) {              \
			bad |= addr_bad(held_addr, base);                        \
			t->keep.held.off = (int32_t)(uint32_t)(held_addr - base); \
			t->keep.held_addr = held_addr;                           \
		}                                                                \
		if (!keep && based)                                              \
			bad |= addr_bad(prev, base);                             \
		st.base = base;                                                  \
		st.based = based;                                                \
		st.addr = addr;                                                  \
		st.line = (int64_t)(lineb - 0x80000000ULL);                      \
		st.file = file;                                                  \
		st.discr = discr;                                                \
		st.wide = wide;                                                  \
		st.wide_col = wide_col;                                          \
		st.bad = bad;                                                    \
		if (emit(t, &st, (end_seq)) < 0)                                 \
			return -1;                                               \
		base = st.base;                                                  \
		based = st.based;                                                \
		bad = st.bad;                                                    \
		if (keep) {                                                      \
			/* emit() holds the row, or none after an end */          \
			held_addr = t->keep.have_held ? addr : UINT64_MAX;       \
			next_lo = t->keep.next_lo;                               \
			cur_hi = t->keep.cur_hi;                                 \
		}                                                                \
		prev = addr;                                                     \
		discr = 0;                                                       \
		REFRESH();                                                       \
	} while (0)
/* a row (not an end) */
#define ROW()                                                                    \
	do {                                                                     \
		if (keep) {                                                      \
			if (addr >= held_addr && (addr < lim ||                  \
			    (held_addr >= next_lo && addr < cur_hi && t->nr_rows < cap))) { \
				if (addr >= lim) {                               \
					/* inside a range: the held row is kept */ \
					struct symbolize_line *r_ = &t->rows[t->nr_rows++]; \
					int32_t off_ = (int32_t)(uint32_t)(held_addr - base); \
									         \
					if (t->nr_rows > 1 && r_[-1].off > off_) { \
						t->out_of_order = 1;             \
						t->backwards |= !r_[-1].end_seq; \
					}                                        \
					*r_ = (struct symbolize_line){             \
						.off = off_,                     \
						.line = t->keep.held.line,       \
						.file = t->keep.held.file,       \
						.discr = t->keep.held.discr,     \
					};                                       \
				}                                                \
				held_addr = addr;                                \
				t->keep.held.line = (int32_t)(uint32_t)(lineb - 0x80000000ULL); \
				t->keep.held.file = file;                        \
				t->keep.held.discr = (uint32_t)discr;            \
				acc |= lineb;                                    \
				if (fast && !discr && addr < lim)                \
					goto l_skip;     /* more such rows */    \
				if (fast && !discr && addr < cur_hi)             \
					goto l_keep;     /* or rows to keep */   \
				discr = 0;                                       \
			} else {                                                 \
				SLOW_ROW(0);                                     \
			}                                                        \
		} else if (addr >= prev && t->nr_rows < cap) {                   \
			/* whole: discr and end_seq written as one word, not read, \
			 * masked and written back field by field */              \
			struct symbolize_line *r_ = &t->rows[t->nr_rows++];        \
									         \
			*r_ = (struct symbolize_line){                             \
				.off = (int32_t)(uint32_t)(addr - base),         \
				.line = (int32_t)(uint32_t)(lineb - 0x80000000ULL), \
				.file = file,                                    \
				.discr = (uint32_t)discr,                        \
			};                                                       \
			prev = addr;                                             \
			acc |= lineb;                                            \
			discr = 0;                                               \
		} else {                                                         \
			SLOW_ROW(0);                                             \
		}                                                                \
	} while (0)

	/* the dispatch, repeated after each common opcode: branch sites of their own learn
	 * which opcodes follow that one (3% less time on sqlite3's unit than one site; each
	 * site testing its likeliest successor first gains nothing more) */
#define NEXT()                                                                   \
	do {                                                                     \
		if (p >= end)                                                    \
			goto done;                                               \
		op = *p++;                                                       \
		if (op >= special)                                               \
			goto l_special;                                          \
		if (fast && op == DW_LNS_set_column)                             \
			goto l_column;                                           \
		if (fast && op == DW_LNS_negate_stmt)                            \
			goto next;                                               \
		if (fast && op == DW_LNS_copy)                                   \
			goto l_copy;                                             \
		if (fast && op == DW_LNS_advance_line)                           \
			goto l_line;                                             \
		goto l_other;                                                    \
	} while (0)
	RESET();
next:
	NEXT();
l_special:
	/* most rows: the step from a table, no operand */
	lineb += dline[op];
	if (fast)
		addr += daddr[op];
	else
		ADVANCE((op - h->opcode_base) / h->line_range);
	ROW();
	NEXT();
l_column:
	/* rows keep no column: only whether it is wider than libdw's */
	if (column_short(&p, end)) {
		wide_col = 0;
		NEXT();
	}
	goto l_other;
l_copy:
	ROW();
	NEXT();
l_line:
	op_end = line_short(p, end, &lineb);
	if (op_end) {
		p = op_end;
		NEXT();
	}
l_other:
	{
		switch (cls[op]) {
		case DW_LNS_set_column:
			/* rows keep no column: only whether it is wider than libdw's */
			if (p < end && !(*p & 0x80)) {
				p++;
				wide_col = 0;
			} else {
				OPERAND(column);
				wide_col = column >> 16;
				if (wide_col)
					SLOW();
			}
			break;
		case DW_LNS_negate_stmt:
			/* rows keep no is_stmt, and a flip leaves is_stmt >> 1 (WIDTHS) as it was */
			break;
		case DW_LNS_copy:
			ROW();
			break;
		case DW_LNS_advance_line:
			if (p < end && !(*p & 0x80)) {
				/* one byte: bit 6 is the sign */
				lineb += (uint64_t)(int64_t)((int)(*p++ ^ 0x40) - 0x40);
			} else {
				int64_t d;

				if (!(p = pgo_sleb128(p, end, &d)))
					return -1;
				lineb += (uint64_t)(int64_t)(int32_t)d;
			}
			break;
		case DW_LNS_advance_pc:
			OPERAND(u);
			ADVANCE((unsigned)u);
			break;
		case DW_LNS_set_file:
			OPERAND(file);
			break;
		case DW_LNS_const_add_pc:
			if (!h->line_range)
				return -1;
			ADVANCE((255 - h->opcode_base) / h->line_range);
			break;
		case DW_LNS_fixed_advance_pc:
			FIXED(u, 2);
			addr += u;
			op_index = 0;
			WIDTHS();
			break;
		case DW_LNS_set_isa:
			OPERAND(isa);
			if (WIDTHS())
				SLOW();
			break;
		case DW_LNS_set_basic_block:
		case DW_LNS_set_prologue_end:
		case DW_LNS_set_epilogue_begin:
			break;
		case OP_EXT: {
			unsigned len, sub;

			if (end - p < 2)
				return -1;
			len = *p++;
			if ((size_t)(end - p) < len)
				return -1;
			sub = *p++;
			switch (sub) {
			case DW_LNE_end_sequence:
				SLOW_ROW(1);
				RESET();
				REFRESH();
				break;
			case DW_LNE_set_address:
				/* libdw reads the unit's address size, whatever len says */
				op_index = 0;
				FIXED(addr, h->addr_size);
				WIDTHS();
				break;
			case DW_LNE_set_discriminator:
				if (h->std_len[DW_LNE_set_discriminator] != 1)
					return -1;
				OPERAND(discr);
				if (discr >> 24)
					SLOW();
				break;
			case DW_LNE_define_file:
				return -1;         /* extends the file table: left to libdw */
			default:
				/* skip the operands; a length of 0 re-reads the sub-opcode, as libdw does */
				if ((size_t)(end - (p - 1)) < len)
					return -1;
				p += (long)len - 1;
				break;
			}
			break;
		}
		case OP_SKIP: {
			unsigned k;

			for (k = h->std_len[op]; k > 0; k--)
				OPERAND(u);
			break;
		}
		default:                           /* OP_FAIL */
			return -1;
		}
	}
	NEXT();
l_skip:
	/*
	 * A partial table's rows below the next range (sqlite3's unit with a short recording's
	 * ranges: 171k of its 204k) each only replace the held row: this loop makes them with what a row
	 * needs there and nothing more. It is entered after such a row whose discriminator is
	 * 0, and set_file and set_discriminator leave it, so the held row's file and
	 * discriminator stay as they are and only its address and line change (the line in
	 * hlb, written back on the way out). Any row outside [held_addr, lim) goes to ROW(),
	 * any opcode but the common ones to the switch, its operands unread. Against ROW() and
	 * NEXT() for these rows, run_program takes 23% fewer instructions on that unit and 12%
	 * less time. The barrier on op keeps the tests one by one: gcc 12 makes a jump table of
	 * them otherwise (3% slower).
	 */
#define SKIP_NEXT(on_end, on_special, on_column, on_stmt, on_row, on_line, on_const, on_exit) \
	do {                                                                     \
		if (p >= end)                                                    \
			goto on_end;                                             \
		op = *p++;                                                       \
		if (op >= special)                                               \
			goto on_special;                                         \
		if (op == DW_LNS_set_column)                                     \
			goto on_column;                                          \
		__asm__("" : "+r"(op));                                          \
		if (op == DW_LNS_negate_stmt)                                    \
			goto on_stmt;                                            \
		if (op == DW_LNS_copy)                                           \
			goto on_row;                                             \
		if (op == DW_LNS_advance_line)                                   \
			goto on_line;                                            \
		if (op == DW_LNS_const_add_pc)                                   \
			goto on_const;                                           \
		goto on_exit;                                                    \
	} while (0)
/* the held row's line, written back on the way out of a loop */
#define HELD_LINE() (t->keep.held.line = (int32_t)(uint32_t)(hlb - 0x80000000ULL))
#define S_NEXT() SKIP_NEXT(skip_end, s_special, s_column, s_next, s_row, s_line, s_const, skip_exit)
	hlb = lineb;
s_next:
	S_NEXT();
s_special:
	lineb += dline[op];
	addr += daddr[op];
s_row:
	if (addr < held_addr || addr >= lim) {
		HELD_LINE();
		goto l_skip_row;
	}
	held_addr = addr;
	hlb = lineb;
	acc |= lineb;
	S_NEXT();
/* the opcodes but rows: set_column, advance_line, const_add_pc */
s_column:
	if (column_short(&p, end))
		S_NEXT();
	goto skip_exit;
s_line:
	op_end = line_short(p, end, &lineb);
	if (op_end) {
		p = op_end;
		S_NEXT();
	}
	goto skip_exit;
s_const:
	addr += const_add;
	S_NEXT();
	/*
	 * Both loops leave here: at the program's end, or for any other opcode (or a long
	 * operand), its operands still to read.
	 */
skip_end:
	HELD_LINE();
	goto done;
skip_exit:
	HELD_LINE();
	goto l_other;
#undef S_NEXT
l_keep:
	/*
	 * The same for rows inside a range, up to its end: each keeps the row held before
	 * (with the file and discriminator 0 it was entered with) while there is room. Rows
	 * only go up here, so none is out of order (sqlite3's unit with a longer recording's
	 * ranges, 52k rows kept: 7% fewer instructions in all, the time within noise).
	 */
#define K_NEXT() SKIP_NEXT(skip_end, k_special, k_column, k_next, k_row, k_line, k_const, skip_exit)
	hlb = lineb;
k_next:
	K_NEXT();
k_special:
	lineb += dline[op];
	addr += daddr[op];
k_row:
	if (addr < held_addr || addr >= cur_hi || t->nr_rows >= cap) {
		HELD_LINE();
		goto l_skip_row;
	}
	t->rows[t->nr_rows++] = (struct symbolize_line){
		.off = (int32_t)(uint32_t)(held_addr - base),
		.line = (int32_t)(uint32_t)(hlb - 0x80000000ULL),
		.file = file,
	};
	held_addr = addr;
	hlb = lineb;
	acc |= lineb;
	K_NEXT();
k_column:
	if (column_short(&p, end))
		K_NEXT();
	goto skip_exit;
k_line:
	op_end = line_short(p, end, &lineb);
	if (op_end) {
		p = op_end;
		K_NEXT();
	}
	goto skip_exit;
k_const:
	addr += const_add;
	K_NEXT();
#undef K_NEXT
#undef HELD_LINE
#undef SKIP_NEXT
l_skip_row:
	ROW();
	NEXT();
done:
	/* the last run of fast rows */
	if (keep && t->keep.have_held && !t->keep.failed)
		bad |= addr_bad(held_addr, base);
	if (!keep && based)
		bad |= addr_bad(prev, base);
	if (bad || acc >> 32)
		return -1;
	t->base = base;
	t->based = based;
	return 0;
#undef WIDTHS
#undef RESET
#undef ADVANCE
#undef SLOW
#undef REFRESH
#undef SLOW_ROW
#undef ROW
#undef NEXT
}

static int run_program(const struct hdr *h, struct symbolize_linetab *t)
{
	unsigned op;

	/* the fast instantiations: every target's headers but VLIW ones */
	for (op = 1; op < h->opcode_base && op <= DW_LNS_set_isa; op++)
		if (h->std_len[op] != std_operands(op))
			break;
	if (h->max_ops == 1 && h->line_range && (op == h->opcode_base || op > DW_LNS_set_isa))
		return t->keep.r ? run_ops(h, t, 1, 1) : run_ops(h, t, 1, 0);
	return t->keep.r ? run_ops(h, t, 0, 1) : run_ops(h, t, 0, 0);
}

#undef OPERAND
#undef FIXED

int symbolize_linetab_parse(struct symbolize_linetab *t, const struct symbolize_dwsecs *s, uint64_t off,
			  unsigned addr_size, const char *comp_dir,
			  const struct symbolize_linerange *keep, size_t nr_keep)
{
	const char **dirs = NULL;
	struct cur c;
	struct hdr h;

	memset(t, 0, sizeof(*t));
	if (!s->line || off >= s->line_size || (addr_size != 4 && addr_size != 8))
		return -1;
	c.p = s->line + off;
	c.end = s->line + s->line_size;
	c.bad = 0;
	if (symbolize_linetab_read_header(&c, c.end, addr_size, &h) < 0)
		goto fail;
	/* file 0 of DWARF 2-4 is no file; libdw names it "???" (DWARF 5 replaces it) */
	if (symbolize_linetab_add_name(t, NULL, "???") < 0)
		goto fail;
	c.end = h.prog;
	if ((h.version >= 5 ? symbolize_linetab_read_v5_tables(&c, &h, s, t, &dirs) : symbolize_linetab_read_v4_tables(&c, comp_dir, t)) < 0 ||
	    c.bad || c.p != h.prog)
		goto fail;
	free(dirs);
	dirs = NULL;
	t->keep.r = nr_keep ? keep : NULL;
	t->keep.n = nr_keep;
	if (run_program(&h, t) < 0)
		goto fail;
	if (t->keep.r) {
		/* an unended last sequence is libdw's to end: which row that is needs them all */
		if (t->keep.failed || t->keep.have_held) {
			symbolize_linetab_release(t);
			return symbolize_linetab_parse(t, s, off, addr_size, comp_dir, NULL, 0);
		}
		memset(&t->keep, 0, sizeof(t->keep));
		t->partial = 1;
	}
	if (symbolize_linetab_sort_rows(t) < 0)
		goto fail;
	/* libdw marks the last row as a sequence end even where a compiler forgot */
	if (t->nr_rows) {
		const struct symbolize_lineseq *q = &t->seqs[t->nr_seqs - 1];

		t->rows[q->start + q->n - 1].end_seq = 1;
	}
	return 0;
fail:
	free(dirs);
	symbolize_linetab_release(t);
	return -1;
}

int symbolize_linetab_read(struct symbolize_linetab *t, const struct symbolize_dwsecs *s,
			 Dwarf_Die *cudie, const struct symbolize_linerange *keep, size_t nr_keep)
{
	Dwarf_Attribute attr;
	Dwarf_Word off;
	Dwarf_Die cu;
	uint8_t addr_size = 0;

	memset(t, 0, sizeof(*t));
	if (!dwarf_attr(cudie, DW_AT_stmt_list, &attr) || dwarf_formudata(&attr, &off) != 0 ||
	    !dwarf_diecu(cudie, &cu, &addr_size, NULL))
		return -1;
	return symbolize_linetab_parse(t, s, off, addr_size,
				     dwarf_formstring(dwarf_attr(cudie, DW_AT_comp_dir, &attr)), keep,
				     nr_keep);
}
