// SPDX-License-Identifier: MIT
/* pgo collect: placeholder until the module lands (see issues). */
#include <stdio.h>
#include <string.h>

#include "cmd/builtin.h"
#include "lib/report.h"

int cmd_collect(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--help")) {
		printf("usage: pgo collect ... (not built yet)\n");
		return PGO_EXIT_OK;
	}
	pgo_error("'collect' is not implemented yet");
	return PGO_EXIT_ERROR;
}
