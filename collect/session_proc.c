// SPDX-License-Identifier: MIT
/*
 * A process that runs already when pgo attaches has had its COMM, thread forks and
 * mappings before any event saw them: they are synthesized from /proc, as perf record -p
 * does (tools/perf/util/synthetic-events.c): a COMM per thread, a FORK per thread other
 * than the main one, and an MMAP2 per executable mapping, with the file's build-id
 * (PERF_RECORD_MISC_MMAP_BUILD_ID, so the build-id feature and pgo convert match binaries
 * exactly as in a started recording). The records go to the writer and to the unwinder,
 * stamped with the time the recording started, before any ring record.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "collect/buildid.h"
#include "collect/collect.h"
#include "collect/pdwrite.h"
#include "collect/session_internal.h"
#include "lib/alloc.h"
#include "lib/report.h"

/* The sample_id_all trailer (session_drain.c's struct trailer): {pid,tid} {time} {cpu,res} {id}. */
#define TRAILER_SIZE 32
#define BUILD_ID_MAX COLLECT_BUILD_ID_MAX

size_t collect_elf_build_id(int fd, uint8_t id[COLLECT_BUILD_ID_MAX])
{
	Elf *elf;
	size_t n = 0, nph, i;

	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf)
		return 0;
	if (elf_kind(elf) != ELF_K_ELF || elf_getphdrnum(elf, &nph))
		goto out;
	for (i = 0; i < nph && !n; i++) {
		GElf_Phdr ph;
		GElf_Nhdr nh;
		Elf_Data *d;
		size_t off = 0, name_off, desc_off;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_NOTE)
			continue;
		d = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, ph.p_filesz,
					 ph.p_align == 8 ? ELF_T_NHDR8 : ELF_T_NHDR);
		if (!d)
			continue;
		while ((off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    !memcmp((const char *)d->d_buf + name_off, "GNU", 4) &&
			    nh.n_descsz >= 1 && nh.n_descsz <= BUILD_ID_MAX) {
				memcpy(id, (const char *)d->d_buf + desc_off, nh.n_descsz);
				n = nh.n_descsz;
				break;
			}
		}
	}
out:
	elf_end(elf);
	return n;
}

/*
 * The build-id of the file mapped at [start, end) of pid: through map_files (the very
 * file mapped, even if replaced or in another mount namespace), else the process's root.
 */
static size_t mapping_build_id(pid_t pid, unsigned long long start, unsigned long long end,
			       const char *path, uint8_t *id)
{
	char p[PATH_MAX + 64];
	size_t n;
	int fd;

	snprintf(p, sizeof(p), "/proc/%d/map_files/%llx-%llx", (int)pid, start, end);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0 && path[0] == '/') {
		snprintf(p, sizeof(p), "/proc/%d/root%s", (int)pid, path);
		fd = open(p, O_RDONLY | O_CLOEXEC);
	}
	if (fd < 0)
		return 0;
	n = collect_elf_build_id(fd, id);
	close(fd);
	return n;
}

static int emit(struct session *s, const struct perf_event_header *h)
{
	if (collect_writer_record(s->w, h))
		return -1;
	return session_feed_unwinder(s, h);
}

/* One executable mapping of pid as an MMAP2 record. */
static int synth_mmap(struct session *s, pid_t pid, unsigned long long start, unsigned long long end,
		      unsigned long long off, const char *perms, const char *name, uint64_t time)
{
	union {
		struct perf_event_header h;
		uint64_t q[(8 + 64 + PATH_MAX + 8 + TRAILER_SIZE) / 8 + 1];
	} u;
	unsigned char *r = (unsigned char *)u.q;
	uint32_t *w = (uint32_t *)(r + 8);
	uint64_t *q = (uint64_t *)(r + 8);
	size_t len = strlen(name), size;
	uint8_t id[BUILD_ID_MAX];
	size_t idn = 0;
	uint32_t prot = 0;

	if (len >= PATH_MAX)
		return 0;
	memset(&u, 0, sizeof(u));
	if (name[0] == '/')
		idn = mapping_build_id(pid, start, end, name, id);
	w[0] = w[1] = (uint32_t)pid;
	q[1] = start;
	q[2] = end - start;
	q[3] = off;
	if (idn) {
		r[40] = (uint8_t)idn;
		memcpy(r + 44, id, idn);
	}
	if (perms[0] == 'r')
		prot |= PROT_READ;
	if (perms[1] == 'w')
		prot |= PROT_WRITE;
	if (perms[2] == 'x')
		prot |= PROT_EXEC;
	*(uint32_t *)(r + 64) = prot;
	*(uint32_t *)(r + 68) = perms[3] == 's' ? MAP_SHARED : MAP_PRIVATE;
	memcpy(r + 72, name, len + 1);
	size = (72 + len + 1 + 7) & ~(size_t)7;
	session_fill_trailer(s, r + size, (uint32_t)pid, (uint32_t)pid, time);
	size += TRAILER_SIZE;
	u.h.type = PERF_RECORD_MMAP2;
	u.h.misc = PERF_RECORD_MISC_USER | (idn ? PERF_RECORD_MISC_MMAP_BUILD_ID : 0);
	u.h.size = (uint16_t)size;
	return emit(s, &u.h);
}

/* The executable mappings of pid from /proc/pid/maps. 0, 1 if the process is gone, or -1. */
static int synth_maps(struct session *s, pid_t pid, uint64_t time)
{
	char path[64], *line = NULL;
	size_t cap = 0;
	FILE *fp;
	int err = 0;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	fp = fopen(path, "re");
	if (!fp)
		return 1;
	while (!err && getline(&line, &cap, fp) > 0) {
		unsigned long long start, end, off, ino;
		unsigned int maj, min;
		char perms[8];
		int at = 0;
		const char *name;
		size_t n;

		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end, perms, &off, &maj,
			   &min, &ino, &at) < 7 || strlen(perms) < 4 || perms[2] != 'x')
			continue;
		n = strlen(line);
		if (n && line[n - 1] == '\n')
			line[--n] = '\0';
		name = at ? line + at : "";
		if (!strcmp(name, "[vsyscall]"))
			continue;
		/* anonymous executable memory (JIT): perf's name for it */
		if (!*name)
			name = "//anon";
		err = synth_mmap(s, pid, start, end, off, perms, name, time);
	}
	free(line);
	fclose(fp);
	return err;
}

/* The name of a thread (/proc/pid/task/tid/comm), without its newline. */
static void read_comm(pid_t pid, pid_t tid, char *comm, size_t size)
{
	char path[64];
	FILE *fp;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)pid, (int)tid);
	comm[0] = '\0';
	fp = fopen(path, "re");
	if (!fp)
		return;
	if (!fgets(comm, (int)size, fp))
		comm[0] = '\0';
	fclose(fp);
	n = strlen(comm);
	if (n && comm[n - 1] == '\n')
		comm[n - 1] = '\0';
}

static int synth_comm(struct session *s, pid_t pid, pid_t tid, uint64_t time)
{
	struct {
		struct perf_event_header h;
		uint32_t pid, tid;
		char comm[16];
		unsigned char t[TRAILER_SIZE];
	} rec;

	memset(&rec, 0, sizeof(rec));
	rec.h.type = PERF_RECORD_COMM;
	rec.h.size = sizeof(rec);
	rec.pid = (uint32_t)pid;
	rec.tid = (uint32_t)tid;
	read_comm(pid, tid, rec.comm, sizeof(rec.comm));
	session_fill_trailer(s, rec.t, (uint32_t)pid, (uint32_t)tid, time);
	return emit(s, &rec.h);
}

/* A thread other than the main one: a FORK from the main thread (perf's synthesis). */
static int synth_fork(struct session *s, pid_t pid, pid_t tid, uint64_t time)
{
	struct {
		struct perf_event_header h;
		uint32_t pid, ppid, tid, ptid;
		uint64_t time;
		unsigned char t[TRAILER_SIZE];
	} rec;

	memset(&rec, 0, sizeof(rec));
	rec.h.type = PERF_RECORD_FORK;
	rec.h.size = sizeof(rec);
	rec.pid = rec.ppid = rec.ptid = (uint32_t)pid;
	rec.tid = (uint32_t)tid;
	rec.time = time;
	session_fill_trailer(s, rec.t, (uint32_t)pid, (uint32_t)tid, time);
	return emit(s, &rec.h);
}

/*
 * Everything a reader needs about a running process pid: its main thread's COMM, its
 * executable mappings, then a FORK and a COMM for each other thread. 0, or 1 when the
 * process is gone (nothing written, or what was written stays consistent), or -1.
 */
int session_synth_process(struct session *s, pid_t pid, uint64_t time)
{
	char path[64];
	struct dirent *de;
	DIR *d;
	int err;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return 1;
	err = synth_comm(s, pid, pid, time);
	if (!err)
		err = synth_maps(s, pid, time);
	while (err == 0 && (de = readdir(d))) {
		char *end;
		long tid = strtol(de->d_name, &end, 10);

		if (*end || tid <= 0 || tid == pid)
			continue;
		err = synth_fork(s, pid, (pid_t)tid, time);
		if (!err)
			err = synth_comm(s, pid, (pid_t)tid, time);
	}
	closedir(d);
	return err;
}
