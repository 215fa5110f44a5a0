// SPDX-License-Identifier: MIT
/* Encode off-CPU samples as perf.data records of the offcpu-time event, and decode their state. */
#include <linux/perf_event.h>
#include <string.h>

#include "collect/offcpu.h"
#include "lib/buf.h"

static const char *const state_names[OFFCPU_NR_STATES] = {
	[OFFCPU_RUNNABLE] = "runnable",
	[OFFCPU_SLEEP] = "sleep",
	[OFFCPU_IO] = "io",
};

static const char *const state_frames[OFFCPU_NR_STATES] = {
	[OFFCPU_RUNNABLE] = "[runnable]",
	[OFFCPU_SLEEP] = "[sleep]",
	[OFFCPU_IO] = "[io]",
};

const char *collect_offcpu_state_name(unsigned int state)
{
	return state < OFFCPU_NR_STATES ? state_names[state] : "unknown";
}

const char *collect_offcpu_state_frame(unsigned int state)
{
	return state < OFFCPU_NR_STATES ? state_frames[state] : "[offcpu]";
}

void collect_offcpu_attr(struct perf_event_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->type = PERF_TYPE_SOFTWARE;
	attr->config = PERF_COUNT_SW_BPF_OUTPUT;
	attr->size = sizeof(*attr);
	attr->sample_period = 1;
	attr->sample_type = COLLECT_OFFCPU_SAMPLE_TYPE;
	attr->sample_id_all = 1;
	attr->disabled = 1;
	attr->use_clockid = 1;
	attr->clockid = 1; /* CLOCK_MONOTONIC, the clock of bpf_ktime_get_ns() */
}

int collect_offcpu_encode(const struct collect_offcpu_sample *s, uint64_t id, uint64_t time,
			  struct pgo_buf *out)
{
	struct perf_event_header h;
	struct collect_offcpu_raw raw;
	uint32_t pid_tid[2] = { s->tgid, s->tid };
	uint64_t nr = s->nr_callchain;
	uint32_t raw_size = sizeof(raw);
	size_t size;

	/* RAW is a u32 size then the data; 4 + 20 keeps the record 8-byte aligned */
	_Static_assert((sizeof(uint32_t) + sizeof(struct collect_offcpu_raw)) % 8 == 0, "raw alignment");
	size = sizeof(h) + 8 /* identifier */ + 8 /* ip */ + 8 /* tid */ + 8 /* time */ + 8 /* period */ +
	       8 + nr * 8 + sizeof(raw_size) + sizeof(raw);
	if (size > UINT16_MAX)
		return pgo_error("off-CPU sample of %u frames is too large for a perf record", s->nr_callchain);
	h.type = PERF_RECORD_SAMPLE;
	h.misc = PERF_RECORD_MISC_USER;
	h.size = (uint16_t)size;
	memset(&raw, 0, sizeof(raw));
	memcpy(raw.magic, COLLECT_OFFCPU_RAW_MAGIC, sizeof(raw.magic));
	raw.version = COLLECT_OFFCPU_RAW_VERSION;
	raw.state = (uint8_t)s->state;
	raw.count = s->count;
	if (pgo_buf_grow(out, size) ||
	    pgo_buf_add(out, &h, sizeof(h)) ||
	    pgo_buf_add(out, &id, 8) ||
	    pgo_buf_add(out, &s->ip, 8) ||
	    pgo_buf_add(out, pid_tid, 8) ||
	    pgo_buf_add(out, &time, 8) ||
	    pgo_buf_add(out, &s->total_ns, 8) ||
	    pgo_buf_add(out, &nr, 8) ||
	    (nr && pgo_buf_add(out, s->callchain, nr * 8)) ||
	    pgo_buf_add(out, &raw_size, sizeof(raw_size)) ||
	    pgo_buf_add(out, &raw, sizeof(raw)))
		return -1;
	return 0;
}

int collect_offcpu_raw_decode(const void *raw, size_t size, unsigned int *state, uint64_t *count)
{
	struct collect_offcpu_raw r;

	if (size < sizeof(r))
		return -1;
	memcpy(&r, raw, sizeof(r));
	if (memcmp(r.magic, COLLECT_OFFCPU_RAW_MAGIC, sizeof(r.magic)) || r.version != COLLECT_OFFCPU_RAW_VERSION ||
	    r.state >= OFFCPU_NR_STATES)
		return -1;
	*state = r.state;
	*count = r.count;
	return 0;
}
