// SPDX-License-Identifier: MIT
/*
 * cputime: run a command and print the CPU time its process tree used (user + system, from
 * wait4's rusage, in seconds with microsecond resolution), then the wall time. The benchmark's
 * primary metric: the two cores here are shared, so wall time also measures the neighbours'
 * load, while the CPU time a program consumes depends much less on it.
 *   cputime [-o FILE] [-m] CMD...   prints "CPU WALL" (to FILE if given); stdout of CMD goes to
 *                                   /dev/null; -m adds a third field, the peak RSS in KiB of the
 *                                   largest process of the tree (ru_maxrss)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	const char *out = NULL;
	struct timespec t0, t1;
	struct rusage ru;
	int status, i = 1;
	pid_t pid;
	FILE *f = stdout;
	int rss = 0;

	if (argc > 2 && !strcmp(argv[1], "-o")) {
		out = argv[2];
		i = 3;
	}
	if (i < argc && !strcmp(argv[i], "-m")) {
		rss = 1;
		i++;
	}
	if (i >= argc) {
		fprintf(stderr, "usage: cputime [-o FILE] [-m] CMD...\n");
		return 64;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	if (pid < 0) {
		perror("cputime: fork");
		return 2;
	}
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);
		if (fd >= 0)
			dup2(fd, 1);
		execvp(argv[i], argv + i);
		fprintf(stderr, "cputime: cannot run '%s': %s\n", argv[i], strerror(errno));
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) < 0) {
		perror("cputime: wait4");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (out && !(f = fopen(out, "w"))) {
		perror(out);
		return 2;
	}
	fprintf(f, "%.6f %.6f",
		ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6,
		(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	if (rss)
		fprintf(f, " %ld", ru.ru_maxrss);
	fputc('\n', f);
	if (f != stdout)
		fclose(f);
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "cputime: '%s' failed (status %d)\n", argv[i], status);
		return 2;
	}
	return 0;
}
