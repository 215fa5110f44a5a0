// SPDX-License-Identifier: MIT
/*
 * pgo convert: perf.data (from pgo collect or perf record) -> AutoFDO profile for gcc,
 * LLVM text sample profile for clang; --dump prints any .afdo as text.
 */
#include <getopt.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/builtin.h"
#include "cmd/convert_pprof.h"
#include "cmd/convert_render.h"
#include "convert/afdo.h"
#include "convert/afdo_version.h"
#include "convert/gcov.h"
#include "convert/input.h"
#include "convert/llvm.h"
#include "convert/profile.h"
#include "convert/sampleprof.h"
#include "convert/stacks.h"
#include "convert/threads.h"
#include "lib/alloc.h"
#include "lib/parse.h"
#include "lib/report.h"

static void usage(FILE *fp)
{
	fprintf(fp,
		"usage: pgo convert --to autofdo|llvm|gcov|pprof|folded|json|svg [-i FILE]... [-b BINARY]...\n"
		"                   [-o FILE] [--force] [--gcc VERSION] [--keep-discriminators]\n"
		"                   [--min-count N]\n"
		"                   [--inline-max-size BYTES] [--offline-nested[=WHICH]] [-q | -v]\n"
		"   or: pgo convert --dump FILE.afdo\n"
		"   or: pgo convert --threads [-i FILE]...\n\n"
		"  --to FMT            autofdo: gcc -fauto-profile=FILE profile (gcc 12 to 16)\n"
		"                      llvm: clang -fprofile-sample-use=FILE text profile\n"
		"                      gcov: .gcda files for gcc -fprofile-use, from the .gcno\n"
		"                      notes of a -ftest-coverage build (--gcno-dir)\n"
		"                      pprof: gzipped profile.proto (go tool pprof, Parca, ...)\n"
		"                      folded, json, svg: stacks, profile JSON, flamegraph\n"
		"  -i, --input FILE    perf.data from pgo collect or perf record (also perf record -z\n"
		"                      files and perf record --threads directories), or pprof\n"
		"                      (gzipped profile.proto: go tool pprof -proto, Parca,\n"
		"                      Pyroscope, OTel); a quoted glob or a directory of pprof\n"
		"                      files; repeat to merge; default pgo.data, else perf.data\n"
		"  -b, --binary FILE   binary to write the profile for (repeatable; default: the\n"
		"                      sampled main executable). Matched by build-id, else by path\n"
		"  -o, --output FILE   output (default <binary>.afdo / <binary>.prof; '-' = stdout)\n"
		"  --force             accept a binary rebuilt since the recording (build-id differs)\n"
		"  --gcc VERSION       AutoFDO for gcc VERSION (12 to 16; default: the gcc that\n"
		"                      built the binary, as its DW_AT_producer says, else 12)\n"
		"  --keep-discriminators  exact discriminators in AutoFDO offsets for gcc 12 too\n"
		"                      (gcc 12 ignores them and needs them collapsed, the default)\n"
		"  --min-count N       AutoFDO: every sampled line counts at least N (default 2:\n"
		"                      gcc 12 optimises lines counted below 2 for size), and so do\n"
		"                      the unsampled lines of a function whose lines sampled once\n"
		"                      and twice say most of them ran; 0 keeps counts as sampled\n"
		"  --inline-max-size BYTES  AutoFDO: a hot direct call (from the call stacks) to a\n"
		"                      function of at most BYTES, or a hot indirect call whose main\n"
		"                      target is one, gets an inline instance, which makes gcc\n"
		"                      inline it (default %d; 0: off)\n"
		"  --offline-nested[=WHICH]  AutoFDO: an inlined function whose instances inline\n"
		"                      callees of their own also gets a record of its own, from\n"
		"                      which gcc 12 inlines those callees into it: inlined (the\n"
		"                      default) if the binary has no out-of-line copy of it, all\n"
		"                      (the option alone), or none\n"
		"  --gcno-dir DIR      gcov: the .gcno notes under DIR (repeatable); each .gcda is\n"
		"                      written next to its notes, or with -o DIR into DIR as\n"
		"                      gcc -fprofile-use=DIR reads them\n"
		"  --profile-prefix-path PATH  gcov with -o DIR: the prefix gcc's\n"
		"                      -fprofile-prefix-path=PATH removes from object paths\n"
		"  --dump FILE         print an AutoFDO profile as text and check its structure\n"
		"  --threads           per thread: on-CPU + off-CPU time against its lifetime (the\n"
		"                      wall-clock view's sanity check; SHORT below 90%%)\n"
		"  -q, --quiet         no summary lines (warnings and errors still print)\n"
		"  -v, --verbose       more detail on stderr (repeatable)\n"
		"\nfolded, json, svg (input: perf.data, or profile JSON files; output default stdout):\n"
		CMD_RENDER_USAGE
		"\nA summary (samples used, samples in other DSOs, lost, functions) goes to stderr.\n"
		"Exit status: 0 ok, 2 error (bad input, no debug info, no samples, build-id\n"
		"mismatch), 64 usage.\n"
		"\nEXAMPLES\n"
		"  pgo collect ./bench && pgo convert --to autofdo      # writes bench.afdo\n"
		"  gcc -O2 -fauto-profile=bench.afdo -o bench bench.c\n"
		"  perf record -o perf.data ./bench; pgo convert --to autofdo -i perf.data -b ./bench\n"
		"  pgo convert --to llvm -b ./bench -o bench.prof      # bench built with "
		"-fdebug-info-for-profiling\n"
		"  clang -O2 -g -fdebug-info-for-profiling -fprofile-sample-use=bench.prof bench.c\n"
		"  pgo convert --dump bench.afdo\n"
		"  pgo convert --to svg -o cpu.svg; pgo convert --to folded --view offcpu | flamegraph.pl\n",
		CONVERT_INLINE_MAX_SIZE);
}

enum { OPT_FORCE = 0x100, OPT_DUMP, OPT_KEEP_DISCR, OPT_GCC, OPT_THREADS, OPT_MIN_COUNT, OPT_OFFLINE_NESTED,
       OPT_INLINE_MAX_SIZE, OPT_GCNO_DIR, OPT_PREFIX_PATH };

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

static void summary(const struct convert_profile *p, const char *out, const char *what,
		    uint64_t functions)
{
	const struct convert_info *in = convert_profile_info(p);
	const char *bin = convert_profile_nr_binaries(p) ? convert_profile_binary_path(p, 0) : "?";

	pgo_info("%s: %llu functions (%s); samples: %llu in %s, %llu in other DSOs, %llu kernel, "
		 "%llu unmapped; %llu lost", out, (unsigned long long)functions, what,
		 (unsigned long long)in->samples_binary, base_name(bin),
		 (unsigned long long)in->samples_other_dso, (unsigned long long)in->samples_kernel,
		 (unsigned long long)in->samples_unmapped, (unsigned long long)in->lost);
	if (in->lost)
		pgo_warn("%llu samples were lost during the recording; counts are lower than the "
			 "truth", (unsigned long long)in->lost);
	for (size_t i = 0; i < convert_profile_nr_runs(p); i++) {
		const struct convert_run_info *r = convert_profile_run_info(p, i);

		pgo_debug(1, "run %u: pid %u (%s), %llu samples, %llu ns on-CPU, %llu ns off-CPU",
			  r->index, r->pid, r->comm, (unsigned long long)r->samples,
			  (unsigned long long)r->cpu_ns, (unsigned long long)r->offcpu_ns);
	}
	if (in->unknown_records)
		pgo_debug(1, "%llu records of unknown types skipped",
			  (unsigned long long)in->unknown_records);
}

/*
 * A profile with few samples leaves lines that ran at 0 or 1 and cannot rank warm code
 * against cold (docs/decisions-convert.md, "Sampling rate": gawk gains 3% of PGO's speedup from
 * 4600 samples, 56% from 11800). Say so, with the estimate of how many lines that ran have no sample: when
 * that estimate is large, or when the binary has under SPARSE_MIN_SAMPLES samples and
 * more than one sampled line in SPARSE_ONCE_SHARE has one sample. A small program whose
 * few thousand samples fall on a dozen lines, each sampled many times, is not sparse.
 */
#define SPARSE_MIN_SAMPLES 5000
#define SPARSE_ONCE_SHARE 10
#define DENSE_HZ 4999   /* the rate the README and bench/pgo.sh record AutoFDO profiles at */

/*
 * What to do about it: a higher rate only if the recording was below DENSE_HZ (a fixed
 * period of a clock event is a rate too, one sample every period ns), else more time.
 */
static void sparse_advice(const struct convert_info *in, char *buf, size_t len)
{
	uint64_t hz = in->rate_hz;

	if (!hz && in->period && in->period_ns)
		hz = 1000000000ULL / in->period;
	if (hz && hz < DENSE_HZ)
		snprintf(buf, len, "record at a higher rate (pgo collect -F %d; this recording "
			 "sampled at %llu Hz), longer, or several runs (-r N)", DENSE_HZ,
			 (unsigned long long)hz);
	else if (hz)
		snprintf(buf, len, "at %llu Hz already, record longer or several runs (pgo collect "
			 "-r N merges them)", (unsigned long long)hz);
	else
		snprintf(buf, len, "record longer, at a higher rate (pgo collect -F %d) or several "
			 "runs (-r N)", DENSE_HZ);
}

static void sparse_warning(const struct convert_profile *p, const struct convert_afdo_summary *s)
{
	const struct convert_info *in = convert_profile_info(p);
	const char *bin = convert_profile_nr_binaries(p) ? convert_profile_binary_path(p, 0) : "?";
	double unseen = convert_afdo_unseen(s);
	char advice[160];

	pgo_debug(1, "%llu sampled lines, %llu sampled once, %llu twice; about %.0f lines that "
		  "ran have no sample", (unsigned long long)s->sampled,
		  (unsigned long long)s->sampled_once, (unsigned long long)s->sampled_twice, unseen);
	if (unseen <= 0.25 * (double)s->sampled &&
	    (in->samples_binary >= SPARSE_MIN_SAMPLES || s->sampled_once * SPARSE_ONCE_SHARE <= s->sampled))
		return;
	sparse_advice(in, advice, sizeof(advice));
	pgo_warn("sparse profile: %llu samples in %s; %llu of %llu sampled lines have a single "
		 "sample and about %.0f lines that ran have none, too few to tell warm code from "
		 "cold: %s", (unsigned long long)in->samples_binary, base_name(bin),
		 (unsigned long long)s->sampled_once, (unsigned long long)s->sampled, unseen, advice);
}

struct convert_cmd {
	struct convert_options o;
	struct convert_afdo_options ao;
	struct cmd_render_opts ro;
	const char **inputs, **bins, *to, *out, *dump;
	size_t nr_in, alloc_in, nr_bins, alloc_bins;
	const char **gcno_dirs, *prefix_path;
	size_t nr_gcno_dirs, alloc_gcno_dirs;
	int verbose, quiet, threads;
};
#define CONVERT_GO_ON (-1) /* parse_args: no exit code yet */

/*
 * The value of --offline-nested, --min-count or --inline-max-size: 0, or PGO_EXIT_USAGE
 * after reporting it.
 */
static int parse_value(struct convert_cmd *cc, int c, const char *arg)
{
	if (c == OPT_OFFLINE_NESTED) {
		if (!arg || !strcmp(arg, "all")) {
			cc->ao.offline = SP_OFFLINE_NESTED;
		} else if (!strcmp(arg, "inlined")) {
			cc->ao.offline = SP_OFFLINE_INLINED;
		} else if (!strcmp(arg, "none")) {
			cc->ao.offline = 0;
		} else {
			pgo_error("invalid --offline-nested '%s' (none, inlined or all)", arg);
			return PGO_EXIT_USAGE;
		}
	} else if (c == OPT_MIN_COUNT) {
		if (pgo_parse_u64_range(arg, 0, 1000000, &cc->ao.min_count)) {
			pgo_error("invalid --min-count '%s' (a whole number, 0..1000000)", arg);
			return PGO_EXIT_USAGE;
		}
	} else if (pgo_parse_u64_range(arg, 0, 1000000, &cc->o.inline_max_size)) {
		pgo_error("invalid --inline-max-size '%s' (bytes, 0..1000000)", arg);
		return PGO_EXIT_USAGE;
	}
	return 0;
}

/* One option: CONVERT_GO_ON, or an exit code. */
static int parse_option(struct convert_cmd *cc, int c, char **argv)
{
	switch (c) {
	case 't':
		cc->to = optarg;
		break;
	case 'i':
		if (PGO_ALLOC_GROW(cc->inputs, cc->nr_in + 1, cc->alloc_in) < 0)
			return PGO_EXIT_ERROR;
		cc->inputs[cc->nr_in++] = optarg;
		break;
	case 'b':
		if (PGO_ALLOC_GROW(cc->bins, cc->nr_bins + 1, cc->alloc_bins) < 0)
			return PGO_EXIT_ERROR;
		cc->bins[cc->nr_bins++] = optarg;
		break;
	case 'o':
		cc->out = optarg;
		break;
	case OPT_THREADS:
		cc->threads = 1;
		break;
	case OPT_GCNO_DIR:
		if (PGO_ALLOC_GROW(cc->gcno_dirs, cc->nr_gcno_dirs + 1, cc->alloc_gcno_dirs) < 0)
			return PGO_EXIT_ERROR;
		cc->gcno_dirs[cc->nr_gcno_dirs++] = optarg;
		break;
	case OPT_PREFIX_PATH:
		cc->prefix_path = optarg;
		break;
	case OPT_FORCE:
		cc->o.force = 1;
		break;
	case OPT_KEEP_DISCR:
		cc->ao.keep_discriminators = 1;
		break;
	case OPT_GCC: {
		uint64_t v;

		if (pgo_parse_u64_range(optarg, CONVERT_GCC_MIN, CONVERT_GCC_MAX, &v)) {
			pgo_error("invalid --gcc '%s' (%d to %d)", optarg, CONVERT_GCC_MIN, CONVERT_GCC_MAX);
			return PGO_EXIT_USAGE;
		}
		cc->ao.gcc = (unsigned)v;
		break;
	}
	case OPT_OFFLINE_NESTED:
	case OPT_MIN_COUNT:
	case OPT_INLINE_MAX_SIZE:
		return parse_value(cc, c, optarg) ? PGO_EXIT_USAGE : CONVERT_GO_ON;
	case OPT_DUMP:
		cc->dump = optarg;
		break;
	case 'q':
		cc->quiet = 1;
		break;
	case 'v':
		cc->verbose++;
		break;
	case 'h':
		usage(stdout);
		return PGO_EXIT_OK;
	default:
		if (cmd_render_parse_opt(&cc->ro, c, optarg) > 0)
			break;
		if (c == ':')
			pgo_error("missing value for option '%s'", argv[optind - 1]);
		else if (c == '?' && optopt)
			pgo_error("unknown option '-%c'", optopt);
		else if (c == '?')
			pgo_error("unknown option '%s'", argv[optind - 1]);
		usage(stderr);
		return PGO_EXIT_USAGE;
	}
	return CONVERT_GO_ON;
}

/* The command line into cc: CONVERT_GO_ON, or an exit code. */
static int parse_args(struct convert_cmd *cc, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "to", required_argument, NULL, 't' },
		{ "input", required_argument, NULL, 'i' },
		{ "binary", required_argument, NULL, 'b' },
		{ "output", required_argument, NULL, 'o' },
		{ "force", no_argument, NULL, OPT_FORCE },
		{ "keep-discriminators", no_argument, NULL, OPT_KEEP_DISCR },
		{ "gcc", required_argument, NULL, OPT_GCC },
		{ "min-count", required_argument, NULL, OPT_MIN_COUNT },
		{ "offline-nested", optional_argument, NULL, OPT_OFFLINE_NESTED },
		{ "inline-max-size", required_argument, NULL, OPT_INLINE_MAX_SIZE },
		{ "dump", required_argument, NULL, OPT_DUMP },
		{ "threads", no_argument, NULL, OPT_THREADS },
		{ "gcno-dir", required_argument, NULL, OPT_GCNO_DIR },
		{ "profile-prefix-path", required_argument, NULL, OPT_PREFIX_PATH },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		CMD_RENDER_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	int c, ret;

	optind = 1;
	opterr = 0; /* our own messages, in the form of every other error */
	while ((c = getopt_long(argc, argv, ":t:i:b:o:qvh", longopts, NULL)) != -1) {
		ret = parse_option(cc, c, argv);
		if (ret != CONVERT_GO_ON)
			return ret;
	}
	if (cc->quiet && cc->verbose) {
		pgo_error("-q and -v cannot be combined");
		return PGO_EXIT_USAGE;
	}
	if (cc->verbose || cc->quiet)
		pgo_report_set_verbosity(cc->quiet ? -1 : cc->verbose);
	if (optind < argc) {
		pgo_error("unexpected argument '%s'", argv[optind]);
		usage(stderr);
		return PGO_EXIT_USAGE;
	}
	return CONVERT_GO_ON;
}

/* pgo.data, else perf.data where only that exists */
static const char *default_input(void)
{
	return access("pgo.data", F_OK) && !access("perf.data", F_OK) ? "perf.data" : "pgo.data";
}

static int run_dump(const struct convert_cmd *cc)
{
	if (cc->to || cc->nr_in || cc->nr_bins) {
		pgo_error("--dump takes no other options");
		return PGO_EXIT_USAGE;
	}
	return convert_afdo_dump(cc->dump, stdout) ? PGO_EXIT_ERROR : PGO_EXIT_OK;
}

/* the wall-clock sanity check: per thread, on + off should cover the lifetime */
static int run_threads(const struct convert_cmd *cc)
{
	int ret = PGO_EXIT_OK;
	size_t k;

	for (k = 0; k < (cc->nr_in ? cc->nr_in : 1); k++)
		if (convert_threads_report(cc->nr_in ? cc->inputs[k] : default_input(), 0.9, stdout) < 0)
			ret = PGO_EXIT_ERROR;
	return ret;
}

/*
 * The profile of the binary, and the output name: -o, else the binary's base name with
 * ext (*default_out, to free). 0 or -1 after reporting.
 */
static int load_profile(struct convert_cmd *cc, const char *ext, struct convert_profile **p,
			char **default_out)
{
	if (convert_profile_load(&cc->o, p) < 0)
		return -1;
	if (!cc->out) {
		const char *bin = convert_profile_binary_path(*p, 0);
		size_t n = strlen(base_name(bin)) + 8;

		*default_out = malloc(n);
		if (!*default_out) {
			pgo_error("out of memory");
			return -1;
		}
		snprintf(*default_out, n, "%s.%s", base_name(bin), ext);
		cc->out = *default_out;
	}
	return 0;
}

static int write_autofdo(struct convert_cmd *cc)
{
	struct convert_profile *p = NULL;
	struct convert_afdo_summary s;
	char *default_out = NULL;
	int ret = PGO_EXIT_ERROR;

	if (load_profile(cc, "afdo", &p, &default_out) < 0 ||
	    convert_afdo_write(p, &cc->ao, cc->out, &s) < 0)
		goto out;
	summary(p, cc->out, "gcc autofdo", s.functions);
	sparse_warning(p, &s);
	pgo_debug(1, "%s: %llu inline instances, %llu positions, max count %llu", cc->out,
		  (unsigned long long)s.instances, (unsigned long long)s.positions,
		  (unsigned long long)s.max_count);
	ret = PGO_EXIT_OK;
out:
	convert_profile_free(p);
	free(default_out);
	return ret;
}

static int write_llvm(struct convert_cmd *cc)
{
	struct convert_profile *p = NULL;
	char *default_out = NULL;
	int ret = PGO_EXIT_ERROR;
	uint64_t nf = 0;

	if (load_profile(cc, "prof", &p, &default_out) < 0 || convert_llvm_write(p, cc->out, &nf) < 0)
		goto out;
	summary(p, cc->out, "llvm text", nf);
	ret = PGO_EXIT_OK;
out:
	convert_profile_free(p);
	free(default_out);
	return ret;
}

/* gcov: .gcda files for the notes of --gcno-dir (convert/gcov.h) */
static int write_gcov(struct convert_cmd *cc)
{
	struct convert_gcov_options go = { NULL, 0, cc->out, cc->prefix_path };
	struct convert_gcov_summary s;
	struct convert_profile *p = NULL;
	char **notes = NULL;
	size_t nr = 0, alloc = 0, i;
	int ret = PGO_EXIT_ERROR;

	if (!cc->nr_gcno_dirs) {
		pgo_error("--to gcov needs the notes of the build: --gcno-dir DIR (compile with "
			  "-ftest-coverage to get them)");
		return PGO_EXIT_USAGE;
	}
	if (cc->prefix_path && !cc->out) {
		pgo_error("--profile-prefix-path goes with -o DIR (gcc -fprofile-use=DIR)");
		return PGO_EXIT_USAGE;
	}
	for (i = 0; i < cc->nr_gcno_dirs; i++)
		if (convert_gcov_find_notes(cc->gcno_dirs[i], &notes, &nr, &alloc) < 0)
			goto out;
	go.notes = (const char *const *)notes;
	go.nr_notes = nr;
	if (convert_profile_load(&cc->o, &p) < 0 || convert_gcov_write(p, &go, &s) < 0)
		goto out;
	summary(p, cc->out ? cc->out : cc->gcno_dirs[0], "gcc -fprofile-use", s.functions);
	pgo_info("%llu .gcda files (%llu notes without code in the binaries skipped); %llu of %llu "
		 "functions with code; %llu samples on notes lines; largest arc count %llu",
		 (unsigned long long)s.files, (unsigned long long)s.skipped_files,
		 (unsigned long long)s.sampled_functions, (unsigned long long)s.functions,
		 (unsigned long long)s.samples_mapped, (unsigned long long)s.max_count);
	ret = PGO_EXIT_OK;
out:
	convert_profile_free(p);
	for (i = 0; i < nr; i++)
		free(notes[i]);
	free(notes);
	return ret;
}

/* pprof: the stacks of the inputs with their addresses (cmd/convert_pprof.h) */
static int write_pprof(struct convert_cmd *cc)
{
	return cmd_convert_pprof(&cc->o, cc->out);
}

/* folded, json, svg: the stack set of the inputs (cmd/convert_render.h) */
static int write_stacks(struct convert_cmd *cc)
{
	cc->ro.to = cc->to;
	cc->ro.output = cc->out;
	return cmd_render_run(&cc->o, &cc->ro);
}

/* The formats of --to, in the order the messages list them. */
static const struct convert_writer {
	const char *name;
	int (*write)(struct convert_cmd *cc); /* a PGO_EXIT_* code */
} writers[] = {
	{ "autofdo", write_autofdo },
	{ "llvm", write_llvm },
	{ "gcov", write_gcov },
	{ "pprof", write_pprof },
	{ "folded", write_stacks },
	{ "json", write_stacks },
	{ "svg", write_stacks },
};

static const struct convert_writer *find_writer(const char *name)
{
	size_t i;

	for (i = 0; i < PGO_ARRAY_SIZE(writers); i++)
		if (!strcmp(writers[i].name, name))
			return &writers[i];
	return NULL;
}

/* --to FMT with the options parsed: an exit code */
static int run_writer(struct convert_cmd *cc)
{
	const struct convert_writer *w;
	char **expanded = NULL;
	size_t nr_expanded = 0;
	int ret;

	if (!cc->to) {
		pgo_error("--to is required (autofdo, llvm, gcov, pprof, folded, json or svg)");
		usage(stderr);
		return PGO_EXIT_USAGE;
	}
	w = find_writer(cc->to);
	if (!w) {
		pgo_error("unknown format '%s' for --to (autofdo, llvm, gcov, pprof, folded, json, svg)", cc->to);
		return PGO_EXIT_USAGE;
	}
	if (!cc->nr_in) {
		if (PGO_ALLOC_GROW(cc->inputs, 1, cc->alloc_in) < 0)
			return PGO_EXIT_ERROR;
		cc->inputs[cc->nr_in++] = default_input();
	}
	if (convert_input_expand(cc->inputs, cc->nr_in, &expanded, &nr_expanded) < 0)
		return PGO_EXIT_ERROR;
	cc->o.inputs = (const char *const *)expanded;
	cc->o.nr_inputs = nr_expanded;
	cc->o.binaries = cc->bins;
	cc->o.nr_binaries = cc->nr_bins;
	ret = w->write(cc);
	convert_input_list_free(expanded, nr_expanded);
	return ret;
}

int cmd_convert(int argc, char **argv)
{
	struct convert_cmd cc = {
		.o = { .inline_max_size = CONVERT_INLINE_MAX_SIZE },
		.ao = { .min_count = CONVERT_AFDO_MIN_COUNT, .offline = SP_OFFLINE_INLINED },
		.ro = CMD_RENDER_OPTS_INIT,
	};
	int ret;

	/*
	 * A convert is one short process that grows and frees tables of a few MB: keep freed
	 * memory in the heap (no mmap per large block, no trim) and grow the heap 16 MB at a
	 * time, so pages already faulted in are reused. An anonymous page fault costs about
	 * 1.2 us here: 7-12% fewer of them, 1.4-2.3% less CPU (docs/decisions-convert.md, "Convert speed").
	 */
	mallopt(M_MMAP_THRESHOLD, 256 << 20);
	mallopt(M_TRIM_THRESHOLD, 256 << 20);
	mallopt(M_TOP_PAD, 16 << 20);
	ret = parse_args(&cc, argc, argv);
	if (ret == CONVERT_GO_ON) {
		if (cc.dump)
			ret = run_dump(&cc);
		else if (cc.threads)
			ret = run_threads(&cc);
		else
			ret = run_writer(&cc);
	}
	free(cc.inputs);
	free(cc.bins);
	free(cc.gcno_dirs);
	return ret;
}
