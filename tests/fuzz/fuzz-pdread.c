// SPDX-License-Identifier: MIT
/* libFuzzer target: the perf.data reader (collect/pdread.h), header, features and records. */
#include <stdint.h>
#include <unistd.h>

#include "collect/pdread.h"
#include "tests/fuzz/memfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct collect_pdread *r = NULL;
	struct collect_pd_event ev;
	char path[64];
	int fd = fuzz_memfile(data, size, path, sizeof(path));
	size_t i, n = 0;

	if (collect_pdread_open(path, &r) == 0) {
		for (i = 0; i < collect_pdread_nr_attrs(r); i++)
			(void)collect_pdread_attr(r, i)->name;
		for (i = 0; i < collect_pdread_nr_build_ids(r); i++)
			(void)collect_pdread_build_id(r, i)->filename;
		(void)collect_pdread_cmdline(r);
		/* bounded: a reader that never reaches the end would be a hang */
		while (n++ < 1000000 && collect_pdread_next(r, &ev) > 0)
			;
		collect_pdread_free(r);
	}
	close(fd);
	return 0;
}
