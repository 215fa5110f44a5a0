// SPDX-License-Identifier: MIT
/* libgit2 loaded on demand: see libgit.h. */
#include "gate/libgit.h"

#include <dlfcn.h>
#include <string.h>

#include "lib/report.h"

#ifndef GATE_LIBGIT2_SONAME
#define GATE_LIBGIT2_SONAME "libgit2.so"
#endif

struct gate_git gate_git;
static void *handle;
static int initialised;

int gate_git_open(void)
{
	const char *missing = NULL;

	if (initialised)
		return 0;
	if (!handle)
		handle = dlopen(GATE_LIBGIT2_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!handle)
		return pgo_error("cannot load libgit2 (%s), which pgo gate record/check use for "
				 "baselines in git notes: %s; install it (make deps, or apt-get install "
				 "libgit2-dev), or use 'pgo gate compare' without git",
				 GATE_LIBGIT2_SONAME, dlerror());
	/* POSIX: a function pointer is stored through a void * (dlsym's result) */
#define GATE_GIT_SYM(name)                                                            \
	if (!missing && !(*(void **)&gate_git.name = dlsym(handle, "git_" #name)))      \
		missing = "git_" #name;
	GATE_GIT_FUNCS(GATE_GIT_SYM)
#undef GATE_GIT_SYM
	if (missing) {
		pgo_error("%s has no %s: not the libgit2 pgo was built with; rebuild pgo (make)",
			  GATE_LIBGIT2_SONAME, missing);
		goto fail;
	}
	if (gate_git.libgit2_init() < 0) {
		pgo_error("cannot initialise libgit2");
		goto fail;
	}
	initialised = 1;
	return 0;
fail:
	/* never dlclose'd: libraries it loaded (libcrypto) may have registered exit handlers */
	memset(&gate_git, 0, sizeof(gate_git));
	return -1;
}

void gate_git_close(void)
{
	if (!initialised)
		return;
	gate_git.libgit2_shutdown();
	initialised = 0;
}
