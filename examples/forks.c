// SPDX-License-Identifier: MIT
/*
 * A benchmark that starts children: one fork+exec of itself ("forks exec-child", which
 * burns CPU in exec_child_spin) and one fork without exec (burns in forked_child_spin),
 * while the parent burns in parent_spin. Each process prints "pid ROLE PID".
 *
 * usage: forks [MS]   MS (default 200) = CPU ms per process
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "burn.h"

static uint64_t sink;

/* The process's CPU clock: the children's time is their own after fork. */
static inline __attribute__((always_inline)) uint64_t burn(uint64_t ns)
{
	return burn_clock(CLOCK_PROCESS_CPUTIME_ID, ns);
}

__attribute__((noinline)) void parent_spin(uint64_t ns) { sink += burn(ns); }
__attribute__((noinline)) void forked_child_spin(uint64_t ns) { sink += burn(ns); }
__attribute__((noinline)) void exec_child_spin(uint64_t ns) { sink += burn(ns); }

static void say(const char *role)
{
	printf("pid %s %ld\n", role, (long)getpid());
	fflush(stdout);
}

int main(int argc, char **argv)
{
	long ms = 200;
	uint64_t ns;
	pid_t a, b;
	int st, rc = 0;
	char arg[32], self[4096];
	ssize_t len;

	if (argc > 2 && !strcmp(argv[1], "exec-child")) {
		ns = (uint64_t)atol(argv[2]) * 1000000ULL;
		say("exec-child");
		exec_child_spin(ns);
		return 0;
	}
	if (argc > 1)
		ms = atol(argv[1]);
	if (ms <= 0) {
		fprintf(stderr, "usage: forks [MS]\n");
		return 2;
	}
	ns = (uint64_t)ms * 1000000ULL;
	say("parent");
	snprintf(arg, sizeof(arg), "%ld", ms);
	/* exec the file itself (not /proc/self/exe), so the child's comm is "forks" too */
	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (len <= 0)
		return 1;
	self[len] = '\0';
	a = fork();
	if (a == 0) {
		execl(self, argv[0], "exec-child", arg, (char *)NULL);
		_exit(127);
	}
	b = fork();
	if (b == 0) {
		say("forked-child");
		forked_child_spin(ns);
		_exit(0);
	}
	parent_spin(ns);
	if (a < 0 || b < 0)
		return 1;
	if (waitpid(a, &st, 0) != a || !WIFEXITED(st) || WEXITSTATUS(st))
		rc = 1;
	if (waitpid(b, &st, 0) != b || !WIFEXITED(st) || WEXITSTATUS(st))
		rc = 1;
	return rc;
}
