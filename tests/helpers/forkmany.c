// SPDX-License-Identifier: MIT
/*
 * A shell-like workload: N children one after another (fork, no exec), each burning MS
 * milliseconds of its own CPU in child_spin before it exits. t2006: the unwinder keeps
 * a Dwfl only for processes that are alive.
 *
 * usage: forkmany N MS
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile uint64_t sink;

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

__attribute__((noinline)) void child_spin(uint64_t ns)
{
	uint64_t end = cpu_ns() + ns, x = 1;

	while (cpu_ns() < end)
		for (int i = 0; i < 1000; i++)
			x = x * 6364136223846793005u + 1;
	sink = x;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100, ms = argc > 2 ? atoi(argv[2]) : 5;

	for (int i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (!pid) {
			child_spin((uint64_t)ms * 1000000u);
			_exit(0);
		}
		if (waitpid(pid, NULL, 0) < 0) {
			perror("waitpid");
			return 1;
		}
	}
	return 0;
}
