/* SPDX-License-Identifier: MIT */
/*
 * Baselines in git notes (libgit2): the profile JSON of a commit is stored as a note on
 * it under a notes ref (refs/notes/pgo by default), and a PR finds its baseline on the
 * merge-base with the target branch or the nearest first-parent ancestor with a note.
 * The repository is the store; pushing is `git push origin refs/notes/pgo`.
 *
 * The caller (cmd_gate) must have called gate_git_open() (gate/libgit.h). All return 0, or
 * -1 after reporting (libgit2's message included).
 */
#ifndef PGO_GATE_BASELINE_H
#define PGO_GATE_BASELINE_H

#include <stddef.h>

#define GATE_NOTES_REF "refs/notes/pgo"
#define GATE_OID_HEX 41

/*
 * Store data (NUL-terminated text) as the note on HEAD of the repository containing
 * repo_path, replacing an older note. commit gets HEAD's hex id.
 */
int gate_baseline_store(const char *repo_path, const char *notes_ref, const char *data,
			char commit[GATE_OID_HEX]);

/*
 * Find the baseline for HEAD: start at merge-base(HEAD, target) where target is `base`
 * if given (any revision, e.g. "origin/main" or a commit id; an unknown one is an error),
 * else origin/main, else main, else HEAD's first parent; walk first parents (at most
 * max_walk commits) to the first commit with a note. *data is new (free()) and
 * NUL-terminated; commit gets the baseline commit's hex id. No note anywhere is an error
 * that says how to record one.
 */
int gate_baseline_find(const char *repo_path, const char *notes_ref, const char *base,
		       size_t max_walk, char **data, char commit[GATE_OID_HEX]);

/*
 * The commit an interleaved check builds as its base: merge-base(HEAD, target), target as
 * for gate_baseline_find(); HEAD's first parent when there is no target or HEAD is the
 * merge-base itself (a check on the target branch: the last commit is the change).
 * commit gets its hex id; workdir (PATH_MAX) the repository's work tree, with a trailing
 * '/' (a bare repository is an error).
 */
int gate_baseline_merge_base(const char *repo_path, const char *base, char commit[GATE_OID_HEX],
			     char *workdir, size_t workdir_size);

#endif
