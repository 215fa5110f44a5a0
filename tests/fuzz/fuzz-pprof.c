// SPDX-License-Identifier: MIT
/* libFuzzer target: the pprof reader (convert/pprof_read.h), gzip or plain protobuf. */
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "convert/pprof_read.h"
#include "tests/fuzz/memfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct convert_pprof_read_stats st;
	char path[64], out[64];
	int fd = fuzz_memfile(data, size, path, sizeof(path));

	snprintf(out, sizeof(out), "/tmp/fuzz-pprof.%d.data", (int)getpid());
	if (convert_pprof_to_perfdata(path, out, &st) == 0)
		unlink(out);
	close(fd);
	return 0;
}
