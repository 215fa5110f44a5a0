// SPDX-License-Identifier: MIT
/* Temp-file-and-rename output, so no reader ever sees a half-written file. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/alloc.h"
#include "lib/atomicfile.h"
#include "lib/buf.h"
#include "lib/report.h"

static void af_release(struct pgo_atomic_file *af)
{
	free(af->path);
	free(af->tmp);
	af->path = af->tmp = NULL;
	af->fp = NULL;
	af->fd = -1;
	af->in_place = 0;
}

int pgo_atomic_open(struct pgo_atomic_file *af, const char *path)
{
	struct pgo_buf tmp = PGO_BUF_INIT;
	char *d = NULL, *b = NULL;
	const char *slash;
	struct stat st;

	*af = (struct pgo_atomic_file)PGO_ATOMIC_FILE_INIT;
	if (!strcmp(path, "-")) {
		af->path = pgo_strdup(path);
		af->fp = stdout;
		return af->path ? 0 : -1;
	}
	/*
	 * An existing device or FIFO (-o /dev/null, a pipe) is written in place: a rename
	 * would replace the device node with a regular file.
	 */
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
		af->path = pgo_strdup(path);
		if (!af->path)
			return -1;
		af->fp = fopen(path, "w");
		if (!af->fp) {
			pgo_error_errno("cannot write '%s'", path);
			af_release(af);
			return -1;
		}
		af->fd = fileno(af->fp);
		af->in_place = 1;
		return 0;
	}
	slash = strrchr(path, '/');
	if (slash) {
		d = pgo_strndup(path, (size_t)(slash - path + 1));
		b = pgo_strdup(slash + 1);
	} else {
		d = pgo_strdup("");
		b = pgo_strdup(path);
	}
	if (!d || !b || !*b || pgo_buf_addf(&tmp, "%s.%s.tmp.XXXXXX", d, b)) {
		if (d && b && !*b)
			pgo_error("output path '%s' names a directory", path);
		goto fail;
	}
	af->path = pgo_strdup(path);
	if (!af->path)
		goto fail;
	af->fd = mkstemp(tmp.data);
	if (af->fd < 0) {
		pgo_error_errno("cannot create output file '%s' (check the directory exists and is writable)", path);
		goto fail;
	}
	fchmod(af->fd, 0644);
	af->fp = fdopen(af->fd, "w");
	if (!af->fp) {
		pgo_error_errno("cannot write '%s'", path);
		close(af->fd);
		unlink(tmp.data);
		goto fail;
	}
	af->tmp = pgo_buf_detach(&tmp);
	free(d);
	free(b);
	return 0;
fail:
	pgo_buf_release(&tmp);
	free(d);
	free(b);
	af_release(af);
	return -1;
}

int pgo_atomic_commit(struct pgo_atomic_file *af)
{
	int err = 0;

	if (!af->fp)
		return pgo_error("internal: commit of an unopened output file");
	if (!af->tmp) { /* stdout, or a device/FIFO written in place */
		if (fflush(af->fp) || ferror(af->fp))
			err = af->in_place ? pgo_error_errno("cannot write '%s'", af->path)
					   : pgo_error_errno("write failure on standard output");
		if (af->in_place && fclose(af->fp) && !err)
			err = pgo_error_errno("cannot write '%s'", af->path);
		af_release(af);
		return err;
	}
	if (fflush(af->fp) || ferror(af->fp))
		err = pgo_error_errno("cannot write '%s'", af->path);
	else if (fsync(af->fd) && errno != EINVAL)
		err = pgo_error_errno("cannot write '%s'", af->path);
	if (fclose(af->fp) && !err)
		err = pgo_error_errno("cannot write '%s'", af->path);
	af->fp = NULL;
	if (!err && rename(af->tmp, af->path))
		err = pgo_error_errno("cannot rename '%s' to '%s'", af->tmp, af->path);
	if (err)
		unlink(af->tmp);
	af_release(af);
	return err;
}

void pgo_atomic_abort(struct pgo_atomic_file *af)
{
	if (af->fp && af->tmp) {
		fclose(af->fp);
		unlink(af->tmp);
	} else if (af->fp && af->in_place) {
		fclose(af->fp);
	}
	af_release(af);
}

int pgo_write_file_atomic(const char *path, const void *data, size_t len)
{
	struct pgo_atomic_file af;

	if (pgo_atomic_open(&af, path))
		return -1;
	if (len && fwrite(data, 1, len, af.fp) != len) {
		pgo_error_errno("cannot write '%s'", path);
		pgo_atomic_abort(&af);
		return -1;
	}
	return pgo_atomic_commit(&af);
}

int pgo_read_file(const char *path, size_t max, char **data, size_t *len)
{
	struct pgo_buf b = PGO_BUF_INIT;
	char chunk[65536];
	FILE *fp;
	size_t n;

	fp = fopen(path, "rb");
	if (!fp)
		return pgo_error_errno("cannot open '%s'", path);
	while ((n = fread(chunk, 1, sizeof(chunk), fp)) > 0) {
		if (b.len + n > max) {
			pgo_error("'%s' is larger than %zu bytes", path, max);
			goto fail;
		}
		if (pgo_buf_add(&b, chunk, n))
			goto fail;
	}
	if (ferror(fp)) {
		pgo_error_errno("cannot read '%s'", path);
		goto fail;
	}
	fclose(fp);
	if (pgo_buf_grow(&b, 0))
		goto fail_noclose;
	b.data[b.len] = '\0';
	*len = b.len;
	*data = pgo_buf_detach(&b);
	return 0;
fail:
	fclose(fp);
fail_noclose:
	pgo_buf_release(&b);
	return -1;
}
