// SPDX-License-Identifier: MIT
/*
 * The .afdo reader behind --dump and the writer's self-check, on hand-made images:
 * the 133-byte example of autofdo-gcc12-format.md (version 2, byte strings), the same
 * profile in the gcc <= 11 layout (version 1, word-length NUL-padded strings), and the
 * malformed files that make gcc 12 crash (zero-length string, module count != 0,
 * truncation inside the string table, absurd counts).
 */
#include <stdint.h>

#include "convert/afdo.h"
#include "lib/buf.h"
#include "lib/report.h"
#include "test.h"

static void w32(struct pgo_buf *b, uint32_t v)
{
	pgo_buf_add(b, &v, 4);
}

static void w64(struct pgo_buf *b, uint64_t v)
{
	pgo_buf_add(b, &v, 8);
}

/* f: head 5, +2: 7, callsite +3 -> g { +1: 4 } (the format document's mini.afdo) */
static void mini(struct pgo_buf *b, int version)
{
	static const char *const names[] = { "", "f", "g" };
	size_t i;

	w32(b, 0x67636461);
	w32(b, version);
	w32(b, 0);
	w32(b, 0xaa000000);
	w32(b, 5);
	w32(b, 3);
	for (i = 0; i < 3; i++) {
		size_t len = strlen(names[i]) + 1;

		if (version == 2) {
			w32(b, len);
			pgo_buf_add(b, names[i], len);
		} else {
			char pad[8] = { 0 };

			memcpy(pad, names[i], len);
			w32(b, (len + 3) / 4);
			pgo_buf_add(b, pad, (len + 3) / 4 * 4);
		}
	}
	w32(b, 0xac000000);
	w32(b, 0x12);
	w32(b, 1);
	w64(b, 5);
	w32(b, 1);
	w32(b, 1);
	w32(b, 1);
	w32(b, 0x00020000);
	w32(b, 0);
	w64(b, 7);
	w32(b, 0x00030000);
	w32(b, 2);
	w32(b, 1);
	w32(b, 0);
	w32(b, 0x00010000);
	w32(b, 0);
	w64(b, 4);
	w32(b, 0xae000000);
	w32(b, 0);
	w32(b, 0);
}

static int parse_text(const struct pgo_buf *b, char **text, struct convert_afdo_summary *s)
{
	size_t len = 0;
	FILE *mem = open_memstream(text, &len);
	int ret;

	if (!mem)
		return -1;
	ret = convert_afdo_parse((const uint8_t *)b->data, b->len, "mini.afdo", mem, s);
	fclose(mem);
	return ret;
}

static int test_v2(void)
{
	struct pgo_buf b = PGO_BUF_INIT;
	struct convert_afdo_summary s;
	char *text = NULL;

	mini(&b, 2);
	T_ASSERT_EQ_U64(b.len, 133);
	T_ASSERT(parse_text(&b, &text, &s) == 0);
	T_ASSERT(strstr(text, "afdo version 2: 3 strings, 1 functions\n"));
	T_ASSERT(strstr(text, "f: head 5, total 11\n  +2: 7\n  +3: inlined g, total 4\n    +1: 4\n"));
	T_ASSERT_EQ_U64(s.functions, 1);
	T_ASSERT_EQ_U64(s.instances, 1);
	T_ASSERT_EQ_U64(s.sum_counts, 11);
	T_ASSERT_EQ_U64(s.max_count, 7);
	free(text);
	/* the writer's self-check mode (no output) is strict about trailing bytes */
	pgo_buf_add(&b, "junk", 4);
	pgo_report_set_verbosity(-1);
	T_ASSERT(convert_afdo_parse((const uint8_t *)b.data, b.len, "x", NULL, &s) < 0);
	pgo_report_set_verbosity(0);
	pgo_buf_release(&b);
	return T_OK;
}

static int test_v1_word_strings(void)
{
	struct pgo_buf b = PGO_BUF_INIT;
	struct convert_afdo_summary s;
	char *text = NULL;

	mini(&b, 1);
	T_ASSERT(parse_text(&b, &text, &s) == 0);
	T_ASSERT(strstr(text, "afdo version 1: "));
	T_ASSERT(strstr(text, "+3: inlined g, total 4"));
	free(text);
	pgo_buf_release(&b);
	return T_OK;
}

/* Patch one word of the mini image and expect a parse error. */
static int bad_word(size_t off, uint32_t v)
{
	struct pgo_buf b = PGO_BUF_INIT;
	struct convert_afdo_summary s;
	int ret;

	mini(&b, 2);
	memcpy(b.data + off, &v, 4);
	ret = convert_afdo_parse((const uint8_t *)b.data, b.len, "bad.afdo", NULL, &s);
	pgo_buf_release(&b);
	return ret;
}

static int test_malformed(void)
{
	struct pgo_buf b = PGO_BUF_INIT;
	struct convert_afdo_summary s;
	size_t cut;

	pgo_report_set_verbosity(-1);
	T_ASSERT(bad_word(0x00, 0x61646367) < 0);   /* byte-swapped magic */
	T_ASSERT(bad_word(0x18, 0) < 0);            /* zero-length string */
	T_ASSERT(bad_word(0x14, 0xffffffff) < 0);   /* string count */
	T_ASSERT(bad_word(0x31, 0xffffffff) < 0);   /* function count */
	T_ASSERT(bad_word(0x3d, 9) < 0);            /* name index out of range */
	T_ASSERT(bad_word(0x81, 1) < 0);            /* module count 1: gcc 12 asserts */
	T_ASSERT(bad_word(0x29, 0xab000000) < 0);   /* function section tag */
	mini(&b, 2);
	/* every truncation inside the profile is an error (only the module section may go) */
	for (cut = 0; cut < 0x79; cut++)
		T_ASSERT(convert_afdo_parse((const uint8_t *)b.data, cut, "cut.afdo", NULL, &s) < 0);
	T_ASSERT(convert_afdo_parse((const uint8_t *)b.data, 0x79, "cut.afdo", NULL, &s) == 0);
	pgo_report_set_verbosity(0);
	pgo_buf_release(&b);
	return T_OK;
}

static const struct t_case cases[] = {
	{ "version 2 example: text and summary", test_v2 },
	{ "gcc <= 11 word-length strings", test_v1_word_strings },
	{ "malformed and truncated files are errors", test_malformed },
};

T_MAIN(cases)
