// SPDX-License-Identifier: MIT
/*
 * The collector's unwinding hooks on symbolize/unwind.h (symbolize/unwindhook.h): process
 * events in, user pcs out, counted the collector's way.
 */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collect/pdread.h"
#include "lib/alloc.h"
#include "lib/report.h"
#include "symbolize/unwind.h"
#include "symbolize/unwindhook.h"

struct symbolize_unwind_hook {
	struct symbolize_unwind *u;
	struct collect_unwind_stats st;
	int vdso_fd;                 /* memfd with this kernel's vDSO image, or -1 */
	char vdso_path[64];
	struct symbolize_unwind_frame frames[SYMBOLIZE_UNWIND_MAX_FRAMES];
};

/*
 * The vDSO image of this process (the kernel maps the same one into every 64-bit
 * process) into a memfd, so its CFI can be read like a file's. Its size: the section
 * headers end the image.
 */
static int vdso_memfd(struct symbolize_unwind_hook *h)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)getauxval(AT_SYSINFO_EHDR);
	uint64_t size;
	int fd;

	h->vdso_fd = -1;
	if (!eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64)
		return 0;
	size = eh->e_shoff + (uint64_t)eh->e_shnum * eh->e_shentsize;
	if (!eh->e_shoff || size > (1 << 20))
		return 0;
	fd = memfd_create("pgo-vdso", MFD_CLOEXEC);
	if (fd < 0)
		return 0;
	if (write(fd, eh, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	h->vdso_fd = fd;
	snprintf(h->vdso_path, sizeof(h->vdso_path), "/proc/self/fd/%d", fd);
	return 0;
}

static int hook_mmap(void *priv, const struct collect_pd_mmap *m)
{
	struct symbolize_unwind_hook *h = priv;
	const char *path = m->filename;

	if (m->pid == (uint32_t)-1 || !m->executable || !m->len || m->start + m->len < m->start)
		return 0;
	if (m->prot && !(m->prot & PROT_EXEC))
		return 0;
	if (!strcmp(path, "[vdso]")) {
		if (h->vdso_fd < 0)
			return 0;
		path = h->vdso_path;
	}
	return symbolize_unwind_mmap(h->u, m->pid, m->start, m->len, m->pgoff, path);
}

static int hook_fork(void *priv, const struct collect_pd_task *t)
{
	struct symbolize_unwind_hook *h = priv;

	/* a new thread shares its process's mappings */
	return t->pid == t->ppid ? 0 : symbolize_unwind_fork(h->u, t->pid, t->ppid);
}

static int hook_comm(void *priv, const struct collect_pd_comm *c)
{
	struct symbolize_unwind_hook *h = priv;

	if (c->exec)
		symbolize_unwind_exec(h->u, c->pid);
	return 0;
}

static int hook_exit(void *priv, const struct collect_pd_task *t)
{
	struct symbolize_unwind_hook *h = priv;

	if (t->pid == t->tid)
		symbolize_unwind_exit(h->u, t->pid);
	return 0;
}

static void count_end(struct symbolize_unwind_hook *h)
{
	switch (symbolize_unwind_last_end(h->u)) {
	case SYMBOLIZE_UNWIND_COMPLETE:
		h->st.complete++;
		break;
	case SYMBOLIZE_UNWIND_PAST_STACK:
		h->st.truncated_stack++;
		break;
	case SYMBOLIZE_UNWIND_CFI:
		h->st.truncated_cfi++;
		break;
	case SYMBOLIZE_UNWIND_TOO_DEEP:
		h->st.too_deep++;
		break;
	case SYMBOLIZE_UNWIND_NO_REGS:
		h->st.no_regs++;
		break;
	}
}

static int hook_unwind(void *priv, const struct collect_pd_sample *s, uint64_t *pcs, size_t max)
{
	struct symbolize_unwind_hook *h = priv;
	enum symbolize_unwind_fp_how how;
	size_t i, user;
	int n;

	h->st.samples++;
	for (i = 0; i < s->nr_callchain; i++)
		if (s->callchain[i] == (uint64_t)PERF_CONTEXT_USER)
			break;
	user = i + 1;
	if (i < s->nr_callchain) {
		/* fp: the kernel walked the user stack; repair that chain */
		n = symbolize_unwind_fp_sample(h->u, s, s->callchain + user, s->nr_callchain - user,
					       pcs, max, &how);
		if (n < 0)
			return -1;
		switch (how) {
		case SYMBOLIZE_UNWIND_FP_KEPT:
			h->st.fp_kept++;
			h->st.complete++;
			break;
		case SYMBOLIZE_UNWIND_FP_REPAIRED:
			h->st.fp_repaired++;
			h->st.complete++;
			if ((size_t)n > s->nr_callchain - user)
				h->st.fp_frames_added += (size_t)n - (s->nr_callchain - user);
			break;
		case SYMBOLIZE_UNWIND_FP_CUT:
			count_end(h);
			break;
		case SYMBOLIZE_UNWIND_FP_NO_CFI:
			h->st.fp_no_cfi++;
			h->st.truncated_cfi++;
			break;
		}
		return n;
	}
	n = symbolize_unwind_sample(h->u, s, h->frames, max < SYMBOLIZE_UNWIND_MAX_FRAMES ?
				    max : SYMBOLIZE_UNWIND_MAX_FRAMES);
	if (n < 0)
		return -1;
	count_end(h);
	for (i = 0; i < (size_t)n; i++)
		pcs[i] = h->frames[i].pc;
	return n;
}

static void hook_stats(void *priv, struct collect_unwind_stats *st)
{
	struct symbolize_unwind_hook *h = priv;

	*st = h->st;
	st->ns = symbolize_unwind_stats(h->u)->ns;
}

static const struct collect_unwinder_ops hook_ops = {
	.mmap = hook_mmap,
	.fork = hook_fork,
	.comm = hook_comm,
	.exit = hook_exit,
	.unwind = hook_unwind,
	.stats = hook_stats,
};

int symbolize_unwind_hook_new(struct symbolize_unwind_hook **out, struct collect_unwinder *uw)
{
	struct symbolize_unwind_hook *h = pgo_calloc(1, sizeof(*h));

	*out = NULL;
	if (!h)
		return -1;
	if (symbolize_unwind_new(&h->u) < 0) {
		free(h);
		return -1;
	}
	symbolize_unwind_set_strict(h->u, 1);
	vdso_memfd(h);
	uw->ops = &hook_ops;
	uw->priv = h;
	*out = h;
	return 0;
}

void symbolize_unwind_hook_free(struct symbolize_unwind_hook *h)
{
	if (!h)
		return;
	symbolize_unwind_free(h->u);
	if (h->vdso_fd >= 0)
		close(h->vdso_fd);
	free(h);
}
