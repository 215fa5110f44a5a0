// SPDX-License-Identifier: MIT
/* libFuzzer target: the .afdo reader behind `pgo convert --dump` (any gcov/AutoFDO file). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "convert/afdo.h"
#include "tests/fuzz/memfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *sink;
	char path[64];
	int fd = fuzz_memfile(data, size, path, sizeof(path));

	if (!sink)
		sink = fopen("/dev/null", "w");
	if (!sink)
		abort();
	convert_afdo_dump(path, sink);
	close(fd);
	return 0;
}
