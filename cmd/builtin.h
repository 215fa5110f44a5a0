/* SPDX-License-Identifier: MIT */
/*
 * The command table's contract: every `pgo <cmd>` is an int cmd_<cmd>(argc, argv)
 * that parses its options, calls module APIs and returns one of the exit codes below.
 * Only cmd/ may exit().
 *
 * To add a command: write cmd/<name>.c with cmd_<name>(), declare it here, add a row to
 * the table in cmd/pgo.c, document it in README.md.
 */
#ifndef PGO_CMD_BUILTIN_H
#define PGO_CMD_BUILTIN_H

/* Exit codes, everywhere (README "Exit codes"). A broken tool never looks like a pass. */
enum pgo_exit {
	PGO_EXIT_OK = 0,
	PGO_EXIT_REGRESSION = 1, /* gate only: a regression beyond noise */
	PGO_EXIT_ERROR = 2,      /* bad input, environment, I/O */
	PGO_EXIT_USAGE = 64,     /* bad command line */
};

int cmd_collect(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_gate(int argc, char **argv);

#endif
