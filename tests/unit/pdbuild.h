/* SPDX-License-Identifier: MIT */
/*
 * Building small perf.data files by hand for the unit tests (reader and convert): one attr (id 7,
 * sample_id_all with TID|TIME|IDENTIFIER trailers) and the records the tests need.
 * Not a test itself: only the .c files under tests/unit are.
 */
#ifndef PGO_TESTS_PDBUILD_H
#define PGO_TESTS_PDBUILD_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "collect/pdformat.h"
#include "lib/buf.h"

static inline void pdb_put(struct pgo_buf *b, const void *p, size_t n)
{
	pgo_buf_add(b, p, n);
}

static inline void pdb_put64(struct pgo_buf *b, uint64_t v)
{
	pdb_put(b, &v, 8);
}

static inline void pdb_put32(struct pgo_buf *b, uint32_t v)
{
	pdb_put(b, &v, 4);
}

static inline void pdb_hdr(struct pgo_buf *b, uint32_t type, uint16_t misc, uint16_t size)
{
	pdb_put32(b, type);
	pdb_put(b, &misc, 2);
	pdb_put(b, &size, 2);
}

static inline void pdb_trailer(struct pgo_buf *b, uint32_t pid, uint32_t tid, uint64_t time)
{
	pdb_put32(b, pid);
	pdb_put32(b, tid);
	pdb_put64(b, time);
	pdb_put64(b, 7);
}

static inline void pdb_comm(struct pgo_buf *b, uint32_t pid, uint64_t time)
{
	static const char name[16] = "bench";

	pdb_hdr(b, PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC, 8 + 8 + 16 + 24);
	pdb_put32(b, pid);
	pdb_put32(b, pid);
	pdb_put(b, name, 16);
	pdb_trailer(b, pid, pid, time);
}

static inline void pdb_fork(struct pgo_buf *b, uint32_t pid, uint32_t ppid, uint32_t tid,
			    uint64_t time)
{
	pdb_hdr(b, PERF_RECORD_FORK, 0, 8 + 24 + 24);
	pdb_put32(b, pid);
	pdb_put32(b, ppid);
	pdb_put32(b, tid);
	pdb_put32(b, ppid);
	pdb_put64(b, time);
	pdb_trailer(b, pid, tid, time);
}

static inline void pdb_mmap2(struct pgo_buf *b, uint32_t pid, uint64_t start, uint64_t len,
			     uint64_t pgoff, const char *file, uint64_t time)
{
	char pad[4096 + 8] = { 0 };
	size_t flen = ((strlen(file) + 1) + 7) & ~(size_t)7;

	pdb_hdr(b, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, 8 + 64 + flen + 24);
	pdb_put32(b, pid);
	pdb_put32(b, pid);
	pdb_put64(b, start);
	pdb_put64(b, len);
	pdb_put64(b, pgoff);
	pdb_put64(b, 0);
	pdb_put64(b, 0);
	pdb_put64(b, 0);
	pdb_put32(b, 5);
	pdb_put32(b, 2);
	memcpy(pad, file, strlen(file));
	pdb_put(b, pad, flen);
	pdb_trailer(b, pid, pid, time);
}

/* Header + attr (ids {7}) + records; the whole file image in b. */
static inline void pdb_file(struct pgo_buf *b, const struct pgo_buf *records, uint64_t sample_type,
			    uint64_t branch_sample_type)
{
	struct pd_file_header h;
	struct perf_event_attr attr;
	uint64_t ids_off;

	memset(&h, 0, sizeof(h));
	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_TASK_CLOCK;
	attr.size = sizeof(attr);
	attr.sample_type = sample_type;
	attr.branch_sample_type = branch_sample_type;
	attr.sample_id_all = 1;
	attr.sample_period = 1000;
	ids_off = sizeof(h) + sizeof(attr) + 16;
	memcpy(h.magic, PD_MAGIC, 8);
	h.size = sizeof(h);
	h.attr_size = sizeof(attr) + 16;
	h.attrs.offset = sizeof(h);
	h.attrs.size = sizeof(attr) + 16;
	h.data.offset = ids_off + 8;
	h.data.size = records->len;
	pdb_put(b, &h, sizeof(h));
	pdb_put(b, &attr, sizeof(attr));
	pdb_put64(b, ids_off);
	pdb_put64(b, 8);
	pdb_put64(b, 7);
	pdb_put(b, records->data, records->len);
}

/*
 * Append a CMDLINE feature section to a file from pdb_file() (its index goes right after
 * the data section, where readers look) and set its bit in the header.
 */
static inline void pdb_add_cmdline(struct pgo_buf *b, const char *const *words, size_t n)
{
	struct pd_file_header h;
	uint64_t size = 4;
	size_t i;

	for (i = 0; i < n; i++)
		size += 4 + ((strlen(words[i]) + 8) & ~(size_t)7);
	memcpy(&h, b->data, sizeof(h));
	h.adds_features[0] |= 1ULL << PD_FEAT_CMDLINE;
	memcpy(b->data, &h, sizeof(h));
	pdb_put64(b, b->len + 16);
	pdb_put64(b, size);
	pdb_put32(b, (uint32_t)n);
	for (i = 0; i < n; i++) {
		static const char zeros[8];
		size_t sl = strlen(words[i]), len = (sl + 8) & ~(size_t)7;

		pdb_put32(b, (uint32_t)len);
		pdb_put(b, words[i], sl);
		pdb_put(b, zeros, len - sl); /* NUL-terminated, padded to 8 */
	}
}

/* The executable mapping that contains fn, from /proc/self/maps. */
static inline int pdb_self_map(uintptr_t fn, uint64_t *start, uint64_t *end, uint64_t *pgoff,
			       char *path, size_t n)
{
	char line[4096];
	FILE *fp = fopen("/proc/self/maps", "r");
	int found = 0;

	if (!fp)
		return -1;
	while (!found && fgets(line, sizeof(line), fp)) {
		unsigned long long s, e, o;
		char perms[8], file[4096] = "";

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095s", &s, &e, perms, &o, file) < 4)
			continue;
		if (fn >= s && fn < e) {
			*start = s;
			*end = e;
			*pgoff = o;
			snprintf(path, n, "%s", file);
			found = 1;
		}
	}
	fclose(fp);
	return found ? 0 : -1;
}

/* Write b to a fresh /tmp file; its name in path. */
static inline int pdb_write(const struct pgo_buf *b, const char *tag, char *path, size_t n)
{
	FILE *fp;

	snprintf(path, n, "/tmp/pgo-%s-%d.data", tag, (int)getpid());
	fp = fopen(path, "wb");
	if (!fp)
		return -1;
	if (b->len)
		fwrite(b->data, 1, b->len, fp);
	return fclose(fp);
}

#endif
