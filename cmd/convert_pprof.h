/* SPDX-License-Identifier: MIT */
/* pgo convert --to pprof (cmd/convert_pprof.c). Returns a PGO_EXIT_* code. */
#ifndef PGO_CMD_CONVERT_PPROF_H
#define PGO_CMD_CONVERT_PPROF_H

struct convert_options;

/* Load o's inputs with stacks and write them as pprof to out (NULL: <binary>.pb.gz). */
int cmd_convert_pprof(struct convert_options *o, const char *out);

#endif
