// SPDX-License-Identifier: MIT
/*
 * Waits through libc, in a program built the default way (-O2 -g, no frame pointers: the
 * Makefile builds tests/helpers/nofp-* without -fno-omit-frame-pointer). Every wait is
 * made by a function of known callers, so a test knows each stack's truth:
 *
 *   main -> run_rounds -> one_round -> wait_nanosleep -> nanosleep
 *                                   -> wait_pipe      -> read (a pipe another thread fills)
 *                                   -> wait_mutex     -> pthread_mutex_lock (held elsewhere)
 *                                   -> wait_cond      -> pthread_cond_wait
 *                                   -> raise_signal   -> kill -> [signal] on_signal -> wait_in_handler -> nanosleep
 *   worker thread: start_thread -> worker_main -> one_round -> (the same)
 *   child process (fork): main -> run_child -> one_round -> (the same)
 *   holder thread: start_thread -> holder_main -> hold_and_release -> nanosleep
 *
 * Usage: nofp-waits [ROUNDS [MS]]: ROUNDS rounds of waits of MS ms each (default 4 x 20).
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))
/* keep the caller's frame: no tail calls */
#define KEEP() __asm__ volatile("" ::: "memory")

static long ms = 20;
static int rounds = 4;
static volatile long sink;

struct chan {
	int pipe[2];
	pthread_mutex_t lock;      /* held by the holder while a waiter blocks on it */
	pthread_mutex_t cond_lock;
	pthread_cond_t cond;
	int signalled;
};

static struct chan chans[2];

static void sleep_ms(long n)
{
	struct timespec ts = { n / 1000, (n % 1000) * 1000000L };

	while (nanosleep(&ts, &ts))
		;
}

static NOINLINE void wait_nanosleep(void)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
	KEEP();
}

static NOINLINE void wait_pipe(struct chan *c)
{
	char b;

	if (read(c->pipe[0], &b, 1) != 1)
		abort();
	KEEP();
}

static NOINLINE void wait_mutex(struct chan *c)
{
	pthread_mutex_lock(&c->lock);
	KEEP();
	pthread_mutex_unlock(&c->lock);
}

static NOINLINE void wait_cond(struct chan *c)
{
	pthread_mutex_lock(&c->cond_lock);
	while (!c->signalled)
		pthread_cond_wait(&c->cond, &c->cond_lock);
	c->signalled = 0;
	KEEP();
	pthread_mutex_unlock(&c->cond_lock);
}

static NOINLINE void wait_in_handler(void)
{
	/* half as long: not the same code as wait_nanosleep, which gcc would fold into one */
	struct timespec ts = { ms / 2000, (ms % 2000) * 500000L };

	nanosleep(&ts, NULL);
	KEEP();
}

static void on_signal(int sig)
{
	(void)sig;
	wait_in_handler();
	KEEP();
}

static NOINLINE void raise_signal(void)
{
	kill(getpid(), SIGUSR1);
	KEEP();
}

/*
 * The holder thread feeds one channel: it takes the mutex before the waiter wants it and
 * lets go after ms, writes the pipe after ms, signals the condition after ms.
 */
static NOINLINE void hold_and_release(struct chan *c)
{
	sleep_ms(2 * ms);                   /* the waiter sleeps, then blocks in read */
	if (write(c->pipe[1], "x", 1) != 1)
		abort();
	sleep_ms(ms);                       /* ... in pthread_mutex_lock */
	pthread_mutex_unlock(&c->lock);
	sleep_ms(ms);                       /* ... in pthread_cond_wait */
	pthread_mutex_lock(&c->cond_lock);
	c->signalled = 1;
	pthread_cond_signal(&c->cond);
	pthread_mutex_unlock(&c->cond_lock);
	KEEP();
}

static void *holder_main(void *arg)
{
	struct chan *c = arg;
	int i;

	for (i = 0; i < rounds; i++) {
		pthread_mutex_lock(&c->lock);
		hold_and_release(c);
		sleep_ms(ms / 2 + 1);       /* the waiter takes and drops the lock */
	}
	return NULL;
}

static NOINLINE void one_round(struct chan *c, int with_signal)
{
	wait_nanosleep();
	wait_pipe(c);
	wait_mutex(c);
	wait_cond(c);
	if (with_signal)
		raise_signal();
	KEEP();
}

/* Rounds on channel c, with a holder thread feeding it. */
static NOINLINE void rounds_on(struct chan *c, int with_signal)
{
	pthread_t holder;
	int i;

	if (pipe(c->pipe))
		abort();
	pthread_mutex_init(&c->lock, NULL);
	pthread_mutex_init(&c->cond_lock, NULL);
	pthread_cond_init(&c->cond, NULL);
	if (pthread_create(&holder, NULL, holder_main, c))
		abort();
	for (i = 0; i < rounds; i++) {
		/* the holder's first sleep: the mutex is taken by then */
		one_round(c, with_signal);
		sink += i;
	}
	pthread_join(holder, NULL);
	KEEP();
}

static void *worker_main(void *arg)
{
	(void)arg;
	rounds_on(&chans[1], 0);
	KEEP();
	return NULL;
}

static NOINLINE int run_child(void)
{
	rounds_on(&chans[0], 0);
	KEEP();
	return 0;
}

static NOINLINE void run_rounds(void)
{
	pthread_t worker;
	pid_t child;
	int status;

	child = fork();
	if (child < 0)
		abort();
	if (child == 0)
		_exit(run_child());
	if (pthread_create(&worker, NULL, worker_main, NULL))
		abort();
	rounds_on(&chans[0], 1);
	pthread_join(worker, NULL);
	waitpid(child, &status, 0);
	KEEP();
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };

	if (argc > 1)
		rounds = atoi(argv[1]);
	if (argc > 2)
		ms = atol(argv[2]);
	sigaction(SIGUSR1, &sa, NULL);
	run_rounds();
	printf("wait_nanosleep=%p wait_pipe=%p wait_mutex=%p wait_cond=%p\n", (void *)wait_nanosleep,
	       (void *)wait_pipe, (void *)wait_mutex, (void *)wait_cond);
	return 0;
}
