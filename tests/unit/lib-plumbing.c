// SPDX-License-Identifier: MIT
/* Unit tests for lib/: strict parsing, buffers, hash tables, atomic files. */
#include <errno.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/alloc.h"
#include "lib/atomicfile.h"
#include "lib/buf.h"
#include "lib/cow.h"
#include "lib/hashmap.h"
#include "lib/parse.h"
#include "lib/radixsort.h"
#include "tests/unit/test.h"

static int test_parse_u64(void)
{
	uint64_t v;

	T_ASSERT(pgo_parse_u64("999", &v) == 0 && v == 999);
	T_ASSERT(pgo_parse_u64("0x10", &v) == 0 && v == 16);
	T_ASSERT(pgo_parse_u64("18446744073709551615", &v) == 0 && v == UINT64_MAX);
	T_ASSERT(pgo_parse_u64("18446744073709551616", &v) == -1);
	T_ASSERT(pgo_parse_u64("", &v) == -1);
	T_ASSERT(pgo_parse_u64("10ms", &v) == -1);
	T_ASSERT(pgo_parse_u64("-1", &v) == -1);
	T_ASSERT(pgo_parse_u64(" 5", &v) == -1);
	T_ASSERT(pgo_parse_u64("abc", &v) == -1);
	T_ASSERT(pgo_parse_u64_range("0", 1, 10, &v) == -1);
	T_ASSERT(pgo_parse_u64_range("10", 1, 10, &v) == 0 && v == 10);
	return T_OK;
}

static int test_parse_double_duration(void)
{
	double d;
	uint64_t ns;

	T_ASSERT(pgo_parse_double("0.05", 0, &d) == 0 && d == 0.05);
	T_ASSERT(pgo_parse_double("5%", 1, &d) == 0 && fabs(d - 0.05) < 1e-15);
	T_ASSERT(pgo_parse_double("5%", 0, &d) == -1);
	T_ASSERT(pgo_parse_double("nan", 0, &d) == -1);
	T_ASSERT(pgo_parse_double("1e999", 0, &d) == -1);
	T_ASSERT(pgo_parse_duration_ns("3ms", 1, &ns) == 0 && ns == 3000000);
	T_ASSERT(pgo_parse_duration_ns("2", 1000, &ns) == 0 && ns == 2000);
	T_ASSERT(pgo_parse_duration_ns("2h", 1, &ns) == -1);
	return T_OK;
}

static int test_buf(void)
{
	struct pgo_buf b = PGO_BUF_INIT;
	char *s;

	T_ASSERT_STR(pgo_buf_str(&b), "");
	T_ASSERT(pgo_buf_adds(&b, "ab") == 0);
	T_ASSERT(pgo_buf_addf(&b, "%d-%s", 42, "x") == 0);
	T_ASSERT(pgo_buf_addch(&b, '!') == 0);
	T_ASSERT_STR(pgo_buf_str(&b), "ab42-x!");
	T_ASSERT(b.len == 7);
	s = pgo_buf_detach(&b);
	T_ASSERT(b.data == NULL && b.len == 0);
	T_ASSERT_STR(s, "ab42-x!");
	free(s);
	return T_OK;
}

/* addf into the room there is, and past it (formatted again after growing) */
static int test_buf_grow(void)
{
	struct pgo_buf b = PGO_BUF_INIT;
	char want[64];
	int i;

	T_ASSERT(pgo_buf_grow(&b, 100) == 0);
	T_ASSERT(b.len == 0 && b.alloc > 100);
	T_ASSERT_STR(pgo_buf_str(&b), "");
	for (i = 0; i < 2000; i++)
		T_ASSERT(pgo_buf_addf(&b, "%05d,", i) == 0);
	T_ASSERT(b.len == 2000 * 6 && b.data[b.len] == '\0');
	T_ASSERT(pgo_buf_addf(&b, "%s", "") == 0 && b.len == 2000 * 6);
	for (i = 0; i < 2000; i += 499) {
		snprintf(want, sizeof(want), "%05d,", i);
		T_ASSERT(!memcmp(b.data + 6 * i, want, 6));
	}
	pgo_buf_reset(&b);
	T_ASSERT(pgo_buf_addf(&b, "%0*d", (int)b.alloc + 10, 7) == 0);
	T_ASSERT(b.len == strlen(b.data) && b.data[b.len - 1] == '7' && b.data[0] == '0');
	pgo_buf_release(&b);
	return T_OK;
}

static int test_alloc_grow(void)
{
	uint32_t *z = NULL, *u = NULL;
	size_t za = 0, ua = 0, i;

	for (i = 0; i < 1000; i++) {
		T_ASSERT(PGO_ALLOC_GROW(z, i + 1, za) == 0);
		T_ASSERT(z[i] == 0 && z[za - 1] == 0); /* the zeroing grow zeroes the tail */
		z[i] = (uint32_t)i + 1;
		T_ASSERT(PGO_ALLOC_GROW_UNINIT(u, i + 1, ua) == 0);
		u[i] = (uint32_t)i + 1;
	}
	T_ASSERT(za >= 1000 && ua >= 1000);
	for (i = 0; i < 1000; i++)
		T_ASSERT(z[i] == i + 1 && u[i] == i + 1);
	free(z);
	free(u);
	return T_OK;
}

static int test_u64map(void)
{
	struct pgo_u64map m = PGO_U64MAP_INIT;
	uint64_t i, *v;

	for (i = 0; i < 10000; i++)
		T_ASSERT(pgo_u64map_put(&m, i * 4096, i + 1) == 0);
	T_ASSERT(m.count == 10000);
	for (i = 0; i < 10000; i++) {
		v = pgo_u64map_find(&m, i * 4096);
		T_ASSERT(v && *v == i + 1);
	}
	T_ASSERT(pgo_u64map_find(&m, 1) == NULL);
	T_ASSERT(pgo_u64map_get(&m, 4096, &v) == 0 && *v == 2);
	pgo_u64map_release(&m);
	return T_OK;
}

static int test_cow(void)
{
	struct pgo_cow *a = NULL, *b;
	int *e;

	T_ASSERT(pgo_cow_nr(a) == 0 && !pgo_cow_share(a));
	T_ASSERT(pgo_cow_own(&a, 3, sizeof(int), NULL) == 0 && a->refs == 1 && a->alloc >= 3);
	e = PGO_COW_ELEMS(a, int);
	e[0] = 1, e[1] = 2, e[2] = 3;
	a->nr = 3;
	b = pgo_cow_share(a);
	T_ASSERT(b == a && a->refs == 2);
	/* a write through b copies: a keeps its values */
	T_ASSERT(pgo_cow_own(&b, 4, sizeof(int), NULL) == 0 && b != a && a->refs == 1 && b->refs == 1);
	T_ASSERT(pgo_cow_nr(b) == 3 && PGO_COW_ELEMS(b, int)[2] == 3);
	PGO_COW_ELEMS(b, int)[0] = 9;
	T_ASSERT(PGO_COW_ELEMS(a, int)[0] == 1);
	/* an unshared block with room is written in place */
	e = PGO_COW_ELEMS(a, int);
	T_ASSERT(pgo_cow_own(&a, 3, sizeof(int), NULL) == 0 && PGO_COW_ELEMS(a, int) == e);
	pgo_cow_release(&b);
	pgo_cow_release(&a);
	pgo_cow_release(&a);
	T_ASSERT(!a && !b);
	return T_OK;
}

static int test_cow_budget(void)
{
	struct pgo_cow_budget budget = { 0, 100 };
	struct pgo_cow *a = NULL, *b[20] = { NULL };
	int i, refused = 0;

	T_ASSERT(pgo_cow_own(&a, 30, 8, &budget) == 0 && budget.used == a->alloc);
	a->nr = 30;
	/* each writing sharer costs a copy: the budget stops them */
	for (i = 0; i < 20; i++) {
		int r;

		b[i] = pgo_cow_share(a);
		r = pgo_cow_own(&b[i], 31, 8, &budget);
		T_ASSERT(r == 0 || r == -2);
		refused += r == -2;
		T_ASSERT(budget.used <= budget.max);
	}
	T_ASSERT(refused > 0);
	for (i = 0; i < 20; i++)
		pgo_cow_release(&b[i]);
	pgo_cow_release(&a);
	T_ASSERT_EQ_U64(budget.used, 0);
	return T_OK;
}

static int test_strtab(void)
{
	struct pgo_strtab t = PGO_STRTAB_INIT;
	char name[32];
	long id;
	int i;

	T_ASSERT(pgo_strtab_intern(&t, "main") == 0);
	T_ASSERT(pgo_strtab_intern(&t, "work") == 1);
	T_ASSERT(pgo_strtab_intern(&t, "main") == 0);
	T_ASSERT(pgo_strtab_intern_len(&t, "workload", 4) == 1);
	for (i = 0; i < 5000; i++) {
		snprintf(name, sizeof(name), "fn%d", i);
		T_ASSERT(pgo_strtab_intern(&t, name) == i + 2);
	}
	id = pgo_strtab_find(&t, "fn4999");
	T_ASSERT(id == 5001);
	T_ASSERT_STR(pgo_strtab_str(&t, (size_t)id), "fn4999");
	T_ASSERT(pgo_strtab_find(&t, "nope") == -1);
	pgo_strtab_release(&t);
	return T_OK;
}

/* strings longer than a chunk, many chunks, prefixes */
static int test_strtab_chunks(void)
{
	struct pgo_strtab t = PGO_STRTAB_INIT;
	size_t big = 100000, i;
	char *s = malloc(big + 1), name[32];
	const char *first;

	T_ASSERT(s);
	memset(s, 'x', big);
	s[big] = '\0';
	T_ASSERT(pgo_strtab_intern(&t, "a") == 0);
	T_ASSERT(pgo_strtab_intern(&t, s) == 1);
	T_ASSERT(pgo_strtab_intern_len(&t, s, big - 1) == 2);
	first = pgo_strtab_str(&t, 0);
	for (i = 0; i < 20000; i++) {
		snprintf(name, sizeof(name), "name-%zu", i);
		T_ASSERT(pgo_strtab_intern(&t, name) == (long)i + 3);
	}
	T_ASSERT(pgo_strtab_str(&t, 0) == first); /* strings do not move */
	T_ASSERT(strlen(pgo_strtab_str(&t, 1)) == big && strlen(pgo_strtab_str(&t, 2)) == big - 1);
	T_ASSERT(pgo_strtab_find(&t, s) == 1);
	T_ASSERT(pgo_strtab_intern_len(&t, "name-7junk", 6) == 10);
	T_ASSERT_STR(pgo_strtab_str(&t, 20002), "name-19999");
	pgo_strtab_release(&t);
	free(s);
	return T_OK;
}

struct rs64 {
	uint64_t key;
	uint32_t order;
	uint32_t pad[3];   /* 24 bytes: the elements move whole */
};
struct rs32 {
	uint32_t key;
	uint32_t order;
};
#define RS_KEY(e) ((e)->key)
PGO_RADIX_SORT(rs_sort64, struct rs64, uint64_t, RS_KEY)
PGO_RADIX_SORT(rs_sort32, struct rs32, uint32_t, RS_KEY)

/* equal keys keep their order, as glibc's (merge sort) qsort keeps them */
static int rs_cmp64(const void *a, const void *b)
{
	const struct rs64 *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int rs_cmp32(const void *a, const void *b)
{
	const struct rs32 *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/*
 * PGO_RADIX_SORT against qsort with the element's position as the tie-break, over every
 * path: insertion (n <= 32), 64-bit keys of a span under 2^32 (pairs) and over it
 * (elements), 32-bit keys, duplicates, keys all equal, keys differing in one high byte.
 */
static int test_radixsort(void)
{
	static const size_t sizes[] = { 0, 1, 2, 31, 32, 33, 100, 1000, 70000 };
	static const uint64_t spans[] = { 1, 7, 1000, 1ULL << 31, 1ULL << 40, ~0ULL };
	struct rs64 *a = malloc(70000 * sizeof(*a)), *b = malloc(70000 * sizeof(*b));
	struct rs32 *c = malloc(70000 * sizeof(*c)), *d = malloc(70000 * sizeof(*d));
	uint64_t x = 88172645463325252ULL;
	size_t si, pi, i;

	T_ASSERT(a && b && c && d);
	for (si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++)
		for (pi = 0; pi < sizeof(spans) / sizeof(spans[0]); pi++) {
			size_t n = sizes[si];
			uint64_t base = pi & 1 ? 0x7f0000001000ULL : 0;

			for (i = 0; i < n; i++) {
				x ^= x << 13;
				x ^= x >> 7;
				x ^= x << 17;
				a[i].key = base + (spans[pi] == ~0ULL ? x : x % spans[pi]);
				if (spans[pi] == 1ULL << 40 && (i & 1))
					a[i].key = base | 1ULL << 56;    /* one high byte differs */
				a[i].order = (uint32_t)i;
				memset(a[i].pad, 0, sizeof(a[i].pad));
				c[i].key = (uint32_t)a[i].key;
				c[i].order = (uint32_t)i;
			}
			memcpy(b, a, n * sizeof(*a));
			memcpy(d, c, n * sizeof(*c));
			rs_sort64(a, n);
			qsort(b, n, sizeof(*b), rs_cmp64);
			T_ASSERT(!n || !memcmp(a, b, n * sizeof(*a)));
			rs_sort32(c, n);
			qsort(d, n, sizeof(*d), rs_cmp32);
			T_ASSERT(!n || !memcmp(c, d, n * sizeof(*c)));
		}
	free(a);
	free(b);
	free(c);
	free(d);
	return T_OK;
}

static int test_atomic_file(void)
{
	char dir[] = "/tmp/pgo-unit-XXXXXX", path[256], *data = NULL;
	struct pgo_atomic_file af;
	size_t len;

	T_ASSERT(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/out.txt", dir);
	T_ASSERT(pgo_write_file_atomic(path, "old\n", 4) == 0);
	/* an aborted write leaves the old content and no temporary file */
	T_ASSERT(pgo_atomic_open(&af, path) == 0);
	fputs("half-written", af.fp);
	pgo_atomic_abort(&af);
	T_ASSERT(pgo_read_file(path, 1024, &data, &len) == 0);
	T_ASSERT_STR(data, "old\n");
	free(data);
	T_ASSERT(pgo_atomic_open(&af, path) == 0);
	fputs("new\n", af.fp);
	T_ASSERT(pgo_atomic_commit(&af) == 0);
	T_ASSERT(pgo_read_file(path, 1024, &data, &len) == 0 && len == 4);
	T_ASSERT_STR(data, "new\n");
	free(data);
	/* a file above the size limit is refused */
	T_ASSERT(pgo_read_file(path, 2, &data, &len) == -1);
	/* an unwritable directory is an error at open */
	T_ASSERT(pgo_atomic_open(&af, "/nonexistent-dir/x") == -1);
	unlink(path);
	T_ASSERT(rmdir(dir) == 0); /* nothing else left behind */
	return T_OK;
}

static int test_atomic_enospc(void)
{
	struct pgo_atomic_file af;
	char buf[4096] = { 0 };
	int i;

	if (access("/dev/full", W_OK))
		return t_skip("/dev/full is not writable here");
	/* /dev/full cannot be a rename target's directory, so emulate via a full fp */
	T_ASSERT(pgo_atomic_open(&af, "/tmp/pgo-unit-enospc") == 0);
	fclose(af.fp);
	af.fp = fopen("/dev/full", "w");
	T_ASSERT(af.fp);
	for (i = 0; i < 4; i++)
		fwrite(buf, 1, sizeof(buf), af.fp);
	T_ASSERT(pgo_atomic_commit(&af) == -1);
	T_ASSERT(access("/tmp/pgo-unit-enospc", F_OK) == -1);
	return T_OK;
}

static int test_atomic_device(void)
{
	struct pgo_atomic_file af;
	struct stat st;

	/* -o /dev/null must write to the device, never rename a regular file over it */
	T_ASSERT(stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode));
	T_ASSERT(pgo_atomic_open(&af, "/dev/null") == 0);
	fputs("discarded\n", af.fp);
	T_ASSERT(pgo_atomic_commit(&af) == 0);
	T_ASSERT(stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode));
	T_ASSERT(pgo_write_file_atomic("/dev/null", "x", 1) == 0);
	T_ASSERT(stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode));
	T_ASSERT(pgo_atomic_open(&af, "/dev/null") == 0);
	pgo_atomic_abort(&af);
	T_ASSERT(stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode));
	return T_OK;
}

static const struct t_case cases[] = {
	{ "parse_u64 is strict", test_parse_u64 },
	{ "parse_double and durations", test_parse_double_duration },
	{ "buf appends and detaches", test_buf },
	{ "buf formats into its room and past it", test_buf_grow },
	{ "alloc grows, zeroed or not", test_alloc_grow },
	{ "u64map stores 10k keys", test_u64map },
	{ "strtab interns", test_strtab },
	{ "strtab: long strings, many chunks", test_strtab_chunks },
	{ "radix sort: qsort's stable order on every path", test_radixsort },
	{ "cow arrays copy on write only when shared", test_cow },
	{ "cow budget caps the copies", test_cow_budget },
	{ "atomic file: abort keeps old, commit replaces", test_atomic_file },
	{ "atomic file: ENOSPC fails the commit, no file", test_atomic_enospc },
	{ "atomic file: a device is written in place, not replaced", test_atomic_device },
};

T_MAIN(cases)
