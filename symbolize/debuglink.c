// SPDX-License-Identifier: MIT
/* Explain an unused .gnu_debuglink: where its file was looked for, and how it differs. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "collect/pdread.h"
#include "symbolize/debuglink.h"
#include "symbolize/dwcompress.h"
#include "lib/buf.h"

static int read_debuglink(Elf *elf, const char **name, uint32_t *crc)
{
	size_t shstrndx, off;
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;

	if (!gelf_getehdr(elf, &eh) || elf_getshdrstrndx(elf, &shstrndx) < 0)
		return 0;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *sname;
		Elf_Data *d;
		GElf_Shdr sh;
		uint8_t *b;

		if (!gelf_getshdr(scn, &sh) || !(sname = elf_strptr(elf, shstrndx, sh.sh_name)) ||
		    strcmp(sname, ".gnu_debuglink"))
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf)
			return 0;
		b = d->d_buf;
		off = strnlen((const char *)b, d->d_size);
		/* the name, its NUL, padding to 4, then the CRC in the file's byte order */
		off = (off + 4) & ~(size_t)3;
		if (!b[0] || off + 4 > d->d_size)
			return 0;
		*name = (const char *)b;
		*crc = eh.e_ident[EI_DATA] == ELFDATA2MSB ?
			       (uint32_t)b[off] << 24 | b[off + 1] << 16 | b[off + 2] << 8 | b[off + 3] :
			       (uint32_t)b[off + 3] << 24 | b[off + 2] << 16 | b[off + 1] << 8 | b[off];
		return 1;
	}
	return 0;
}

/* CRC32 of the whole file and its GNU build-id (length into *bid_len, 0 if none). */
static int scan_debug_file(const char *path, uint32_t *crc, uint8_t bid[20], size_t *bid_len)
{
	uint8_t buf[65536];
	Elf_Scn *scn = NULL;
	Elf *elf;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	*crc = 0;
	*bid_len = 0;
	if (fd < 0)
		return -1;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		*crc = (uint32_t)crc32(*crc, buf, (uInt)n); /* .gnu_debuglink's CRC is zlib's */
	if (n < 0) {
		close(fd);
		return -1;
	}
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	while (elf && (scn = elf_nextscn(elf, scn))) {
		size_t off = 0, noff, doff;
		Elf_Data *d;
		GElf_Shdr sh;
		GElf_Nhdr nh;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE || !(d = elf_getdata(scn, NULL)))
			continue;
		while ((off = gelf_getnote(d, off, &nh, &noff, &doff)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    !memcmp((char *)d->d_buf + noff, "GNU", 4) && nh.n_descsz &&
			    nh.n_descsz <= 20) {
				memcpy(bid, (char *)d->d_buf + doff, nh.n_descsz);
				*bid_len = nh.n_descsz;
				break;
			}
		}
		if (*bid_len)
			break;
	}
	elf_end(elf);
	close(fd);
	return 0;
}

/* The debug file found matches the binary, yet libdw took no DWARF from it: say why if we can. */
static int matching_file(const char *path, uint32_t crc, struct pgo_buf *msg)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret = 0;
	Elf *elf = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ_MMAP, NULL);

	if (pgo_buf_addf(msg, "its debug file '%s' (.gnu_debuglink) matches (CRC32 %08x), but ", path,
			 crc) < 0)
		ret = -1;
	else if (elf)
		ret = symbolize_dwcompress_explain(elf, path, msg);
	if (!ret && pgo_buf_adds(msg, "it has no DWARF either") < 0)
		ret = -1;
	elf_end(elf);
	if (fd >= 0)
		close(fd);
	return ret < 0 ? -1 : 1;
}

int symbolize_debuglink_explain(Elf *elf, const char *path, const uint8_t *bid, int bid_len,
			      struct pgo_buf *msg)
{
	char dir[PATH_MAX], real[PATH_MAX], cand[3][PATH_MAX * 2 + 32], hex[41], dhex[41];
	const char *name, *slash = strrchr(path, '/');
	uint8_t dbid[20];
	size_t dbid_len, i;
	struct stat self, st;
	uint32_t want, got;

	if (!read_debuglink(elf, &name, &want))
		return 0;
	if (!slash)
		strcpy(dir, ".");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash == path ? 1 : slash - path), path);
	if (!realpath(dir, real))
		snprintf(real, sizeof(real), "%s", dir);
	/* libdwfl's default debuginfo_path ":.debug:/usr/lib/debug" */
	snprintf(cand[0], sizeof(cand[0]), "%s/%s", dir, name);
	snprintf(cand[1], sizeof(cand[1]), "%s/.debug/%s", dir, name);
	snprintf(cand[2], sizeof(cand[2]), "/usr/lib/debug%s/%s", real, name);
	if (stat(path, &self) < 0)
		memset(&self, 0, sizeof(self));
	for (i = 0; i < 3; i++) {
		if (stat(cand[i], &st) < 0 || !S_ISREG(st.st_mode) ||
		    (st.st_dev == self.st_dev && st.st_ino == self.st_ino))
			continue;
		if (scan_debug_file(cand[i], &got, dbid, &dbid_len) < 0)
			return pgo_buf_addf(msg, "its debug file '%s' (.gnu_debuglink) cannot be read: %s",
					    cand[i], strerror(errno)) < 0 ? -1 : 1;
		if (bid_len > 0 && dbid_len ? (size_t)bid_len == dbid_len && !memcmp(bid, dbid, dbid_len)
					    : got == want)
			return matching_file(cand[i], got, msg);
		if (pgo_buf_addf(msg, "its debug file '%s' (.gnu_debuglink) does not match it, a "
				 "debug file of another build (CRC32 %08x, the binary expects %08x",
				 cand[i], got, want) < 0)
			return -1;
		if (bid_len > 0 && dbid_len &&
		    pgo_buf_addf(msg, "; build-id %s, the binary's %s",
				 collect_build_id_hex(dbid, dbid_len, dhex),
				 collect_build_id_hex(bid, (size_t)bid_len, hex)) < 0)
			return -1;
		return pgo_buf_adds(msg, "); put the debug file of this build there (objcopy "
				    "--only-keep-debug on the unstripped binary) or rebuild") < 0 ? -1 : 1;
	}
	return pgo_buf_addf(msg, "its debug file '%s' (.gnu_debuglink) is in none of '%s/', "
			    "'%s/.debug/', '/usr/lib/debug%s/'; put it there, or build with -g",
			    name, dir, dir, real) < 0 ? -1 : 1;
}
