// SPDX-License-Identifier: MIT
/*
 * A small multi-threaded request server on the loopback address, and its load generator,
 * for the attach tests (t1301) and bench/attach.sh. Build it the default way: -O2 -g,
 * no frame pointers.
 *
 *   server serve PORTFILE THREADS   listen on 127.0.0.1 (a free port, written to PORTFILE);
 *                                   THREADS workers block in accept(), then serve one
 *                                   connection each: read a request, handle_request(),
 *                                   write the answer, until the client closes
 *   server load PORT CONNS SECONDS [PER_CONN]
 *                                   CONNS clients sending requests one after another for
 *                                   SECONDS, reconnecting after PER_CONN requests (default:
 *                                   never); prints "requests N rps R errors E"
 *
 * A request is 64 bytes: a u32 round count and 60 bytes of payload; the answer is the
 * 8-byte checksum handle_request() computes over the payload, rounds times.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define REQ_SIZE 64
#define ROUNDS 2000

static int listen_fd;

static int read_full(int fd, void *buf, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = read(fd, (char *)buf + got, n - got);

		if (r <= 0)
			return -1;
		got += (size_t)r;
	}
	return 0;
}

static int write_full(int fd, const void *buf, size_t n)
{
	size_t put = 0;

	while (put < n) {
		ssize_t r = write(fd, (const char *)buf + put, n - put);

		if (r <= 0)
			return -1;
		put += (size_t)r;
	}
	return 0;
}

/* The request handler: a checksum of the payload, rounds times (the hot loop). */
__attribute__((noinline)) uint64_t handle_request(const unsigned char *req, size_t n)
{
	uint32_t rounds;
	uint64_t h = 1469598103934665603ULL;
	uint32_t r;
	size_t i;

	memcpy(&rounds, req, sizeof(rounds));
	if (rounds > 100000)
		rounds = 100000;
	for (r = 0; r < rounds; r++) {
		for (i = 4; i < n; i++) {
			h ^= req[i] + r;
			h *= 1099511628211ULL;
		}
		h = (h << 7) | (h >> 57);
	}
	return h;
}

/* One connection: requests until the client closes it. */
static void serve_conn(int fd)
{
	unsigned char req[REQ_SIZE];

	while (!read_full(fd, req, sizeof(req))) {
		uint64_t h = handle_request(req, sizeof(req));

		if (write_full(fd, &h, sizeof(h)))
			break;
	}
	close(fd);
}

static void *worker(void *arg)
{
	(void)arg;
	for (;;) {
		int fd = accept(listen_fd, NULL, NULL);

		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			return NULL;
		}
		serve_conn(fd);
	}
}

static int serve(const char *portfile, int threads)
{
	struct sockaddr_in a;
	socklen_t len = sizeof(a);
	pthread_t *t = calloc((size_t)threads, sizeof(*t));
	FILE *fp;
	int i, one = 1;

	listen_fd = socket(AF_INET, SOCK_STREAM, 0);
	if (listen_fd < 0 || !t)
		return 1;
	setsockopt(listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(listen_fd, (struct sockaddr *)&a, sizeof(a)) || listen(listen_fd, 128) ||
	    getsockname(listen_fd, (struct sockaddr *)&a, &len)) {
		perror("server: listen");
		return 1;
	}
	for (i = 0; i < threads; i++)
		if (pthread_create(&t[i], NULL, worker, NULL)) {
			perror("server: pthread_create");
			return 1;
		}
	fp = fopen(portfile, "w");
	if (!fp || fprintf(fp, "%d\n", ntohs(a.sin_port)) < 0 || fclose(fp))
		return 1;
	for (i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	return 0;
}

struct load {
	int port;
	unsigned long per_conn;
	double seconds;
	unsigned long requests, errors;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int dial(int port)
{
	struct sockaddr_in a;
	int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;

	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	a.sin_port = htons((uint16_t)port);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

static void *client(void *arg)
{
	struct load *l = arg;
	unsigned char req[REQ_SIZE];
	uint32_t rounds = ROUNDS;
	uint64_t h;
	double end = now() + l->seconds;
	unsigned long on_conn = 0;
	int fd = dial(l->port);
	size_t i;

	if (fd < 0) {
		l->errors++;
		return NULL;
	}
	for (i = 4; i < sizeof(req); i++)
		req[i] = (unsigned char)(i * 7);
	memcpy(req, &rounds, sizeof(rounds));
	while (now() < end) {
		if (l->per_conn && on_conn == l->per_conn) {
			close(fd);
			on_conn = 0;
			fd = dial(l->port);
			if (fd < 0) {
				l->errors++;
				return NULL;
			}
		}
		if (write_full(fd, req, sizeof(req)) || read_full(fd, &h, sizeof(h))) {
			l->errors++;
			break;
		}
		l->requests++;
		on_conn++;
		req[5] = (unsigned char)h;
	}
	close(fd);
	return NULL;
}

static int load(int port, int conns, double seconds, unsigned long per_conn)
{
	pthread_t *t = calloc((size_t)conns, sizeof(*t));
	struct load *l = calloc((size_t)conns, sizeof(*l));
	unsigned long req = 0, err = 0;
	double t0 = now(), el;
	int i;

	if (!t || !l)
		return 1;
	for (i = 0; i < conns; i++) {
		l[i].port = port;
		l[i].seconds = seconds;
		l[i].per_conn = per_conn;
		if (pthread_create(&t[i], NULL, client, &l[i]))
			return 1;
	}
	for (i = 0; i < conns; i++) {
		pthread_join(t[i], NULL);
		req += l[i].requests;
		err += l[i].errors;
	}
	el = now() - t0;
	printf("requests %lu rps %.1f errors %lu\n", req, req / el, err);
	return err ? 1 : 0;
}

int main(int argc, char **argv)
{
	signal(SIGPIPE, SIG_IGN);
	if (argc == 4 && !strcmp(argv[1], "serve"))
		return serve(argv[2], atoi(argv[3]));
	if ((argc == 5 || argc == 6) && !strcmp(argv[1], "load"))
		return load(atoi(argv[2]), atoi(argv[3]), atof(argv[4]),
			    argc == 6 ? strtoul(argv[5], NULL, 10) : 0);
	fprintf(stderr, "usage: server serve PORTFILE THREADS | "
		"server load PORT CONNS SECONDS [PER_CONN]\n");
	return 64;
}
