/* SPDX-License-Identifier: MIT */
/*
 * Small programs built with gcc and clang in the ways that change DWARF (versions 4 and 5,
 * -O0/-O2, cold sections, -ffunction-sections, compressed sections, a shared library,
 * #line files), for the tests that read DWARF directly and compare with libdw
 * (convert-linetab, convert-scopetree). build_all() builds them once into dir;
 * dwarf_builds_cleanup() is a test case that removes them. Not a test itself.
 */
#ifndef PGO_TESTS_DWARF_BUILDS_H
#define PGO_TESTS_DWARF_BUILDS_H

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbolize/linetab.h"
#include "lib/alloc.h"
#include "tests/unit/test.h"

static char dir[] = "/tmp/pgo-dwarf.XXXXXX";

static inline int write_file(const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

static const char *a_c =
	"#include \"h.h\"\n"
	"__attribute__((cold, noinline)) int fail(int x) { return x * 3 - 1; }\n"
	"int work(int n) {\n"
	"\tint s = 0;\n"
	"\tfor (int i = 0; i < n; i++) {\n"
	"\t\ts += twice(i);\n"
	"\t\tif (i == 999983) s += fail(i);\n"
	"\t}\n"
	"\treturn s;\n"
	"}\n"
	"#line 700 \"generated.y\"\n"
	"int gen(int x) { return x ? gen(x - 1) + 2 : 0; }\n";
static const char *b_c =
	"#include \"h.h\"\n"
	"#include <stdlib.h>\n"
	"int work(int n); int gen(int x);\n"
	"int main(int argc, char **argv) {\n"
	"\tint n = argc > 1 ? atoi(argv[1]) : 100;\n"
	"\treturn (work(n) + gen(n & 7) + twice(n)) & 1;\n"
	"}\n";
static const char *h_h =
	"static inline int twice(int x) {\n"
	"\tif (x & 1)\n"
	"\t\treturn x * 2 + 1;\n"
	"\treturn x << 1;\n"
	"}\n";

/* cc, flags, output name; a.c b.c c.c are compiled */
static const char *const builds[][3] = {
	{ "gcc", "-O2 -g", "gcc-O2" },
	{ "gcc", "-O2 -gdwarf-4", "gcc-O2-d4" },
	{ "gcc", "-O0 -g", "gcc-O0" },
	{ "gcc", "-O2 -g -ffunction-sections -Wl,--gc-sections", "gcc-fsections" },
	/* libdw decompresses the sections in place: the reader must find them readable */
	{ "gcc", "-O2 -g -gdwarf-4", "gcc-gz" },
	{ "gcc", "-O2 -g -fPIC -shared", "gcc-so" },
	{ "clang", "-O2 -g", "clang-O2" },
	{ "clang", "-O2 -gdwarf-4 -fdebug-info-for-profiling", "clang-d4-prof" },
	{ "clang", "-O2 -g -fdebug-info-for-profiling -ffunction-sections", "clang-fsections" },
};

static int built;

static inline int build_all(void)
{
	char cmd[1024];
	size_t i;

	if (built)
		return built;
	built = -1;
	if (!mkdtemp(dir) || write_file("a.c", a_c) || write_file("b.c", b_c) || write_file("h.h", h_h))
		return -1;
	/* 200 more functions: enough line table that compressing it pays (objcopy skips it otherwise) */
	snprintf(cmd, sizeof(cmd), "cd %s && for i in $(seq 200); do echo \"int f$i(int x) { return x * $i + "
		 "(x >> 3); }\"; done >c.c", dir);
	if (system(cmd) != 0)
		return -1;
	for (i = 0; i < PGO_ARRAY_SIZE(builds); i++) {
		snprintf(cmd, sizeof(cmd), "cd %s && %s %s -o %s a.c b.c c.c", dir, builds[i][0], builds[i][1],
			 builds[i][2]);
		if (system(cmd) != 0) {
			printf("# failed: %s\n", cmd);
			return -1;
		}
	}
	snprintf(cmd, sizeof(cmd), "cd %s && objcopy --compress-debug-sections=zlib-gabi gcc-gz && "
		 "readelf -S -W gcc-gz | grep -Eq '\\.debug_line +PROGBITS .* C '", dir);
	if (system(cmd) != 0) {
		printf("# failed: %s\n", cmd);
		return -1;
	}
	built = 1;
	return 1;
}

static inline int dwarf_builds_cleanup(void)
{
	char cmd[300];

	if (built == 0)
		return t_skip("nothing was built");
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	T_ASSERT(system(cmd) == 0);
	return T_OK;
}

/*
 * fn(sections, unit DIE, path, arg) for every compile, partial and skeleton unit of the
 * ELF file at path, with the sections libdw reads. 0, or -1 (said why) if it cannot be read.
 */
static inline int dwarf_each_unit(const char *path,
			   void (*fn)(const struct symbolize_dwsecs *, Dwarf_Die *, const char *, void *), void *arg)
{
	struct symbolize_dwsecs s;
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie;
	uint8_t type;
	Dwarf *dw;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -1;
	dw = dwarf_begin(fd, DWARF_C_READ);
	if (!dw || symbolize_dwsecs_get(dw, &s) != 0) {
		printf("# %s: no .debug_line we can read\n", path);
		if (dw)
			dwarf_end(dw);
		close(fd);
		return -1;
	}
	while (dwarf_get_units(dw, cu, &cu, NULL, &type, &cudie, NULL) == 0)
		if (type == DW_UT_compile || type == DW_UT_partial || type == DW_UT_skeleton)
			fn(&s, &cudie, path, arg);
	dwarf_end(dw);
	close(fd);
	return 0;
}

/* The C library's separate debug file (libc6-dbg), by the build-id of libc.so.6: 0, or -1
 * (said why). */
static inline int libc_debug_file(char *path, size_t size)
{
	char id[128];
	FILE *p = popen("readelf -n /lib/x86_64-linux-gnu/libc.so.6 2>/dev/null | "
			"awk '/Build ID:/ { print $3; exit }'", "r");

	if (!p || !fgets(id, sizeof(id), p))
		id[0] = 0;
	if (p)
		pclose(p);
	id[strcspn(id, "\n")] = 0;
	snprintf(path, size, "/usr/lib/debug/.build-id/%.2s/%s.debug", id, id + 2);
	if (strlen(id) < 8 || access(path, R_OK) != 0) {
		printf("# no debug file for libc (%s): install libc6-dbg\n", path);
		return -1;
	}
	return 0;
}

#endif
