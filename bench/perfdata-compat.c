// SPDX-License-Identifier: MIT
/*
 * perfdata-compat: make a copy of a perf.data that Debian's create_gcov 0.19 can parse, for the
 * convert benchmark. Its perf parser (quipper) stops at record types it does not know, and perf
 * 6.1 writes PERF_RECORD_KSYMBOL (17) and PERF_RECORD_BPF_EVENT (18) records whenever BPF
 * programs are loaded on the machine (they are, here), so create_gcov ends with an empty
 * profile. Those records carry no samples: each is retyped in place as PERF_RECORD_FINISHED_ROUND
 * (68), which every reader skips by its size. Samples, mmaps and headers are left untouched.
 *   perfdata-compat IN OUT
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	FILE *f;
	long len;
	unsigned char *b;
	uint64_t off, size, pos;
	unsigned changed = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: perfdata-compat IN OUT\n");
		return 64;
	}
	if (!(f = fopen(argv[1], "rb")) || fseek(f, 0, SEEK_END) || (len = ftell(f)) < 104 ||
	    fseek(f, 0, SEEK_SET)) {
		fprintf(stderr, "perfdata-compat: cannot read '%s'\n", argv[1]);
		return 2;
	}
	if (!(b = malloc(len)) || fread(b, 1, len, f) != (size_t)len || memcmp(b, "PERFILE2", 8)) {
		fprintf(stderr, "perfdata-compat: '%s' is not a perf.data file\n", argv[1]);
		return 2;
	}
	fclose(f);
	memcpy(&off, b + 40, 8);
	memcpy(&size, b + 48, 8);
	if (off > (uint64_t)len || size > (uint64_t)len - off) {
		fprintf(stderr, "perfdata-compat: '%s': data section out of bounds\n", argv[1]);
		return 2;
	}
	for (pos = off; pos + 8 <= off + size;) {
		uint32_t type;
		uint16_t rsize;
		memcpy(&type, b + pos, 4);
		memcpy(&rsize, b + pos + 6, 2);
		if (rsize < 8)
			break;
		if (type == 17 || type == 18) {
			type = 68;
			memcpy(b + pos, &type, 4);
			changed++;
		}
		pos += rsize;
	}
	if (!(f = fopen(argv[2], "wb")) || fwrite(b, 1, len, f) != (size_t)len || fclose(f)) {
		fprintf(stderr, "perfdata-compat: cannot write '%s'\n", argv[2]);
		return 2;
	}
	fprintf(stderr, "perfdata-compat: %u KSYMBOL/BPF_EVENT records retyped\n", changed);
	free(b);
	return 0;
}
