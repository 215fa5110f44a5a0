/* SPDX-License-Identifier: MIT */
/*
 * pgo gate check --build CMD: the interleaved mode. The base (the merge-base with the
 * target, or HEAD's first parent) is checked out as a git worktree in a temporary
 * directory and built there with CMD (sh -c, in the worktree's counterpart of the current
 * directory); then base and head runs alternate in this job, A B B A A B B A ..., so a
 * drift of the machine (neighbours, page cache, frequency, memory state) hits both sides
 * alike, and the program-level check becomes valid. The benchmark path given after "--"
 * is resolved in each side's tree: the head is the current work tree (built by the
 * caller), the base is the worktree; both run in the current directory, so their inputs
 * are the same files. The worktree stays until the verdict is final, so that a
 * confirmation stage runs both sides again, alternately; it is removed afterwards, on
 * errors and on SIGINT, SIGTERM or SIGHUP too.
 *
 * Git: the merge-base comes from libgit2 (gate/baseline.h); the worktree is made and
 * removed with the git CLI (git worktree add --detach), because a build may need what only
 * git itself gives a checkout: smudge filters (Git LFS inputs), a .git for `git describe`
 * in version scripts, submodules the build command can init. libgit2's worktree API needs
 * a branch ref and its checkout runs no external filters.
 */
#ifndef PGO_CMD_GATE_INTERLEAVE_H
#define PGO_CMD_GATE_INTERLEAVE_H

#include "cmd/gate_collect.h"
#include "convert/stackset.h"
#include "gate/baseline.h"

struct cmd_gate_interleave_opts {
	const char *build;      /* shell command that builds the base tree */
	const char *base;       /* --base REV (the target to take the merge-base with), or NULL */
	struct cmd_gate_collect_opts collect; /* argv: the head's benchmark; runs: per side */
};

struct cmd_gate_interleave;

/*
 * Check the base out and build it (*out: the open session, NULL on error); commit gets
 * the base commit's id. SIGINT, SIGTERM and SIGHUP are caught until close.
 * Returns 0, or -1 after reporting: no base commit, a failed build (the tail of its log
 * is printed), a benchmark missing from the base tree.
 */
int cmd_gate_interleave_open(const struct cmd_gate_interleave_opts *o,
			     struct cmd_gate_interleave **out, char commit[GATE_OID_HEX]);

/*
 * One round: collect both sides alternately (o->collect.runs each) into bset and hset
 * (each CONVERT_STACKSET_INIT on entry, left empty on error), the runs in the order they
 * ran. A second round is the confirmation stage's. Returns 0, or -1 after reporting (a
 * failed or interrupted run).
 */
int cmd_gate_interleave_run(struct cmd_gate_interleave *x, struct convert_stackset *bset,
			    struct convert_stackset *hset);

/* Remove the worktree and the temporary directory, restore the signal handlers; NULL is fine. */
void cmd_gate_interleave_close(struct cmd_gate_interleave *x);

#endif
