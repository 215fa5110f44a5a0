// SPDX-License-Identifier: MIT
/* Write perf.data files that perf report/script 6.1 read without warnings. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "collect/pdformat.h"
#include "collect/pdwrite.h"
#include "collect/pdzstd.h"
#include "lib/alloc.h"
#include "lib/atomicfile.h"
#include "lib/buf.h"
#include "lib/hashmap.h"
#include "lib/report.h"

/* perf pads every string in feature sections and build-id names to this. */
#define NAME_ALIGN 64
#define ALIGN_UP(x, a) (((x) + (a) - 1) / (a) * (a))
/* Ids we invent for synthesized events start high, far from the kernel's counter. */
#define SYNTH_ID_BASE (1ULL << 62)

struct wattr {
	struct perf_event_attr attr;
	char *name;
	uint64_t *ids;
	size_t nr_ids, alloc_ids;
};

struct buildid {
	uint8_t id[20];
	uint8_t size;
	uint16_t misc;  /* PERF_RECORD_MISC_USER or _KERNEL */
	char *filename;
};

struct collect_writer {
	struct pgo_atomic_file af;
	uint64_t data_size;
	struct wattr *attrs;
	size_t nr_attrs, alloc_attrs;
	struct buildid *bids;
	size_t nr_bids, alloc_bids;
	struct pgo_strtab bid_seen;
	int saw_kernel_mmap;
	uint64_t first_time, last_time;
	int have_time;
	uint64_t next_id;
	struct pgo_buf meta;
	struct pgo_buf cmdline;  /* NUL-separated */
	int cmdline_n;
	struct collect_pdzenc *z; /* collect_writer_compress(): records batched into zin */
	int zlevel;
	struct pgo_buf zin, zout;
	uint64_t raw_size;       /* bytes of records given, before compression */
};

static int wwrite(struct collect_writer *w, const void *p, size_t n)
{
	if (n && fwrite(p, 1, n, w->af.fp) != n)
		return pgo_error_errno("cannot write '%s'", w->af.path);
	return 0;
}

static int wpad(struct collect_writer *w, size_t n)
{
	static const char zero[NAME_ALIGN];

	while (n) {
		size_t k = n < sizeof(zero) ? n : sizeof(zero);

		if (wwrite(w, zero, k))
			return -1;
		n -= k;
	}
	return 0;
}

int collect_writer_open(struct collect_writer **wp, const char *path)
{
	struct collect_writer *w;
	struct pd_file_header h;

	*wp = NULL;
	if (!strcmp(path, "-"))
		return pgo_error("cannot write perf.data to standard output; give a file name with -o");
	w = pgo_calloc(1, sizeof(*w));
	if (!w)
		return -1;
	w->bid_seen = (struct pgo_strtab)PGO_STRTAB_INIT;
	w->next_id = SYNTH_ID_BASE;
	if (pgo_atomic_open(&w->af, path)) {
		free(w);
		return -1;
	}
	/* Placeholder; the real header is written by commit, once sizes are known. */
	memset(&h, 0, sizeof(h));
	if (wwrite(w, &h, sizeof(h))) {
		collect_writer_abort(w);
		return -1;
	}
	*wp = w;
	return 0;
}

int collect_writer_add_attr(struct collect_writer *w, const struct perf_event_attr *attr,
			    const char *name)
{
	struct wattr *a;

	if (PGO_ALLOC_GROW(w->attrs, w->nr_attrs + 1, w->alloc_attrs))
		return -1;
	a = &w->attrs[w->nr_attrs];
	memset(a, 0, sizeof(*a));
	a->attr = *attr;
	a->attr.size = sizeof(a->attr);
	a->name = pgo_strdup(name);
	if (!a->name)
		return -1;
	return (int)w->nr_attrs++;
}

int collect_writer_add_ids(struct collect_writer *w, int idx, const uint64_t *ids, size_t n)
{
	struct wattr *a;

	if (idx < 0 || (size_t)idx >= w->nr_attrs)
		PGO_BUG("attr index %d out of range", idx);
	a = &w->attrs[idx];
	if (PGO_ALLOC_GROW(a->ids, a->nr_ids + n, a->alloc_ids))
		return -1;
	memcpy(a->ids + a->nr_ids, ids, n * sizeof(*ids));
	a->nr_ids += n;
	return 0;
}

uint64_t collect_writer_new_id(struct collect_writer *w)
{
	return w->next_id++;
}

static const struct wattr *attr_of_id(const struct collect_writer *w, uint64_t id)
{
	size_t i, j;

	for (i = 0; i < w->nr_attrs; i++)
		for (j = 0; j < w->attrs[i].nr_ids; j++)
			if (w->attrs[i].ids[j] == id)
				return &w->attrs[i];
	return NULL;
}

/* Track the first and last sample time for the SAMPLE_TIME feature. */
static void note_sample_time(struct collect_writer *w, const struct perf_event_header *rec)
{
	const uint64_t *body = (const uint64_t *)(rec + 1);
	const uint64_t *end = (const uint64_t *)((const char *)rec + rec->size);
	const struct wattr *a;
	uint64_t st, t;

	if (!w->nr_attrs)
		return;
	a = &w->attrs[0];
	if ((a->attr.sample_type & PERF_SAMPLE_IDENTIFIER) && w->nr_attrs > 1) {
		if (body >= end)
			return;
		a = attr_of_id(w, body[0]);
		if (!a)
			return;
	}
	st = a->attr.sample_type;
	if (!(st & PERF_SAMPLE_TIME))
		return;
	body += !!(st & PERF_SAMPLE_IDENTIFIER) + !!(st & PERF_SAMPLE_IP) + !!(st & PERF_SAMPLE_TID);
	if (body >= end)
		return;
	t = *body;
	if (!w->have_time || t < w->first_time)
		w->first_time = t;
	if (!w->have_time || t > w->last_time)
		w->last_time = t;
	w->have_time = 1;
}

static int add_buildid(struct collect_writer *w, const uint8_t *id, size_t size, uint16_t misc,
		       const char *name, size_t name_len)
{
	struct pgo_buf key = PGO_BUF_INIT;
	struct buildid *b;
	size_t i, before = w->bid_seen.nr;
	long k;

	if (size > sizeof(b->id))
		size = sizeof(b->id);
	for (i = 0; i < size; i++)
		if (pgo_buf_addf(&key, "%02x", id[i]))
			goto fail;
	if (pgo_buf_addch(&key, ' ') || pgo_buf_add(&key, name, name_len))
		goto fail;
	k = pgo_strtab_intern(&w->bid_seen, key.data);
	pgo_buf_release(&key);
	if (k < 0)
		return -1;
	if (w->bid_seen.nr == before)
		return 0;
	if (PGO_ALLOC_GROW(w->bids, w->nr_bids + 1, w->alloc_bids))
		return -1;
	b = &w->bids[w->nr_bids];
	memset(b, 0, sizeof(*b));
	memcpy(b->id, id, size);
	b->size = (uint8_t)size;
	b->misc = misc;
	b->filename = pgo_strndup(name, name_len);
	if (!b->filename)
		return -1;
	w->nr_bids++;
	return 0;
fail:
	pgo_buf_release(&key);
	return -1;
}

/* MMAP2 with PERF_RECORD_MISC_MMAP_BUILD_ID: offsets per <linux/perf_event.h>. */
#define MMAP2_BUILD_ID_SIZE_OFF 40
#define MMAP2_BUILD_ID_OFF 44
#define MMAP2_FILENAME_OFF 72

static int note_mmap2(struct collect_writer *w, const struct perf_event_header *rec)
{
	const char *p = (const char *)rec;
	size_t size;

	if (!(rec->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) || rec->size <= MMAP2_FILENAME_OFF)
		return 0;
	size = (uint8_t)p[MMAP2_BUILD_ID_SIZE_OFF];
	if (!size)
		return 0;
	if ((rec->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL)
		return add_buildid(w, (const uint8_t *)p + MMAP2_BUILD_ID_OFF, size,
				   PERF_RECORD_MISC_KERNEL, p + MMAP2_FILENAME_OFF,
				   strnlen(p + MMAP2_FILENAME_OFF, rec->size - MMAP2_FILENAME_OFF));
	return add_buildid(w, (const uint8_t *)p + MMAP2_BUILD_ID_OFF, size, PERF_RECORD_MISC_USER,
			   p + MMAP2_FILENAME_OFF,
			   strnlen(p + MMAP2_FILENAME_OFF, rec->size - MMAP2_FILENAME_OFF));
}

int collect_writer_compress(struct collect_writer *w, int level)
{
	if (w->data_size || w->z)
		PGO_BUG("compression set after records were written");
	w->z = collect_pdzenc_new(level);
	w->zlevel = level;
	return w->z ? 0 : -1;
}

/* Write the batched records as compressed records. */
static int zflush(struct collect_writer *w)
{
	if (!w->zin.len)
		return 0;
	pgo_buf_reset(&w->zout);
	if (collect_pdzenc_records(w->z, w->zin.data, w->zin.len, &w->zout) ||
	    wwrite(w, w->zout.data, w->zout.len))
		return -1;
	w->data_size += w->zout.len;
	pgo_buf_reset(&w->zin);
	return 0;
}

uint64_t collect_writer_raw_size(const struct collect_writer *w)
{
	return w->raw_size;
}

int collect_writer_record(struct collect_writer *w, const struct perf_event_header *rec)
{
	if (rec->size < sizeof(*rec) || rec->size % 8)
		PGO_BUG("record of type %u has bad size %u", rec->type, rec->size);
	switch (rec->type) {
	case PERF_RECORD_SAMPLE:
		note_sample_time(w, rec);
		break;
	case PERF_RECORD_MMAP2:
		if (note_mmap2(w, rec))
			return -1;
		break;
	case PERF_RECORD_MMAP:
		if ((rec->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL)
			w->saw_kernel_mmap = 1;
		break;
	default:
		break;
	}
	w->raw_size += rec->size;
	if (w->z) {
		if (pgo_buf_add(&w->zin, rec, rec->size))
			return -1;
		return w->zin.len >= COLLECT_PDZENC_BATCH ? zflush(w) : 0;
	}
	if (wwrite(w, rec, rec->size))
		return -1;
	w->data_size += rec->size;
	return 0;
}

int collect_writer_round(struct collect_writer *w)
{
	struct perf_event_header h = { .type = PD_RECORD_FINISHED_ROUND, .misc = 0, .size = sizeof(h) };

	/* compressed: the round's records, then the marker as itself, as perf writes it */
	if (w->z) {
		if (zflush(w) || wwrite(w, &h, sizeof(h)))
			return -1;
		w->data_size += sizeof(h);
		w->raw_size += sizeof(h);
		return 0;
	}
	return collect_writer_record(w, &h);
}

int collect_writer_set_cmdline(struct collect_writer *w, int argc, char *const *argv)
{
	int i;

	for (i = 0; i < argc; i++)
		if (pgo_buf_add(&w->cmdline, argv[i], strlen(argv[i]) + 1))
			return -1;
	w->cmdline_n += argc;
	return 0;
}

int collect_writer_meta(struct collect_writer *w, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = pgo_buf_vaddf(&w->meta, fmt, ap);
	va_end(ap);
	if (!ret)
		ret = pgo_buf_addch(&w->meta, '\n');
	return ret;
}

/* perf's do_write_string: u32 padded length, then the string NUL-padded to NAME_ALIGN. */
static int write_string(struct collect_writer *w, const char *s)
{
	size_t n = strlen(s) + 1;
	uint32_t len = (uint32_t)ALIGN_UP(n, NAME_ALIGN);

	if (wwrite(w, &len, sizeof(len)) || wwrite(w, s, n) || wpad(w, len - n))
		return -1;
	return 0;
}

static int write_u32(struct collect_writer *w, uint32_t v)
{
	return wwrite(w, &v, sizeof(v));
}

static int write_u64(struct collect_writer *w, uint64_t v)
{
	return wwrite(w, &v, sizeof(v));
}

/* The running kernel's build-id from /sys/kernel/notes (an ELF note list). */
static int kernel_build_id(uint8_t *id, size_t *size)
{
	char buf[4096];
	size_t off = 0;
	ssize_t n;
	int fd = open("/sys/kernel/notes", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	while (n > 0 && off + 12 <= (size_t)n) {
		uint32_t namesz, descsz, type;

		memcpy(&namesz, buf + off, 4);
		memcpy(&descsz, buf + off + 4, 4);
		memcpy(&type, buf + off + 8, 4);
		off += 12;
		if (namesz > (size_t)n || descsz > (size_t)n)
			break;
		if (type == 3 && namesz == 4 && off + 4 <= (size_t)n && !memcmp(buf + off, "GNU", 4) &&
		    off + 4 + ALIGN_UP(descsz, 4) <= (size_t)n && descsz <= 20) {
			memcpy(id, buf + off + 4, descsz);
			*size = descsz;
			return 0;
		}
		off += ALIGN_UP(namesz, 4) + ALIGN_UP(descsz, 4);
	}
	return -1;
}

static int write_feat_build_id(struct collect_writer *w)
{
	size_t i;

	for (i = 0; i < w->nr_bids; i++) {
		const struct buildid *b = &w->bids[i];
		struct pd_build_id_event ev;
		size_t n = strlen(b->filename) + 1;
		size_t len = ALIGN_UP(n, NAME_ALIGN);

		memset(&ev, 0, sizeof(ev));
		ev.header.type = PD_RECORD_HEADER_BUILD_ID;
		ev.header.misc = b->misc | PD_MISC_BUILD_ID_SIZE;
		ev.header.size = (uint16_t)(sizeof(ev) + len);
		ev.pid = -1; /* perf's HOST_KERNEL_ID: the host machine */
		memcpy(ev.build_id, b->id, b->size);
		ev.build_id[20] = b->size;
		if (wwrite(w, &ev, sizeof(ev)) || wwrite(w, b->filename, n) || wpad(w, len - n))
			return -1;
	}
	return 0;
}

static int write_feat_nrcpus(struct collect_writer *w)
{
	long conf = sysconf(_SC_NPROCESSORS_CONF), onln = sysconf(_SC_NPROCESSORS_ONLN);

	return write_u32(w, (uint32_t)(conf > 0 ? conf : 1)) ||
	       write_u32(w, (uint32_t)(onln > 0 ? onln : 1)) ? -1 : 0;
}

static int write_feat_cmdline(struct collect_writer *w)
{
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	const char *p = w->cmdline.data;
	int i;

	exe[n > 0 ? n : 0] = '\0';
	if (write_u32(w, (uint32_t)w->cmdline_n + 1) || write_string(w, n > 0 ? exe : "pgo"))
		return -1;
	for (i = 0; i < w->cmdline_n; i++, p += strlen(p) + 1)
		if (write_string(w, p))
			return -1;
	return 0;
}

static int write_feat_event_desc(struct collect_writer *w)
{
	size_t i;

	if (write_u32(w, (uint32_t)w->nr_attrs) || write_u32(w, sizeof(struct perf_event_attr)))
		return -1;
	for (i = 0; i < w->nr_attrs; i++) {
		const struct wattr *a = &w->attrs[i];

		if (wwrite(w, &a->attr, sizeof(a->attr)) || write_u32(w, (uint32_t)a->nr_ids) ||
		    write_string(w, a->name) || wwrite(w, a->ids, a->nr_ids * sizeof(*a->ids)))
			return -1;
	}
	return 0;
}

static int uses_clockid(const struct collect_writer *w, int *clockid)
{
	size_t i;

	for (i = 0; i < w->nr_attrs; i++)
		if (w->attrs[i].attr.use_clockid) {
			*clockid = w->attrs[i].attr.clockid;
			return 1;
		}
	return 0;
}

static int write_feat_clockid(struct collect_writer *w, int clockid)
{
	struct timespec res;
	uint64_t ns = 1;

	if (!clock_getres(clockid, &res))
		ns = (uint64_t)res.tv_sec * 1000000000ULL + (uint64_t)res.tv_nsec;
	return write_u64(w, ns);
}

/* perf's HEADER_CLOCK_DATA (version 1): one paired reading of wall time and the event clock. */
static int write_feat_clock_data(struct collect_writer *w, int clockid)
{
	struct timespec tod, clk;

	clock_gettime(CLOCK_REALTIME, &tod);
	clock_gettime(clockid, &clk);
	return write_u32(w, 1) || write_u32(w, (uint32_t)clockid) ||
	       write_u64(w, (uint64_t)tod.tv_sec * 1000000000ULL + (uint64_t)tod.tv_nsec) ||
	       write_u64(w, (uint64_t)clk.tv_sec * 1000000000ULL + (uint64_t)clk.tv_nsec) ? -1 : 0;
}

static int write_feature(struct collect_writer *w, int feat, const struct utsname *uts, int clockid)
{
	char host[256];

	switch (feat) {
	case PD_FEAT_BUILD_ID:
		return write_feat_build_id(w);
	case PD_FEAT_HOSTNAME:
		if (gethostname(host, sizeof(host)))
			strcpy(host, "unknown");
		host[sizeof(host) - 1] = '\0';
		return write_string(w, host);
	case PD_FEAT_OSRELEASE:
		return write_string(w, uts->release);
	case PD_FEAT_ARCH:
		return write_string(w, uts->machine);
	case PD_FEAT_NRCPUS:
		return write_feat_nrcpus(w);
	case PD_FEAT_CMDLINE:
		return write_feat_cmdline(w);
	case PD_FEAT_EVENT_DESC:
		return write_feat_event_desc(w);
	case PD_FEAT_SAMPLE_TIME:
		return write_u64(w, w->first_time) || write_u64(w, w->last_time) ? -1 : 0;
	case PD_FEAT_CLOCKID:
		return write_feat_clockid(w, clockid);
	case PD_FEAT_CLOCK_DATA:
		return write_feat_clock_data(w, clockid);
	case PD_FEAT_PGO_META:
		return write_string(w, pgo_buf_str(&w->meta));
	case PD_FEAT_COMPRESSED:
		/* version 0, zstd, level, ratio, perf's decompression buffer per record */
		return write_u32(w, 0) || write_u32(w, 1) || write_u32(w, (uint32_t)w->zlevel) ||
		       write_u32(w, (uint32_t)(w->data_size ? w->raw_size / w->data_size : 0)) ||
		       write_u32(w, COLLECT_PDZENC_BATCH + 65536) ? -1 : 0;
	default:
		PGO_BUG("no writer for feature %d", feat);
	}
}

static long wtell(struct collect_writer *w)
{
	long off = ftell(w->af.fp);

	if (off < 0)
		pgo_error_errno("cannot write '%s'", w->af.path);
	return off;
}

static int write_tail(struct collect_writer *w)
{
	int feats[PD_FEAT_BITS];
	struct pd_file_section secs[PD_FEAT_BITS];
	struct pd_file_section *idsec = NULL;
	struct pd_file_header h;
	struct utsname uts;
	int nfeat = 0, clockid = 0, has_clock, i, ret = -1;
	long sec_table, off;
	size_t k;

	if (uname(&uts))
		return pgo_error_errno("uname failed");
	if (w->z && zflush(w))
		return -1;
	if (w->saw_kernel_mmap) {
		uint8_t id[20];
		size_t size;

		if (!kernel_build_id(id, &size) &&
		    add_buildid(w, id, size, PERF_RECORD_MISC_KERNEL, "[kernel.kallsyms]", 17))
			return -1;
	}
	feats[nfeat++] = PD_FEAT_BUILD_ID;
	feats[nfeat++] = PD_FEAT_HOSTNAME;
	feats[nfeat++] = PD_FEAT_OSRELEASE;
	feats[nfeat++] = PD_FEAT_ARCH;
	feats[nfeat++] = PD_FEAT_NRCPUS;
	feats[nfeat++] = PD_FEAT_CMDLINE;
	feats[nfeat++] = PD_FEAT_EVENT_DESC;
	if (w->have_time)
		feats[nfeat++] = PD_FEAT_SAMPLE_TIME;
	/* in bit order, as perf reads them */
	has_clock = uses_clockid(w, &clockid);
	if (has_clock)
		feats[nfeat++] = PD_FEAT_CLOCKID;
	if (w->z)
		feats[nfeat++] = PD_FEAT_COMPRESSED;
	if (has_clock)
		feats[nfeat++] = PD_FEAT_CLOCK_DATA;
	feats[nfeat++] = PD_FEAT_PGO_META;

	/* Feature table right after the data (where perf looks), payloads after it. */
	sec_table = wtell(w);
	if (sec_table < 0 || wpad(w, (size_t)nfeat * sizeof(secs[0])))
		return -1;
	for (i = 0; i < nfeat; i++) {
		off = wtell(w);
		if (off < 0 || write_feature(w, feats[i], &uts, clockid))
			return -1;
		secs[i].offset = (uint64_t)off;
		secs[i].size = (uint64_t)(wtell(w) - off);
	}
	/* Id arrays, then the attrs that point at them, 8-byte aligned for readers that mmap. */
	off = wtell(w);
	if (off < 0 || wpad(w, (size_t)(ALIGN_UP(off, 8) - off)))
		return -1;
	idsec = pgo_calloc(w->nr_attrs ? w->nr_attrs : 1, sizeof(*idsec));
	if (!idsec)
		return -1;
	for (k = 0; k < w->nr_attrs; k++) {
		off = wtell(w);
		if (off < 0 || wwrite(w, w->attrs[k].ids, w->attrs[k].nr_ids * sizeof(uint64_t)))
			goto out;
		idsec[k].offset = (uint64_t)off;
		idsec[k].size = w->attrs[k].nr_ids * sizeof(uint64_t);
	}
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, PD_MAGIC, 8);
	h.size = sizeof(h);
	h.attr_size = sizeof(struct perf_event_attr) + sizeof(struct pd_file_section);
	off = wtell(w);
	if (off < 0)
		goto out;
	h.attrs.offset = (uint64_t)off;
	h.attrs.size = w->nr_attrs * h.attr_size;
	for (k = 0; k < w->nr_attrs; k++)
		if (wwrite(w, &w->attrs[k].attr, sizeof(w->attrs[k].attr)) ||
		    wwrite(w, &idsec[k], sizeof(idsec[k])))
			goto out;
	h.data.offset = sizeof(h);
	h.data.size = w->data_size;
	for (i = 0; i < nfeat; i++)
		h.adds_features[feats[i] / 64] |= 1ULL << (feats[i] % 64);
	if (fseek(w->af.fp, sec_table, SEEK_SET) ||
	    wwrite(w, secs, (size_t)nfeat * sizeof(secs[0])) || fseek(w->af.fp, 0, SEEK_SET) ||
	    wwrite(w, &h, sizeof(h))) {
		if (!errno)
			errno = EIO;
		pgo_error_errno("cannot write '%s'", w->af.path);
		goto out;
	}
	ret = 0;
out:
	free(idsec);
	return ret;
}

static void writer_free(struct collect_writer *w)
{
	size_t i;

	for (i = 0; i < w->nr_attrs; i++) {
		free(w->attrs[i].name);
		free(w->attrs[i].ids);
	}
	free(w->attrs);
	for (i = 0; i < w->nr_bids; i++)
		free(w->bids[i].filename);
	free(w->bids);
	pgo_strtab_release(&w->bid_seen);
	pgo_buf_release(&w->meta);
	pgo_buf_release(&w->cmdline);
	collect_pdzenc_free(w->z);
	pgo_buf_release(&w->zin);
	pgo_buf_release(&w->zout);
	free(w);
}

int collect_writer_commit(struct collect_writer *w)
{
	int ret;

	if (!w->nr_attrs) {
		pgo_error("no event was recorded into '%s'", w->af.path);
		collect_writer_abort(w);
		return -1;
	}
	if (write_tail(w)) {
		collect_writer_abort(w);
		return -1;
	}
	ret = pgo_atomic_commit(&w->af);
	writer_free(w);
	return ret;
}

void collect_writer_abort(struct collect_writer *w)
{
	if (!w)
		return;
	pgo_atomic_abort(&w->af);
	writer_free(w);
}
