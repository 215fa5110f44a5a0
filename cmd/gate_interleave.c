// SPDX-License-Identifier: MIT
/* pgo gate check --build: build the merge-base in a worktree, run base and head alternately. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmd/gate_interleave.h"
#include "gate/input.h"
#include "lib/alloc.h"
#include "lib/report.h"

#define LOG_TAIL_LINES 20

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	interrupted = sig;
}

static const int caught[] = { SIGINT, SIGTERM, SIGHUP };

struct state {
	char dir[PATH_MAX];      /* the temporary directory: tree/, logs, perf.data files */
	char tree[PATH_MAX];     /* the base worktree */
	char workdir[PATH_MAX];  /* the repository's work tree (realpath) */
	int have_worktree;
	struct sigaction old[3];
};

/* An open session (cmd/gate_interleave.h): the built base and what a round needs. */
struct cmd_gate_interleave {
	struct state s;
	struct cmd_gate_interleave_opts o;
	char bbench[PATH_MAX];   /* the base's benchmark */
	char commit[GATE_OID_HEX];
	double build_s;
	unsigned int rounds;     /* rounds run (names the perf.data files) */
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Print the last LOG_TAIL_LINES lines of a log file to stderr, indented. */
static void print_tail(const char *path)
{
	char *buf = NULL;
	size_t len = 0, i, start;
	int lines = 0;
	FILE *f = fopen(path, "r");

	if (!f)
		return;
	{
		FILE *m = open_memstream(&buf, &len);
		char chunk[4096];
		size_t n;

		if (!m) {
			fclose(f);
			return;
		}
		while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
			fwrite(chunk, 1, n, m);
		fclose(m);
	}
	fclose(f);
	if (!buf)
		return;
	i = len;
	if (i && buf[i - 1] == '\n')
		i--;
	start = 0;
	while (i > 0) {
		if (buf[i - 1] == '\n' && ++lines == LOG_TAIL_LINES) {
			start = i;
			break;
		}
		i--;
	}
	fprintf(stderr, "---- last lines of %s ----\n", start ? "the log" : "the log (all of it)");
	fwrite(buf + start, 1, len - start, stderr);
	if (len && buf[len - 1] != '\n')
		fputc('\n', stderr);
	fputs("----\n", stderr);
	free(buf);
}

/*
 * Run argv (or "sh -c cmd" when cmd is set) in dir with stdout and stderr to log and stdin
 * from /dev/null, in its own process group (a signal to pgo ends it: the group gets
 * SIGTERM). Returns the exit status as a shell gives it (>= 0), or -1 after reporting.
 */
static int run_logged(const char *const *argv, const char *dir, const char *log)
{
	pid_t pid;
	int status, fd;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return pgo_error_errno("cannot fork");
	if (pid == 0) {
		setpgid(0, 0);
		fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			_exit(127);
		fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (fd < 0 || dup2(fd, 0) < 0)
			_exit(127);
		if (dir && chdir(dir)) {
			fprintf(stderr, "pgo gate: cannot enter '%s': %s\n", dir, strerror(errno));
			_exit(127);
		}
		execvp(argv[0], (char *const *)argv);
		fprintf(stderr, "pgo gate: cannot run '%s': %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	setpgid(pid, pid);
	for (;;) {
		pid_t w = waitpid(pid, &status, 0);

		if (w == pid)
			break;
		if (w < 0 && errno != EINTR)
			return pgo_error_errno("cannot wait for '%s'", argv[0]);
		if (interrupted)
			kill(-pid, SIGTERM);
	}
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

static void cleanup(struct state *s)
{
	char log[PATH_MAX + 16];
	int i;

	if (s->have_worktree) {
		const char *rm[] = { "git", "-C", s->workdir, "worktree", "remove", "--force", s->tree, NULL };

		if (snprintf(log, sizeof(log), "%s/git.log", s->dir) >= (int)sizeof(log) ||
		    run_logged(rm, NULL, log))
			pgo_warn("git worktree remove '%s' failed; removing the directory", s->tree);
	}
	if (s->dir[0])
		nftw(s->dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	if (s->have_worktree) {
		/* drops the administrative entry if the remove above did not */
		const char *prune[] = { "git", "-C", s->workdir, "worktree", "prune", NULL };

		run_logged(prune, NULL, "/dev/null");
	}
	for (i = 0; i < 3; i++)
		sigaction(caught[i], &s->old[i], NULL);
}

/*
 * The base's benchmark path: argv0 inside the work tree (relative to the current
 * directory `prefix` below the top, or absolute below the top), mapped into the base tree.
 */
static int base_path(const struct state *s, const char *prefix, const char *argv0, char *out,
		     size_t size)
{
	size_t wl = strlen(s->workdir);
	int n;

	if (argv0[0] == '/') {
		if (strncmp(argv0, s->workdir, wl) || (argv0[wl] != '/' && argv0[wl]))
			return pgo_error("the benchmark '%s' is outside the repository '%s': with "
					 "--build, give its path in the tree (e.g. ./bench) so each "
					 "side runs its own build", argv0, s->workdir);
		n = snprintf(out, size, "%s%s", s->tree, argv0 + wl);
	} else if (!strchr(argv0, '/')) {
		return pgo_error("the benchmark '%s' is found in PATH: with --build, give its path "
				 "in the tree (e.g. ./%s) so each side runs its own build", argv0,
				 argv0);
	} else {
		n = snprintf(out, size, "%s%s%s/%s", s->tree, *prefix ? "/" : "", prefix, argv0);
	}
	if (n < 0 || (size_t)n >= size)
		return pgo_error("the benchmark path '%s' is too long", argv0);
	return 0;
}

/* The work tree of the merge-base's repository, and the current directory below its top. */
static int find_workdir(struct state *s, const char *base, char commit[GATE_OID_HEX], char *cwd,
			size_t cwd_size, const char **prefix)
{
	char wd[PATH_MAX];
	size_t wl;

	if (gate_baseline_merge_base(".", base, commit, wd, sizeof(wd)))
		return -1;
	if (!realpath(wd, s->workdir) || !getcwd(cwd, cwd_size))
		return pgo_error_errno("cannot resolve the work tree '%s'", wd);
	wl = strlen(s->workdir);
	if (strncmp(cwd, s->workdir, wl) || (cwd[wl] != '/' && cwd[wl]))
		return pgo_error("the current directory '%s' is not inside the work tree '%s'", cwd,
				 s->workdir);
	*prefix = cwd[wl] ? cwd + wl + 1 : "";
	return 0;
}

/* The temporary directory and the base checked out in a worktree there. */
static int add_worktree(struct state *s, const char *commit)
{
	char log[PATH_MAX + 16];
	const char *tmp;
	int r;

	tmp = getenv("TMPDIR");
	if (!tmp || !*tmp)
		tmp = "/tmp";
	if (snprintf(s->dir, sizeof(s->dir), "%s/pgo-gate-base.XXXXXX", tmp) >= (int)sizeof(s->dir) ||
	    !mkdtemp(s->dir)) {
		pgo_error_errno("cannot create a temporary directory under '%s'", tmp);
		s->dir[0] = 0;
		return -1;
	}
	if (snprintf(s->tree, sizeof(s->tree), "%s/tree", s->dir) >= (int)sizeof(s->tree) ||
	    snprintf(log, sizeof(log), "%s/git.log", s->dir) >= (int)sizeof(log)) {
		pgo_error("the temporary directory '%s' has too long a name", s->dir);
		return -1;
	}
	{
		const char *add[] = { "git", "-C", s->workdir, "worktree", "add", "--detach", "--quiet",
				s->tree, commit, NULL };

		r = run_logged(add, NULL, log);
		if (r < 0)
			return -1;
		/* an entry may exist even when git failed halfway: remove it either way */
		s->have_worktree = 1;
		if (r) {
			pgo_error("cannot check out the base %.12s: git worktree add exited with %d",
				  commit, r);
			print_tail(log);
			return -1;
		}
	}
	return 0;
}

/* Run the build in the base tree; bbench: the base's benchmark, executable after it. */
static int build_base(const struct state *s, const struct cmd_gate_interleave_opts *o,
		      const char *prefix, const char *commit, char *bbench, size_t bbench_size,
		      double *build_s)
{
	char bdir[PATH_MAX], log[PATH_MAX + 16];
	double t0;
	int r;

	if (base_path(s, prefix, o->collect.argv[0], bbench, bbench_size))
		return -1;
	if (snprintf(bdir, sizeof(bdir), "%s%s%s", s->tree, *prefix ? "/" : "", prefix) >=
	    (int)sizeof(bdir) || snprintf(log, sizeof(log), "%s/build.log", s->dir) >= (int)sizeof(log)) {
		pgo_error("the base tree's path is too long ('%s')", s->tree);
		return -1;
	}
	pgo_info("interleaved: building the base %.12s in a worktree with '%s'", commit, o->build);
	t0 = now_s();
	{
		const char *sh[] = { "/bin/sh", "-c", o->build, NULL };

		r = run_logged(sh, bdir, log);
	}
	*build_s = now_s() - t0;
	if (r < 0)
		return -1;
	if (interrupted) {
		pgo_error("interrupted while building the base");
		return -1;
	}
	if (r) {
		pgo_error("the base %.12s does not build: '%s' exited with %d after %.1f s; "
			  "the gate cannot judge a change without its base", commit, o->build, r,
			  *build_s);
		print_tail(log);
		return -1;
	}
	if (access(bbench, X_OK)) {
		pgo_error("the build of the base left no executable '%s' (%s)", bbench,
			  strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * A B B A A B B A ...: pair j runs base then head when j is even, head then base when
 * odd; consecutive runs of one side are one collection (a block of 1 or 2 runs).
 * paths[side] gets each collection's file, tot[side] the totals.
 */
static int run_interleaved(const struct state *s, const struct cmd_gate_interleave_opts *o,
			   const char *bbench, unsigned int round, char **paths[2], size_t npaths[2],
			   struct cmd_gate_collect_stats tot[2])
{
	struct cmd_gate_collect_stats st;
	unsigned int runs = o->collect.runs, k;
	size_t i;
	int side;

	k = 0;
	for (i = 0; i < 2 * (size_t)runs; i += k) {
		struct cmd_gate_collect_opts c = o->collect;
		size_t j = i / 2;
		char path[PATH_MAX + 32];

		side = (int)((i % 2) ^ (j % 2)); /* 0 base, 1 head */
		k = 1;
		if (i + 1 < 2 * (size_t)runs && (int)(((i + 1) % 2) ^ (((i + 1) / 2) % 2)) == side)
			k = 2;
		if (interrupted) {
			pgo_error("interrupted after %zu of %u runs", i, 2 * runs);
			return -1;
		}
		if (snprintf(path, sizeof(path), "%s/%s-%u-%zu.data", s->dir, side ? "head" : "base",
			     round, npaths[side]) >= (int)sizeof(path)) {
			pgo_error("the temporary directory '%s' has too long a name", s->dir);
			return -1;
		}
		/*
		 * The base runs under the head's argv, argv[0] included: a program may keep its
		 * argv (lua puts argv[0] in a table, and a longer path moved its garbage
		 * collector's steps by 0.6% of the time), so both sides must see the same.
		 */
		c.file = side ? NULL : bbench;
		c.runs = k;
		c.quiet = 1;
		if (cmd_gate_collect_data(&c, path, &st))
			return -1;
		if (!(paths[side][npaths[side]] = pgo_strdup(path)))
			return -1;
		npaths[side]++;
		tot[side].runs += st.runs;
		tot[side].samples += st.samples;
		tot[side].cpu_ns += st.cpu_ns;
		tot[side].duration_ns += st.duration_ns;
	}
	return 0;
}

int cmd_gate_interleave_open(const struct cmd_gate_interleave_opts *o,
			     struct cmd_gate_interleave **out, char commit[GATE_OID_HEX])
{
	struct cmd_gate_interleave *x;
	char cwd[PATH_MAX];
	const char *prefix = "";
	struct sigaction sa;
	size_t i;

	*out = NULL;
	x = pgo_calloc(1, sizeof(*x));
	if (!x)
		return -1;
	x->o = *o;
	if (find_workdir(&x->s, o->base, x->commit, cwd, sizeof(cwd), &prefix)) {
		free(x);
		return -1;
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	interrupted = 0;
	for (i = 0; i < 3; i++)
		sigaction(caught[i], &sa, &x->s.old[i]);

	if (add_worktree(&x->s, x->commit) ||
	    build_base(&x->s, o, prefix, x->commit, x->bbench, sizeof(x->bbench), &x->build_s))
		goto fail;

	memcpy(commit, x->commit, GATE_OID_HEX);
	*out = x;
	return 0;
fail:
	cmd_gate_interleave_close(x);
	return -1;
}

int cmd_gate_interleave_run(struct cmd_gate_interleave *x, struct convert_stackset *bset,
			    struct convert_stackset *hset)
{
	char **paths[2] = { NULL, NULL };
	size_t npaths[2] = { 0, 0 }, i;
	struct cmd_gate_collect_stats tot[2] = { { 0 } };
	unsigned int runs = x->o.collect.runs;
	int err = -1, side;

	paths[0] = pgo_calloc(runs + 1, sizeof(char *));
	paths[1] = pgo_calloc(runs + 1, sizeof(char *));
	if (!paths[0] || !paths[1])
		goto out;
	if (run_interleaved(&x->s, &x->o, x->bbench, x->rounds, paths, npaths, tot))
		goto out;
	pgo_info("interleaved%s: base %.12s (built in %.1f s) and head, %u + %u runs alternating "
		 "(A B B A ...): %llu + %llu samples, %.2f + %.2f s CPU",
		 x->rounds ? " (confirmation)" : "", x->commit, x->build_s, tot[0].runs, tot[1].runs,
		 (unsigned long long)tot[0].samples, (unsigned long long)tot[1].samples,
		 tot[0].cpu_ns / 1e9, tot[1].cpu_ns / 1e9);
	if (gate_input_from_perfs((const char *const *)paths[0], npaths[0], bset) ||
	    gate_input_from_perfs((const char *const *)paths[1], npaths[1], hset))
		goto out;
	if (interrupted) {
		/* a signal after the last run: the data is whole, but the user asked to stop */
		pgo_error("interrupted");
		goto out;
	}
	err = 0;
out:
	x->rounds++;
	if (err) {
		convert_stackset_release(bset);
		convert_stackset_release(hset);
	}
	for (side = 0; side < 2; side++) {
		for (i = 0; paths[side] && i < npaths[side]; i++) {
			unlink(paths[side][i]);
			free(paths[side][i]);
		}
		free(paths[side]);
	}
	return err;
}

void cmd_gate_interleave_close(struct cmd_gate_interleave *x)
{
	if (!x)
		return;
	cleanup(&x->s);
	free(x);
}
