// SPDX-License-Identifier: MIT
/* Diagnostics to stderr with the program name, git style. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/report.h"

static const char *prog = "pgo";
static int verbosity;

void pgo_report_set_prog(const char *name)
{
	prog = name ? name : "pgo";
}

void pgo_report_set_verbosity(int level)
{
	verbosity = level;
}

int pgo_report_verbosity(void)
{
	return verbosity;
}

static PGO_PRINTF(2, 0) void vreport(const char *kind, const char *fmt, va_list ap, const char *suffix)
{
	char msg[4096];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (kind)
		fprintf(stderr, "%s: %s: %s%s%s\n", prog, kind, msg, suffix ? ": " : "", suffix ? suffix : "");
	else
		fprintf(stderr, "%s: %s\n", prog, msg);
}

int pgo_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("error", fmt, ap, NULL);
	va_end(ap);
	return -1;
}

int pgo_error_errno(const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	va_start(ap, fmt);
	vreport("error", fmt, ap, strerror(err));
	va_end(ap);
	errno = err;
	return -1;
}

void pgo_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("warning", fmt, ap, NULL);
	va_end(ap);
}

void pgo_info(const char *fmt, ...)
{
	va_list ap;

	if (verbosity < 0)
		return;
	va_start(ap, fmt);
	vreport(NULL, fmt, ap, NULL);
	va_end(ap);
}

void pgo_debug(int level, const char *fmt, ...)
{
	va_list ap;

	if (verbosity < level)
		return;
	va_start(ap, fmt);
	vreport("debug", fmt, ap, NULL);
	va_end(ap);
}

void pgo_bug(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: BUG: %s:%d: ", prog, file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}
