// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: collect/buildid.h's reader of an ELF file's build-id note (program
 * headers, PT_NOTE segments, note headers) on any file: never past its bounds, a size of
 * 0 to 20 bytes.
 */
#include <stdlib.h>
#include <unistd.h>

#include "collect/buildid.h"
#include "memfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t id[COLLECT_BUILD_ID_MAX];
	char path[64];
	int fd = fuzz_memfile(data, size, path, sizeof(path));

	if (collect_elf_build_id(fd, id) > COLLECT_BUILD_ID_MAX)
		abort();
	close(fd);
	return 0;
}
