// SPDX-License-Identifier: MIT
/* pgo gate: compare profiles, record baselines in git notes, check a commit against one. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/builtin.h"
#include "cmd/gate_collect.h"
#include "cmd/gate_interleave.h"
#include "gate/baseline.h"
#include "gate/compare.h"
#include "gate/libgit.h"
#include "gate/input.h"
#include "gate/profile.h"
#include "gate/report.h"
#include "gate/verdict.h"
#include "lib/alloc.h"
#include "lib/atomicfile.h"
#include "lib/parse.h"
#include "lib/report.h"

static const char usage[] =
	"usage: pgo gate compare BASE HEAD [--confirm-profile HEAD2] [options]\n"
	"       pgo gate record [-r N] [--ref REF] [-F HZ] [off-CPU options] (--profile FILE | -- CMD [ARGS])\n"
	"       pgo gate check [-r N] [--base REV] [--ref REF] [--confirm] [-F HZ] [off-CPU options]\n"
	"                      [options]\n"
	"                      (--profile FILE [--confirm-profile FILE] | -- CMD [ARGS])\n"
	"       pgo gate check --build BUILD_CMD [-r N] [--base REV] [options] -- ./BENCH [ARGS]\n"
	"\n"
	"Fail a change only when a function regressed beyond run-to-run noise, and name it.\n"
	"BASE and HEAD are profile JSON files (pgo convert --to json) or perf.data files\n"
	"(pgo collect -r N) with >= 2 runs each.\n"
	"Per function, self and inclusive time are tested one-sided (TMM size factors, moderated\n"
	"negative-binomial noise model), Benjamini-Hochberg across all tests, then practical floors.\n"
	"\n"
	"  compare     compare two profiles\n"
	"  record      collect N runs at HEAD (or take --profile) and store the profile as a git\n"
	"              note on HEAD\n"
	"  check       collect N runs at HEAD, find the baseline note on the merge-base with the\n"
	"              target (--base, default origin/main, else main) or the nearest first-parent\n"
	"              ancestor with one, compare, report (notes mode)\n"
	"  check --build CMD   interleaved mode: check the merge-base out as a git worktree in a\n"
	"              temporary directory, build it there with 'sh -c CMD', then run base and\n"
	"              head alternately (A B B A ..., N runs each) in this job, so drift of the\n"
	"              machine cancels and the program-level check fails the gate too; ./BENCH is\n"
	"              taken in each side's tree (head: the current work tree, built by you). A\n"
	"              base that does not build is an error (exit 2, with its log's tail)\n"
	"\n"
	"options:\n"
	"  --json FILE          write the full verdict (\"pgo-verdict\" v1) to FILE ('-': stdout)\n"
	"  --markdown FILE      write a PR comment\n"
	"  --svg FILE           write a differential flamegraph (red: regressed, blue: improved)\n"
	"  --q Q                false-discovery level, bounds the A/A false-failure rate\n"
	"                       (default 0.01; measured A/A false failures per check: 0.75%\n"
	"                       simulated, 0.10% with confirmation; real sides recorded within\n"
	"                       2 minutes 1.1%, 0% confirmed; more with a time gap, see\n"
	"                       docs/gate-method.md)\n"
	"  --abs-floor P        flag only changes >= P of the baseline total (default 0.5%)\n"
	"  --rel-floor P        ... and >= P of the function's own time (default 5%)\n"
	"  --program-floor P    program-level check: total time per run (default 2%)\n"
	"  --fail-on-program    let the program-level check fail the gate (only valid when the\n"
	"                       two sides' runs were interleaved; default: warn)\n"
	"  --view V             cpu (default), offcpu or wall\n"
	"  --allow-other-binary compare profiles of differently named binaries\n"
	"  -b, --own GLOB       the benchmark's own code: DSOs whose file name matches GLOB\n"
	"                       (repeatable; default: the profiled binaries of the profile).\n"
	"                       Kernel and library frames are folded into the own function\n"
	"                       that called them; only own functions are root causes, and a\n"
	"                       change only in kernel or library frames is environment drift\n"
	"                       (a warning, never a failure, unless the runs were interleaved)\n"
	"  -r, --runs N         runs to collect (default 5)\n"
	"  -F, --freq HZ        sampling frequency of the collection (default 999)\n"
	"off-CPU recording (record, check; as pgo collect; by default on where BPF works, so\n"
	"baselines carry the offcpu and wall views; check collects it by default only for\n"
	"--view offcpu or wall, --off-cpu forces it):\n"
	COLLECT_OFFCPU_OPTIONS_HELP
	"  --ref REF            notes ref (default refs/notes/pgo)\n"
	"  --base REV           the target to take the merge-base with\n"
	"  --confirm            on a flag, collect N more runs (with --build: of both sides,\n"
	"                       alternately); fail only if the same function flags again on\n"
	"                       all runs (default for check with a command)\n"
	"  --no-confirm         fail on the first stage's flag\n"
	"  --profile FILE       use this profile JSON instead of collecting (record, check)\n"
	"  --confirm-profile F  the confirmation runs, instead of collecting them\n"
	"  -v, --verbose        show every tested function\n"
	"\n"
	"Every report has a power line: the regression (in % of total time) that a function at\n"
	"5% of the time, and the hottest own function, would need to fail the check with 80%\n"
	"probability, and what twice the runs or four times the samples a run would give.\n"
	"\n"
	"exit codes: 0 pass, 1 regression, 2 error (bad or missing input, no baseline, fewer than\n"
	"2 runs), 64 usage\n"
	"\n"
	"EXAMPLES\n"
	"  pgo gate compare base.json head.json --markdown comment.md\n"
	"  pgo gate record -r 5 -- ./bench            # on main, after merge\n"
	"  git push origin refs/notes/pgo\n"
	"  pgo gate check -r 5 --confirm -- ./bench   # on a PR\n"
	"  make && pgo gate check --build make -r 5 -- ./bench   # on a PR, no notes\n";

enum {
	OPT_JSON = 256, OPT_MD, OPT_SVG, OPT_Q, OPT_ABS, OPT_REL, OPT_PROGFLOOR, OPT_PROGFAIL,
	OPT_VIEW, OPT_OTHERBIN, OPT_REF, OPT_BASE, OPT_CONFIRM, OPT_NOCONFIRM, OPT_PROFILE,
	OPT_CPROFILE, OPT_BUILD,
	OPT_OFFCPU_BASE, /* + index in collect_offcpu_optnames */
};
#define OFFCPU_OPTS_MAX 16

struct gate_cmd {
	struct gate_opts o;
	const char *json, *markdown, *svg;
	const char *ref, *base, *profile, *confirm_profile, *build;
	unsigned int freq;
	struct collect_offcpu_request offcpu;
	int argc_self;
	char **argv_self;
	uint64_t runs;
	int confirm;           /* --confirm 1, --no-confirm 0, default -1 */
	int verbose;
	const char *own[16];    /* -b globs */
	char **cmdv;   /* the benchmark, NULL-terminated */
	int cmdc;
};

static int parse_fraction(const char *opt, const char *s, double lo, double hi, double *out)
{
	if (pgo_parse_double(s, 1, out) || *out < lo || *out > hi) {
		pgo_error("%s: '%s' is not a number between %g and %g (e.g. 0.005 or 0.5%%)", opt, s,
			  lo, hi);
		return -1;
	}
	return 0;
}

static const struct option fixed_opts[] = {
	{ "json", required_argument, NULL, OPT_JSON },
	{ "markdown", required_argument, NULL, OPT_MD },
	{ "svg", required_argument, NULL, OPT_SVG },
	{ "q", required_argument, NULL, OPT_Q },
	{ "abs-floor", required_argument, NULL, OPT_ABS },
	{ "rel-floor", required_argument, NULL, OPT_REL },
	{ "program-floor", required_argument, NULL, OPT_PROGFLOOR },
	{ "fail-on-program", no_argument, NULL, OPT_PROGFAIL },
	{ "view", required_argument, NULL, OPT_VIEW },
	{ "allow-other-binary", no_argument, NULL, OPT_OTHERBIN },
	{ "ref", required_argument, NULL, OPT_REF },
	{ "base", required_argument, NULL, OPT_BASE },
	{ "confirm", no_argument, NULL, OPT_CONFIRM },
	{ "no-confirm", no_argument, NULL, OPT_NOCONFIRM },
	{ "profile", required_argument, NULL, OPT_PROFILE },
	{ "confirm-profile", required_argument, NULL, OPT_CPROFILE },
	{ "build", required_argument, NULL, OPT_BUILD },
	{ "runs", required_argument, NULL, 'r' },
	{ "freq", required_argument, NULL, 'F' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "own", required_argument, NULL, 'b' },
	{ "help", no_argument, NULL, 'h' },
};

/* longopts: fixed_opts, then pgo collect's off-CPU options, from its table, and the terminator. */
static void build_longopts(struct option *longopts)
{
	size_t n = PGO_ARRAY_SIZE(fixed_opts);
	int c;

	memcpy(longopts, fixed_opts, sizeof(fixed_opts));
	for (c = 0; collect_offcpu_optnames[c].name; c++) {
		if (c >= OFFCPU_OPTS_MAX)
			PGO_BUG("too many off-CPU options");
		longopts[n++] = (struct option){ collect_offcpu_optnames[c].name,
						 collect_offcpu_optnames[c].has_value ? required_argument
										      : no_argument,
						 NULL, OPT_OFFCPU_BASE + c };
	}
	longopts[n] = (struct option){ NULL, 0, NULL, 0 };
}

/* One option c (its value in optarg): 0, 1 after --help, -1 after an error. */
static int parse_opt(int c, char **argv, struct gate_cmd *g)
{
	int view;

	switch (c) {
	case OPT_JSON: g->json = optarg; break;
	case OPT_MD: g->markdown = optarg; break;
	case OPT_SVG: g->svg = optarg; break;
	case OPT_Q:
		if (parse_fraction("--q", optarg, 1e-12, 0.5, &g->o.q))
			return -1;
		break;
	case OPT_ABS:
		if (parse_fraction("--abs-floor", optarg, 0, 1, &g->o.abs_floor))
			return -1;
		break;
	case OPT_REL:
		if (parse_fraction("--rel-floor", optarg, 0, 100, &g->o.rel_floor))
			return -1;
		break;
	case OPT_PROGFLOOR:
		if (parse_fraction("--program-floor", optarg, 0, 100, &g->o.program_floor))
			return -1;
		break;
	case OPT_PROGFAIL: g->o.program_fail = 1; break;
	case OPT_VIEW:
		view = gate_view_parse(optarg);
		if (view < 0)
			return pgo_error("--view: '%s' is not cpu, offcpu or wall", optarg);
		g->o.view = view;
		break;
	case OPT_OTHERBIN: g->o.allow_other_binary = 1; break;
	case OPT_REF: g->ref = optarg; break;
	case OPT_BASE: g->base = optarg; break;
	case OPT_CONFIRM: g->confirm = 1; break;
	case OPT_NOCONFIRM: g->confirm = 0; break;
	case OPT_PROFILE: g->profile = optarg; break;
	case OPT_CPROFILE: g->confirm_profile = optarg; break;
	case OPT_BUILD: g->build = optarg; break;
	case 'r':
		if (pgo_parse_u64_range(optarg, 2, 10000, &g->runs))
			return pgo_error("-r: '%s' is not a number of runs from 2 to 10000 "
					 "(the gate needs at least 2 runs per side)", optarg);
		break;
	case 'F': {
		uint64_t hz;

		if (pgo_parse_u64_range(optarg, 1, 100000, &hz))
			return pgo_error("-F: '%s' is not a sampling rate in Hz (1..100000)", optarg);
		g->freq = (unsigned int)hz;
		break;
	}
	case 'v': g->verbose++; break;
	case 'b':
		if (g->o.nr_own_globs == PGO_ARRAY_SIZE(g->own))
			return pgo_error("-b: at most %zu globs", PGO_ARRAY_SIZE(g->own));
		g->own[g->o.nr_own_globs++] = optarg;
		g->o.own_globs = g->own;
		break;
	case 'h':
		fputs(usage, stdout);
		return 1;
	default:
		if (c >= OPT_OFFCPU_BASE && c < OPT_OFFCPU_BASE + OFFCPU_OPTS_MAX) {
			if (collect_offcpu_option(&g->offcpu,
						  collect_offcpu_optnames[c - OPT_OFFCPU_BASE].name,
						  optarg) <= 0)
				return -1;
			break;
		}
		return pgo_error("unknown option '%s'; see 'pgo gate --help'", argv[optind - 1]);
	}
	return 0;
}

static int parse_args(int argc, char **argv, int permute, struct gate_cmd *g)
{
	struct option longopts[PGO_ARRAY_SIZE(fixed_opts) + OFFCPU_OPTS_MAX + 1];
	int c, ret;

	build_longopts(longopts);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, permute ? "r:F:b:vh" : "+r:F:b:vh", longopts, NULL)) != -1) {
		ret = parse_opt(c, argv, g);
		if (ret)
			return ret;
	}
	return 0;
}

/* A profile file (perf.data or profile JSON) as the gate's model. */
static int load(const char *path, struct pgo_strtab *names, struct gate_profile **p)
{
	struct convert_stackset set = CONVERT_STACKSET_INIT;

	*p = NULL;
	if (gate_input_load(path, &set))
		return -1;
	return gate_profile_take(&set, path, names, p);
}

static int write_reports(const struct gate_cmd *g, const struct gate_verdict *v,
			 const struct gate_svg_side *bs, const struct gate_svg_side *hs)
{
	int err = 0;
	int to_stdout = (g->json && !strcmp(g->json, "-")) || (g->markdown && !strcmp(g->markdown, "-"));

	/* When a machine-readable report takes stdout, the table moves to stderr. */
	if (gate_report_term(v, to_stdout ? stderr : stdout, g->verbose))
		err = -1;
	if (g->json && gate_report_json(v, g->json))
		err = -1;
	if (g->markdown && gate_report_markdown(v, g->markdown))
		err = -1;
	if (g->svg && gate_report_svg(v, bs, hs, g->svg))
		err = -1;
	return err;
}

static int verdict_exit(const struct gate_verdict *v)
{
	return v->regression ? PGO_EXIT_REGRESSION : PGO_EXIT_OK;
}

static int head_profile(const struct gate_cmd *g, const char *file, const char *label,
			struct pgo_strtab *names, struct gate_profile **p);

/*
 * Confirm a flag on more head runs: with --confirm-profile, --confirm, and by default
 * when the gate collects the head itself (check -- CMD): the second stage costs runs
 * only on a flag and cuts A/A false failures (docs/gate-method.md).
 */
static int wants_confirm(const struct gate_cmd *g)
{
	if (g->confirm_profile)
		return 1;
	return g->confirm < 0 ? g->cmdc > 0 && !g->profile : g->confirm;
}

/*
 * Compare, and on a flag with --confirm/--confirm-profile collect (or read) the
 * confirmation runs for the verdict policy's second stage (gate/verdict.h). Writes the
 * reports of the final verdict and returns the exit code.
 */
/*
 * Interleaved mode's confirmation: another round of both sides, alternately, in the open
 * session (a drift between the stages then hits both sides, as in stage 1).
 */
static int confirm_round(struct cmd_gate_interleave *x, struct pgo_strtab *names,
			 struct gate_profile **b2, struct gate_profile **h2)
{
	struct convert_stackset bset = CONVERT_STACKSET_INIT, hset = CONVERT_STACKSET_INIT;
	int err = -1;

	*b2 = *h2 = NULL;
	if (!cmd_gate_interleave_run(x, &bset, &hset) &&
	    !gate_profile_take(&bset, "base (interleaved, confirmation)", names, b2) &&
	    !gate_profile_take(&hset, "head (interleaved, confirmation)", names, h2))
		err = 0;
	convert_stackset_release(&bset);
	convert_stackset_release(&hset);
	return err;
}

/* x: the open interleaved session (its confirmation runs both sides), or NULL */
static int judge(const struct gate_cmd *g, const struct gate_profile *b,
		 const struct gate_profile *h, struct cmd_gate_interleave *x)
{
	struct gate_svg_side bs = { { &b->set, NULL }, 1 };
	struct gate_svg_side hs = { { &h->set, NULL }, 1 };
	struct gate_profile *b2 = NULL, *h2 = NULL;
	struct gate_verdict *v = NULL, *v2 = NULL;
	int ret = PGO_EXIT_ERROR;

	if (gate_compare(b, h, &g->o, &v))
		goto out;
	if (!gate_verdict_wants_confirmation(v) || !wants_confirm(g)) {
		if (!write_reports(g, v, &bs, &hs))
			ret = verdict_exit(v);
		goto out;
	}
	if (x && !g->confirm_profile) {
		pgo_info("stage 1 flagged %zu function%s; confirming on more runs of both sides, "
			 "interleaved", v->nr_root, v->nr_root == 1 ? "" : "s");
		if (confirm_round(x, h->names, &b2, &h2))
			goto out;
	} else {
		pgo_info("stage 1 flagged %zu function%s; confirming on more head runs", v->nr_root,
			 v->nr_root == 1 ? "" : "s");
		if (head_profile(g, g->confirm_profile,
				 g->confirm_profile ? g->confirm_profile : "head (confirmation)",
				 h->names, &h2))
			goto out;
	}
	if (gate_confirm_both(b, b2, h, h2, &g->o, v, &v2))
		goto out;
	if (b2) {
		bs.set[1] = &b2->set;
		bs.nr = 2;
	}
	hs.set[1] = &h2->set;
	hs.nr = 2;
	if (!write_reports(g, v2, &bs, &hs))
		ret = verdict_exit(v2);
out:
	gate_verdict_free(v);
	gate_verdict_free(v2);
	gate_profile_free(b2);
	gate_profile_free(h2);
	return ret;
}

static int gate_compare_cmd(struct gate_cmd *g, int argc, char **argv)
{
	struct pgo_strtab names = PGO_STRTAB_INIT;
	struct gate_profile *b = NULL, *h = NULL;
	int ret = PGO_EXIT_ERROR;

	if (argc != 2 || g->ref || g->base || g->confirm >= 0 || g->profile) {
		pgo_error("compare takes BASE and HEAD profile files, --confirm-profile and report "
			  "options only");
		return PGO_EXIT_USAGE;
	}
	if (!load(argv[0], &names, &b) && !load(argv[1], &names, &h))
		ret = judge(g, b, h, NULL);
	gate_profile_free(b);
	gate_profile_free(h);
	pgo_strtab_release(&names);
	return ret;
}

/* Collect g->runs runs of the benchmark in-process, symbolized. */
static int collect_profile(const struct gate_cmd *g, struct convert_stackset *set)
{
	struct cmd_gate_collect_opts o = {
		.argv = g->cmdv, .runs = (unsigned int)g->runs, .freq = g->freq,
		.argc_self = g->argc_self, .argv_self = g->argv_self, .offcpu = g->offcpu,
	};

	return cmd_gate_collect(&o, set);
}

/* The head's stack set: --profile FILE (or confirm_profile) or a fresh collection. */
static int head_set(const struct gate_cmd *g, const char *file, struct convert_stackset *set)
{
	if (file)
		return gate_input_load(file, set);
	if (!g->cmdc)
		return pgo_error("no benchmark: give '-- CMD [ARGS]' or --profile FILE");
	return collect_profile(g, set);
}

static int head_profile(const struct gate_cmd *g, const char *file, const char *label,
			struct pgo_strtab *names, struct gate_profile **p)
{
	struct convert_stackset set = CONVERT_STACKSET_INIT;

	*p = NULL;
	if (head_set(g, file, &set))
		return -1;
	return gate_profile_take(&set, label, names, p);
}

/*
 * The note's text and the profile it holds: a JSON file as it is (byte for byte), else
 * the profile JSON of perf.data or of a fresh collection.
 */
static int record_text(const struct gate_cmd *g, const char *what, struct pgo_strtab *names,
		       struct gate_profile **p, char **text)
{
	size_t len;

	if (g->profile && !gate_input_is_perf_data(g->profile))
		return pgo_read_file(g->profile, 1UL << 30, text, &len) ||
		       gate_profile_parse(*text, len, what, names, p);
	return head_profile(g, g->profile, what, names, p) ||
	       gate_input_to_json(&(*p)->set, what, text);
}

static int gate_record_cmd(struct gate_cmd *g)
{
	struct pgo_strtab names = PGO_STRTAB_INIT;
	struct gate_profile *p = NULL;
	char *text = NULL, commit[GATE_OID_HEX];
	const char *what = g->profile ? g->profile : "the collected profile";
	int ret = PGO_EXIT_ERROR;

	/* Never store a baseline the gate could not use later. */
	if (record_text(g, what, &names, &p, &text))
		goto out;
	if (p->nr_runs < 2) {
		pgo_error("'%s' has %zu run; a baseline needs at least 2 (record with -r 5)",
			  p->label, p->nr_runs);
		goto out;
	}
	if (gate_baseline_store(".", g->ref, text, commit))
		goto out;
	pgo_info("stored a %zu-run profile as a note on %.12s under %s (push it: git push origin %s)",
		 p->nr_runs, commit, g->ref, g->ref);
	ret = PGO_EXIT_OK;
out:
	free(text);
	gate_profile_free(p);
	pgo_strtab_release(&names);
	return ret;
}

/* check --build: base and head collected alternately in this job (cmd/gate_interleave.h) */
static int gate_check_interleaved(struct gate_cmd *g)
{
	struct cmd_gate_interleave_opts io = {
		.build = g->build, .base = g->base,
		.collect = { .argv = g->cmdv, .runs = (unsigned int)g->runs, .freq = g->freq,
			     .argc_self = g->argc_self, .argv_self = g->argv_self, .offcpu = g->offcpu },
	};
	struct convert_stackset bset = CONVERT_STACKSET_INIT, hset = CONVERT_STACKSET_INIT;
	struct pgo_strtab names = PGO_STRTAB_INIT;
	struct gate_profile *b = NULL, *h = NULL;
	struct cmd_gate_interleave *x = NULL;
	char commit[GATE_OID_HEX], label[64];
	int ret = PGO_EXIT_ERROR;

	g->o.mode = GATE_MODE_INTERLEAVED;
	if (cmd_gate_interleave_open(&io, &x, commit) || cmd_gate_interleave_run(x, &bset, &hset))
		goto out;
	snprintf(label, sizeof(label), "base %.12s (built, interleaved)", commit);
	if (gate_profile_take(&bset, label, &names, &b) ||
	    gate_profile_take(&hset, "head (interleaved)", &names, &h))
		goto out;
	ret = judge(g, b, h, x);
out:
	cmd_gate_interleave_close(x);
	convert_stackset_release(&bset);
	convert_stackset_release(&hset);
	gate_profile_free(b);
	gate_profile_free(h);
	pgo_strtab_release(&names);
	return ret;
}

static int gate_check_cmd(struct gate_cmd *g)
{
	struct pgo_strtab names = PGO_STRTAB_INIT;
	struct gate_profile *b = NULL, *h = NULL;
	char *btext = NULL, commit[GATE_OID_HEX], label[64];
	int ret = PGO_EXIT_ERROR;

	if (g->build)
		return gate_check_interleaved(g);
	if (gate_baseline_find(".", g->ref, g->base, 1000, &btext, commit))
		goto out;
	g->o.mode = GATE_MODE_NOTES;
	snprintf(label, sizeof(label), "baseline note on %.12s", commit);
	if (gate_profile_parse(btext, strlen(btext), label, &names, &b))
		goto out;
	if (head_profile(g, g->profile, g->profile ? g->profile : "head", &names, &h))
		goto out;
	ret = judge(g, b, h, NULL);
out:
	free(btext);
	gate_profile_free(b);
	gate_profile_free(h);
	pgo_strtab_release(&names);
	return ret;
}

int cmd_gate(int argc, char **argv)
{
	struct gate_cmd g = { .o = GATE_OPTS_INIT, .runs = 5, .confirm = -1, .offcpu = COLLECT_OFFCPU_REQUEST_INIT, .argc_self = argc, .argv_self = argv };
	const char *sub;
	int r, ret;

	if (argc < 2) {
		fputs(usage, stderr);
		return PGO_EXIT_USAGE;
	}
	sub = argv[1];
	if (!strcmp(sub, "--help") || !strcmp(sub, "-h") || !strcmp(sub, "help")) {
		fputs(usage, stdout);
		return PGO_EXIT_OK;
	}
	if (strcmp(sub, "compare") && strcmp(sub, "record") && strcmp(sub, "check")) {
		pgo_error("'%s' is not a gate subcommand (compare, record, check)", sub);
		return PGO_EXIT_USAGE;
	}
	/* compare takes options anywhere; record/check stop at the benchmark's command. */
	r = parse_args(argc - 1, argv + 1, !strcmp(sub, "compare"), &g);
	if (r > 0)
		return PGO_EXIT_OK;
	if (r < 0)
		return PGO_EXIT_USAGE;
	argc -= optind + 1;
	argv += optind + 1;
	if (!strcmp(sub, "compare")) {
		if (g.build) {
			pgo_error("--build is an option of check");
			return PGO_EXIT_USAGE;
		}
		return gate_compare_cmd(&g, argc, argv);
	}

	/* record/check: everything left is the benchmark ("--" was consumed by getopt). */
	g.cmdv = argv;
	g.cmdc = argc;
	if (!g.ref)
		g.ref = GATE_NOTES_REF;
	if (strncmp(g.ref, "refs/notes/", 11)) {
		pgo_error("--ref '%s' must be under refs/notes/", g.ref);
		return PGO_EXIT_USAGE;
	}
	if (g.cmdc && g.profile) {
		pgo_error("give either --profile FILE or a benchmark command, not both");
		return PGO_EXIT_USAGE;
	}
	if (g.build && (g.profile || g.confirm_profile || !g.cmdc)) {
		pgo_error("--build runs the benchmark on both sides: give '-- ./BENCH [ARGS]', not "
			  "--profile or --confirm-profile");
		return PGO_EXIT_USAGE;
	}
	/* Interleaved runs make the program-level check valid: it fails the gate too. */
	if (g.build)
		g.o.program_fail = 1;
	if (!strcmp(sub, "record") && (g.base || g.confirm >= 0 || g.confirm_profile || g.json ||
				       g.markdown || g.svg || g.build)) {
		pgo_error("record takes -r, --ref, -F and --profile or a command");
		return PGO_EXIT_USAGE;
	}
	/*
	 * A check's head (and, with --build, its base) is judged in one view and stored
	 * nowhere: off-CPU time is collected by default only for the offcpu and wall views.
	 * In the cpu view it would cost a BPF load per collection (interleaved mode makes one
	 * per block of runs) for samples the verdict does not read. record keeps its default:
	 * a baseline note carries every view.
	 */
	if (!strcmp(sub, "check") && g.o.view == GATE_VIEW_CPU && g.offcpu.mode < 0)
		g.offcpu.mode = 0;
	if (gate_git_open() < 0)
		return PGO_EXIT_ERROR;
	ret = !strcmp(sub, "record") ? gate_record_cmd(&g) : gate_check_cmd(&g);
	gate_git_close();
	return ret;
}
