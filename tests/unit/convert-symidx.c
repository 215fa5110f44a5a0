// SPDX-License-Identifier: MIT
/*
 * convert/symidx.h gives, address by address, the answer of dwfl_module_addrinfo() on
 * real modules: this test binary and the C library (thousands of symbols, aliases,
 * versioned names, IFUNC variants).
 */
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "convert/symidx.h"
#include "test.h"

static char *debuginfo_path;
static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

/*
 * `spread` addresses spread over the module, and the bytes around the start and end of
 * every `every`th symbol. dwfl_module_addrinfo() scans the whole table per call, so the
 * sample of a big table is kept small.
 */
static int compare_module(const char *path, size_t spread, int every, size_t *checked)
{
	struct convert_symidx *ix = NULL;
	Dwarf_Addr lo, hi, a;
	Dwfl_Module *mod;
	Dwfl *dwfl;
	int fail = 0, i, n;

	dwfl = dwfl_begin(&callbacks);
	T_ASSERT(dwfl);
	mod = dwfl_report_offline(dwfl, path, path, -1);
	dwfl_report_end(dwfl, NULL, NULL);
	if (!mod) {
		dwfl_end(dwfl);
		return T_SKIP;
	}
	T_ASSERT(convert_symidx_new(mod, &ix) == 0);
	dwfl_module_info(mod, NULL, &lo, &hi, NULL, NULL, NULL, NULL);
	n = dwfl_module_getsymtab(mod);
	for (a = lo; a < hi && fail < 5; a += (hi - lo) / spread + 1) {
		GElf_Off o1 = 0, o2 = 0;
		GElf_Sym s1, s2;
		const char *n1 = dwfl_module_addrinfo(mod, a, &o1, &s1, NULL, NULL, NULL);
		const char *n2 = convert_symidx_lookup(ix, a, &o2, &s2);

		(*checked)++;
		if ((!n1) != (!n2) || (n1 && (strcmp(n1, n2) || o1 != o2 || s1.st_size != s2.st_size))) {
			fprintf(stderr, "# %s %#llx: addrinfo %s+%#llx, symidx %s+%#llx\n", path,
				(unsigned long long)a, n1 ? n1 : "-", (unsigned long long)o1,
				n2 ? n2 : "-", (unsigned long long)o2);
			fail++;
		}
	}
	for (i = 1; i < n && fail < 5; i++) {
		GElf_Addr v;
		GElf_Sym sym;
		int d;

		if (!dwfl_module_getsym_info(mod, i, &sym, &v, NULL, NULL, NULL) || i % every)
			continue;
		for (d = -1; d <= 1; d++) {
			GElf_Addr probe[2] = { v + d, v + sym.st_size + d };
			int k;

			for (k = 0; k < 2; k++) {
				GElf_Off o1 = 0, o2 = 0;
				GElf_Sym s1, s2;
				const char *n1 = dwfl_module_addrinfo(mod, probe[k], &o1, &s1, NULL, NULL, NULL);
				const char *n2 = convert_symidx_lookup(ix, probe[k], &o2, &s2);

				(*checked)++;
				if ((!n1) != (!n2) || (n1 && (strcmp(n1, n2) || o1 != o2))) {
					fprintf(stderr, "# %s %#llx: addrinfo %s+%#llx, symidx %s+%#llx\n",
						path, (unsigned long long)probe[k], n1 ? n1 : "-",
						(unsigned long long)o1, n2 ? n2 : "-", (unsigned long long)o2);
					fail++;
				}
			}
		}
	}
	convert_symidx_free(ix);
	dwfl_end(dwfl);
	return fail ? T_FAIL : T_OK;
}

static int test_self(void)
{
	size_t n = 0;
	int r = compare_module("/proc/self/exe", 4000, 1, &n);

	T_ASSERT(r != T_FAIL);
	T_ASSERT(n > 1000);
	return r;
}

static int test_libc(void)
{
	static const char *const libs[] = { "/usr/lib/x86_64-linux-gnu/libc.so.6", "/lib64/libc.so.6",
					     "/usr/lib64/libc.so.6" };
	size_t i, n = 0;

	for (i = 0; i < sizeof(libs) / sizeof(libs[0]); i++)
		if (access(libs[i], R_OK) == 0) {
			int r = compare_module(libs[i], 1000, 40, &n);

			T_ASSERT(r != T_FAIL);
			T_ASSERT(n > 2000);
			return r;
		}
	return T_SKIP;
}

static const struct t_case cases[] = {
	{ "same answers as dwfl_module_addrinfo: this binary", test_self },
	{ "same answers as dwfl_module_addrinfo: libc", test_libc },
};

T_MAIN(cases)
