// SPDX-License-Identifier: MIT
/*
 * Code with no unwind information at all: run_jit() calls a spin loop copied into an
 * anonymous executable mapping (what a JIT does), until MS milliseconds of CPU went by.
 * No file backs the loop, so no CFI describes it: a profiler must end such stacks at the
 * JIT frame, not guess. Usage: jit-spin [MS] (default 300).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

/* mov $N, %rcx; 1: dec %rcx; jnz 1b; ret */
static const unsigned char spin_code[] = {
	0x48, 0xb9, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x48, 0xff, 0xc9, 0x75, 0xfb, 0xc3,
};

static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

__attribute__((noinline)) static void run_jit(void (*fn)(void))
{
	fn();
	__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	double ms = argc > 1 ? atof(argv[1]) : 300, t0 = cpu_ms();
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	void (*fn)(void);

	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	memcpy(p, spin_code, sizeof(spin_code));
	fn = (void (*)(void))p;
	printf("jit %p\n", p);
	fflush(stdout);
	while (cpu_ms() - t0 < ms)
		run_jit(fn);
	return 0;
}
