// SPDX-License-Identifier: MIT
/*
 * The main hub: `pgo <command>` and the dashed forms pgo-collect, pgo-convert and
 * pgo-gate ("pgo-xxx" is the same as "pgo xxx", as in git and perf).
 */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/builtin.h"
#include "lib/report.h"

struct cmd_struct {
	const char *cmd;
	int (*fn)(int argc, char **argv);
	const char *help;
};

static const struct cmd_struct commands[] = {
	{ "collect", cmd_collect, "run a benchmark and record on-CPU and off-CPU profiles (perf.data)" },
	{ "convert", cmd_convert, "turn samples into AutoFDO/LLVM profiles, folded stacks, flamegraphs, JSON" },
	{ "gate", cmd_gate, "compare a commit's profile with the baseline; fail on regressions beyond noise" },
};

static void usage(FILE *fp)
{
	size_t i;

	fprintf(fp, "usage: pgo [--version] [--help] <command> [<args>]\n\n"
		    "pgo turns a benchmark run into a faster binary and keeps it fast in CI.\n\n"
		    "commands:\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(fp, "   %-9s %s\n", commands[i].cmd, commands[i].help);
	fprintf(fp, "\nThe dashed forms pgo-collect, pgo-convert and pgo-gate are the same commands.\n"
		    "'pgo <command> --help' describes a command, with examples.\n\n"
		    "exit codes: 0 ok, 1 regression found (gate), 2 error, 64 usage;\n"
		    "pgo collect exits with the benchmark's own status (128+N if killed by signal N).\n");
}

static const struct cmd_struct *find_cmd(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(commands[i].cmd, name))
			return &commands[i];
	return NULL;
}

/* git's run_builtin: a full disk or closed pipe on stdout is an error, not a success. */
static int check_stdout(int ret)
{
	struct stat st;

	if (fstat(fileno(stdout), &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)))
		return ret;
	if (fflush(stdout) || ferror(stdout) || fclose(stdout)) {
		if (ret == PGO_EXIT_OK) /* a failed command has reported its error already */
			pgo_error_errno("write failure on standard output");
		return ret == PGO_EXIT_OK ? PGO_EXIT_ERROR : ret;
	}
	return ret;
}

static int run(const struct cmd_struct *c, int argc, char **argv)
{
	static char prog[64];

	snprintf(prog, sizeof(prog), "pgo %s", c->cmd);
	pgo_report_set_prog(prog);
	return check_stdout(c->fn(argc, argv));
}

int main(int argc, char **argv)
{
	const struct cmd_struct *c;
	char *base, *tmp;

	tmp = strdup(argv[0] ? argv[0] : "pgo");
	if (!tmp)
		return PGO_EXIT_ERROR;
	base = basename(tmp);
	if (!strncmp(base, "pgo-", 4)) {
		c = find_cmd(base + 4);
		if (!c) {
			fprintf(stderr, "pgo: '%s' is not a pgo command\n", base);
			free(tmp);
			return PGO_EXIT_USAGE;
		}
		free(tmp);
		return run(c, argc, argv);
	}
	free(tmp);

	if (argc < 2) {
		usage(stderr);
		return PGO_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("pgo version %s\n", PGO_VERSION);
		return check_stdout(PGO_EXIT_OK);
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		if (argc > 2 && (c = find_cmd(argv[2]))) {
			char *av[] = { argv[2], (char *)"--help", NULL };

			return run(c, 2, av);
		}
		usage(stdout);
		return check_stdout(PGO_EXIT_OK);
	}
	c = find_cmd(argv[1]);
	if (!c) {
		fprintf(stderr, "pgo: '%s' is not a pgo command; see 'pgo --help'\n", argv[1]);
		return PGO_EXIT_USAGE;
	}
	return run(c, argc - 1, argv + 1);
}
