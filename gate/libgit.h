/* SPDX-License-Identifier: MIT */
/*
 * libgit2, loaded when the gate first needs git (record, check), not linked into pgo.
 *
 * libgit2 maps a dozen more libraries (krb5, mbedtls, libssh2, libcrypto, pcre2 ...):
 * linked, every `pgo` process paid ~4 ms of start-up relocations for them and carried
 * them into `pgo collect`, which runs as root. Only the gate's baselines use git.
 *
 * The function pointers have libgit2's own prototypes (git2.h of the build); the soname
 * the build linked against (GATE_LIBGIT2_SONAME, from the Makefile) pins the ABI.
 * Use them as gate_git.note_read(...) for git_note_read(...).
 */
#ifndef PGO_GATE_LIBGIT_H
#define PGO_GATE_LIBGIT_H

#include <git2.h>

#define GATE_GIT_FUNCS(X)                                                             \
	X(libgit2_init) X(libgit2_shutdown) X(error_last) X(repository_open_ext)        \
	X(repository_free) X(reference_name_to_id) X(signature_default)                 \
	X(signature_now) X(signature_free) X(note_create) X(note_read) X(note_message)  \
	X(note_free) X(oid_tostr) X(oid_cpy) X(revparse_single) X(object_peel)          \
	X(object_id) X(object_free) X(commit_lookup) X(commit_free)                     \
	X(commit_parentcount) X(commit_parent_id) X(merge_base)    \
	X(repository_workdir) X(oid_equal)

struct gate_git {
#define GATE_GIT_PTR(name) __typeof__(git_##name) *name;
	GATE_GIT_FUNCS(GATE_GIT_PTR)
#undef GATE_GIT_PTR
};

/* Valid between a successful gate_git_open() and gate_git_close(). */
extern struct gate_git gate_git;

/*
 * Load libgit2 and initialise it. Returns 0, or -1 after reporting (the library is
 * missing or lacks a function: says which and to run `make deps`).
 */
int gate_git_open(void);

/* Shut libgit2 down (it stays mapped until exit); a no-op if it is not open. */
void gate_git_close(void);

#endif
