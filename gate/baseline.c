// SPDX-License-Identifier: MIT
/* Store and find baseline profiles as git notes with libgit2. */
#include <stdlib.h>
#include <string.h>

#include "gate/baseline.h"
#include "gate/libgit.h"
#include "lib/alloc.h"
#include "lib/report.h"

static int git_fail(const char *what)
{
	const git_error *e = gate_git.error_last();

	return pgo_error("%s: %s", what, e && e->message ? e->message : "unknown libgit2 error");
}

static int open_repo(const char *path, git_repository **repo)
{
	if (gate_git.repository_open_ext(repo, path, 0, NULL))
		return pgo_error("'%s' is not inside a git repository (pgo gate record/check keep "
				 "baselines in git notes; use 'pgo gate compare' without git)", path);
	return 0;
}

int gate_baseline_store(const char *repo_path, const char *notes_ref, const char *data,
			char commit[GATE_OID_HEX])
{
	git_repository *repo = NULL;
	git_signature *sig = NULL;
	git_oid head, note;
	int err = -1;

	if (open_repo(repo_path, &repo))
		return -1;
	if (gate_git.reference_name_to_id(&head, repo, "HEAD")) {
		git_fail("cannot resolve HEAD (an empty repository?)");
		goto out;
	}
	/* Notes need a signature; CI runners often have no user.name configured. */
	if (gate_git.signature_default(&sig, repo) &&
	    gate_git.signature_now(&sig, "pgo", "pgo@localhost")) {
		git_fail("cannot make a signature for the note");
		goto out;
	}
	if (gate_git.note_create(&note, repo, notes_ref, sig, sig, &head, data, 1)) {
		git_fail("cannot store the profile as a note");
		goto out;
	}
	gate_git.oid_tostr(commit, GATE_OID_HEX, &head);
	err = 0;
out:
	gate_git.signature_free(sig);
	gate_git.repository_free(repo);
	return err;
}

/* The target commit: `base`, else origin/main, else main. 1 if none found (not an error). */
static int resolve_target(git_repository *repo, const char *base, git_oid *out)
{
	static const char *const defaults[] = { "refs/remotes/origin/main", "refs/heads/main" };
	git_object *obj = NULL;
	size_t i;

	if (base) {
		if (gate_git.revparse_single(&obj, repo, base)) {
			const git_error *e = gate_git.error_last();

			return pgo_error("cannot resolve --base '%s': %s", base,
					 e && e->message ? e->message : "unknown");
		}
		{
			git_object *c = NULL;
			int bad = gate_git.object_peel(&c, obj, GIT_OBJECT_COMMIT);

			/* the peeled object is new: free both */
			gate_git.object_free(obj);
			if (bad)
				return pgo_error("--base '%s' is not a commit", base);
			gate_git.oid_cpy(out, gate_git.object_id(c));
			gate_git.object_free(c);
		}
		return 0;
	}
	for (i = 0; i < PGO_ARRAY_SIZE(defaults); i++)
		if (!gate_git.reference_name_to_id(out, repo, defaults[i]))
			return 0;
	return 1;
}

int gate_baseline_find(const char *repo_path, const char *notes_ref, const char *base,
		       size_t max_walk, char **data, char commit[GATE_OID_HEX])
{
	git_repository *repo = NULL;
	git_commit *c = NULL;
	git_oid head, target, at;
	char hex[GATE_OID_HEX];
	size_t n;
	int err = -1, r;

	*data = NULL;
	if (open_repo(repo_path, &repo))
		return -1;
	if (gate_git.reference_name_to_id(&head, repo, "HEAD")) {
		git_fail("cannot resolve HEAD");
		goto out;
	}
	r = resolve_target(repo, base, &target);
	if (r < 0)
		goto out;
	if (r == 0) {
		if (gate_git.merge_base(&at, repo, &head, &target)) {
			git_fail("no merge-base between HEAD and the target branch");
			goto out;
		}
	} else {
		git_commit *h = NULL;

		/* No target branch: the nearest ancestor, never HEAD's own note. */
		if (gate_git.commit_lookup(&h, repo, &head)) {
			git_fail("cannot read HEAD");
			goto out;
		}
		if (!gate_git.commit_parentcount(h)) {
			gate_git.commit_free(h);
			pgo_error("no baseline: HEAD has no parent and there is no main or origin/main "
				  "branch (use --base REV)");
			goto out;
		}
		gate_git.oid_cpy(&at, gate_git.commit_parent_id(h, 0));
		gate_git.commit_free(h);
	}
	gate_git.oid_tostr(hex, sizeof(hex), &at);
	for (n = 0; n < max_walk; n++) {
		git_note *note = NULL;

		if (!gate_git.note_read(&note, repo, notes_ref, &at)) {
			const char *msg = gate_git.note_message(note);

			*data = pgo_strdup(msg ? msg : "");
			gate_git.note_free(note);
			if (!*data)
				goto out;
			gate_git.oid_tostr(commit, GATE_OID_HEX, &at);
			err = 0;
			goto out;
		}
		if (gate_git.commit_lookup(&c, repo, &at)) {
			git_fail("cannot walk the history");
			goto out;
		}
		if (!gate_git.commit_parentcount(c))
			break;
		gate_git.oid_cpy(&at, gate_git.commit_parent_id(c, 0));
		gate_git.commit_free(c);
		c = NULL;
	}
	pgo_error("no baseline: no commit from %.12s back (first parents, %zu commits) has a note "
		  "under %s; run 'pgo gate record' on the target branch and push/fetch the notes "
		  "(git fetch origin %s:%s)", hex, n + 1, notes_ref, notes_ref, notes_ref);
out:
	gate_git.commit_free(c);
	gate_git.repository_free(repo);
	return err;
}

int gate_baseline_merge_base(const char *repo_path, const char *base, char commit[GATE_OID_HEX],
			     char *workdir, size_t workdir_size)
{
	git_repository *repo = NULL;
	git_commit *h = NULL;
	git_oid head, target, at;
	const char *wd;
	int err = -1, r;

	if (open_repo(repo_path, &repo))
		return -1;
	wd = gate_git.repository_workdir(repo);
	if (!wd || strlen(wd) >= workdir_size) {
		pgo_error("the repository at '%s' has no work tree to build a base next to", repo_path);
		goto out;
	}
	strcpy(workdir, wd);
	if (gate_git.reference_name_to_id(&head, repo, "HEAD")) {
		git_fail("cannot resolve HEAD");
		goto out;
	}
	r = resolve_target(repo, base, &target);
	if (r < 0)
		goto out;
	if (r == 0 && gate_git.merge_base(&at, repo, &head, &target)) {
		git_fail("no merge-base between HEAD and the target branch");
		goto out;
	}
	if (r == 1 || gate_git.oid_equal(&at, &head)) {
		if (gate_git.commit_lookup(&h, repo, &head)) {
			git_fail("cannot read HEAD");
			goto out;
		}
		if (!gate_git.commit_parentcount(h)) {
			pgo_error("no base to build: HEAD has no parent and %s (use --base REV)",
				  r == 1 ? "there is no main or origin/main branch" :
					   "is the merge-base with the target");
			goto out;
		}
		gate_git.oid_cpy(&at, gate_git.commit_parent_id(h, 0));
	}
	gate_git.oid_tostr(commit, GATE_OID_HEX, &at);
	err = 0;
out:
	gate_git.commit_free(h);
	gate_git.repository_free(repo);
	return err;
}
