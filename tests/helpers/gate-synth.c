// SPDX-License-Identifier: MIT
/*
 * Synthetic profiles for the gate's tests and bench: the simulation model of
 * gate-statistics.md §9 (Zipf(1.1) self shares over N functions, a random call tree,
 * a global machine-speed factor and a fixed per-function noisiness per run, Poisson
 * sampling), written as "pgo-profile" v1 JSON. Seeded, so every file is reproducible.
 *
 *   gate-synth [options] -o FILE
 *     --program-seed S  the program: shares, call tree, per-function noisiness (1)
 *     --seed S          the runs' noise (1)
 *     --funcs N (200) --runs K (5) --hz F (999) --secs T (10)
 *     --noise ideal|realistic|noisy (realistic)
 *     --inject abs:X    the target (the 4th hottest function, ~5%) gains X of total time
 *     --inject rel:X    the target's own time grows by X
 *     --inject faster:X the hottest function's time shrinks by X
 *     --inject drift:X  every run is X slower (machine drift)
 *     --inject move     a function is inlined into its caller (time moves, no new work)
 *     --inject sleep:X  (with --offcpu) fn_001 sleeps X of the run's total time longer
 *     --offcpu          add an off-CPU view: fn_000..fn_002 block in [sleep] or [io]
 *     --kernel X        the target calls into the kernel: X of total time in page faults
 *                       (asm_exc_page_fault_[k];clear_page_erms_[k]) under it
 *     --kernel-grow X   ... and those kernel frames gain X of total time (with --inject
 *                       abs:Y, the target's own time grows too)
 *     --clone           the target is named "<name>.isra.0" (clone-folding check)
 *     --binary PATH     binary.path in the JSON (/opt/synth/bench)
 *     --print-target    print the target's and the hottest function's names and exit
 *
 * A test including this file with GATE_SYNTH_NO_MAIN gets synth_generate() only.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct synth_opts {
	uint64_t program_seed, seed;
	int funcs, runs;
	double hz, secs;
	int noise;          /* 0 ideal, 1 realistic, 2 noisy */
	char inject;        /* 0, 'a'bs, 'r'el, 'f'aster, 'd'rift, 'm'ove */
	double amount;
	int clone;
	const char *binary;
	int offcpu;
	double kernel, kernel_grow; /* kernel time under the target, and its growth */
};

#define SYNTH_TARGET 3  /* 0-based rank of the target: 5.0% share at 200 functions */

static uint64_t synth_next(uint64_t *s)
{
	/* splitmix64: small, seedable, good enough for test noise */
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static double synth_unif(uint64_t *s)
{
	return ((synth_next(s) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

static double synth_norm(uint64_t *s)
{
	double u = synth_unif(s), v = synth_unif(s);

	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

static double synth_poisson(uint64_t *s, double lambda)
{
	double l, p = 1, k = 0, x;

	if (lambda <= 0)
		return 0;
	if (lambda > 60) {
		/* Normal approximation with continuity correction; fine at these counts. */
		x = floor(lambda + sqrt(lambda) * synth_norm(s) + 0.5);
		return x < 0 ? 0 : x;
	}
	l = exp(-lambda);
	do {
		k++;
		p *= synth_unif(s);
	} while (p > l);
	return k - 1;
}

static void synth_name(char *buf, size_t n, int f, const struct synth_opts *o)
{
	snprintf(buf, n, "fn_%03d%s", f, (o->clone && f == SYNTH_TARGET) ? ".isra.0" : "");
}

/* The call chain of f, root first, "main;...;fn_f", into buf. */
static void synth_chain(char *buf, size_t n, int f, const int *parent, const struct synth_opts *o)
{
	int a, depth = 0, chain[64];
	size_t len;
	char name[64];

	for (a = f; a >= 0 && depth < 64; a = parent[a])
		chain[depth++] = a;
	snprintf(buf, n, "main");
	while (depth-- > 0) {
		synth_name(name, sizeof(name), chain[depth], o);
		len = strlen(buf);
		snprintf(buf + len, n - len, ";%s", name);
	}
}

/* Writes one profile (o->runs runs). Returns 0, or -1 on a write error. */
static int synth_generate(const struct synth_opts *o, FILE *out)
{
	uint64_t ps = o->program_seed * 0x2545f4914f6cdd1dULL + 17, rs = o->seed * 0x9e37ULL + 3;
	int nf = o->funcs, f, r, moved = -1;
	double *share = calloc(nf, sizeof(double)), *cv = calloc(nf, sizeof(double));
	int *parent = calloc(nf, sizeof(int));
	double gcv = o->noise == 0 ? 0 : o->noise == 1 ? 0.03 : 0.08;
	double fcv = o->noise == 0 ? 0 : o->noise == 1 ? 0.03 : 0.06;
	double z = 0, period = 1e9 / o->hz;
	char name[64];

	if (!share || !cv || !parent) {
		free(share);
		free(cv);
		free(parent);
		return -1;
	}
	for (f = 0; f < nf; f++)
		z += pow(f + 1, -1.1);
	for (f = 0; f < nf; f++) {
		share[f] = pow(f + 1, -1.1) / z;
		cv[f] = fcv * exp(0.5 * synth_norm(&ps));
		/* About a third hang off main; the rest under a hotter function. */
		parent[f] = (f == 0 || synth_unif(&ps) < 0.35) ? -1 : (int)(synth_unif(&ps) * f);
		if (moved < 0 && f > SYNTH_TARGET + 2 && parent[f] >= 0)
			moved = f;
	}
	if (o->inject == 'r')
		share[SYNTH_TARGET] *= 1 + o->amount;
	else if (o->inject == 'a')
		share[SYNTH_TARGET] += o->amount;
	else if (o->inject == 'f')
		share[0] *= 1 - o->amount;
	else if (o->inject == 'm' && moved >= 0) {
		share[parent[moved]] += share[moved];
		share[moved] = 0;
	}
	fprintf(out, "{\"format\":\"pgo-profile\",\"version\":1,\"tool\":\"gate-synth\","
		     "\"command\":\"./bench\",\"binary\":{\"path\":\"%s\",\"build_id\":\"00\"},"
		     "\"event\":\"task-clock\",\"rate_hz\":%g,\"unit\":\"ns\",\"views\":[\"cpu\"%s],"
		     "\"runs\":[", o->binary ? o->binary : "/opt/synth/bench", o->hz,
		o->offcpu ? ",\"offcpu\"" : "");
	for (r = 0; r < o->runs; r++) {
		double g = exp(gcv * synth_norm(&rs)) * (o->inject == 'd' ? 1 + o->amount : 1);
		double samples = 0, off_ns;
		int outlier = o->noise == 2 && synth_unif(&rs) < 0.05 ? (int)(synth_unif(&rs) * nf) : -1;
		double ofac = 1.2 + 0.4 * synth_unif(&rs);
		int first = 1;

		fprintf(out, "%s{\"run\":%d,\"pid\":%d,\"cpu\":{", r ? "," : "", r, 1000 + r);
		for (f = 0; f < nf; f++) {
			double lam = o->hz * o->secs * share[f] * g * exp(cv[f] * synth_norm(&rs));
			double c;
			int a, depth = 0, chain[64];

			if (f == outlier)
				lam *= ofac;
			c = synth_poisson(&rs, lam);
			if (c <= 0)
				continue;
			samples += c;
			for (a = f; a >= 0 && depth < 64; a = parent[a])
				chain[depth++] = a;
			fprintf(out, "%s\"main", first ? "" : ",");
			while (depth-- > 0) {
				int fr = chain[depth];

				/* An inlined function's callees now sit directly under its caller. */
				if (o->inject == 'm' && fr == moved)
					continue;
				synth_name(name, sizeof(name), fr, o);
				fprintf(out, ";%s", name);
			}
			fprintf(out, "\":%.0f", c * period);
			first = 0;
		}
		if (o->kernel > 0) {
			/* page faults under the target, with the machine's and their own noise */
			double lam = o->hz * o->secs * (o->kernel + o->kernel_grow) * g *
				     exp(fcv * synth_norm(&rs));
			double c = synth_poisson(&rs, lam);
			char chain[1024];

			synth_chain(chain, sizeof(chain), SYNTH_TARGET, parent, o);
			if (c > 0)
				fprintf(out, "%s\"%s;asm_exc_page_fault_[k];clear_page_erms_[k]\":%.0f",
					first ? "" : ",", chain, c * period);
			samples += c;
		}
		fprintf(out, "}");
		off_ns = 0;
		if (o->offcpu) {
			/* Blocking time: 10%, 5% and 2% of the run, with the same noise model. */
			static const double wait[3] = { 0.10, 0.05, 0.02 };
			static const char *const state[3] = { "[sleep]", "[io]", "[sleep]" };
			int k;

			fprintf(out, ",\"offcpu\":{");
			for (k = 0; k < 3; k++) {
				double w = wait[k] + (o->inject == 's' && k == 1 ? o->amount : 0);
				double ns = w * o->secs * 1e9 * g * exp(fcv * synth_norm(&rs));

				synth_name(name, sizeof(name), k, o);
				fprintf(out, "%s\"main;%s;%s\":%.0f", k ? "," : "", name, state[k], ns);
				off_ns += floor(ns + 0.5);
			}
			fprintf(out, "}");
		}
		fprintf(out, ",\"samples\":%.0f,\"lost\":0,\"cpu_ns\":%.0f,\"offcpu_ns\":%.0f,"
			     "\"duration_ns\":%.0f}",
			samples, samples * period, off_ns, samples * period + off_ns);
	}
	fprintf(out, "]}\n");
	free(share);
	free(cv);
	free(parent);
	return ferror(out) ? -1 : 0;
}

#ifndef GATE_SYNTH_NO_MAIN
static int arg_is(const char *a, const char *name)
{
	return !strcmp(a, name);
}

int main(int argc, char **argv)
{
	struct synth_opts o = { 1, 1, 200, 5, 999, 10, 1, 0, 0, 0, NULL, 0, 0, 0 };
	const char *outpath = NULL;
	FILE *out;
	int i, print_target = 0;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (arg_is(a, "--clone")) {
			o.clone = 1;
			continue;
		}
		if (arg_is(a, "--offcpu")) {
			o.offcpu = 1;
			continue;
		}
		if (arg_is(a, "--print-target")) {
			print_target = 1;
			continue;
		}
		if (!v) {
			fprintf(stderr, "gate-synth: %s needs a value\n", a);
			return 64;
		}
		i++;
		if (arg_is(a, "--program-seed"))
			o.program_seed = strtoull(v, NULL, 0);
		else if (arg_is(a, "--seed"))
			o.seed = strtoull(v, NULL, 0);
		else if (arg_is(a, "--funcs"))
			o.funcs = atoi(v);
		else if (arg_is(a, "--runs"))
			o.runs = atoi(v);
		else if (arg_is(a, "--hz"))
			o.hz = atof(v);
		else if (arg_is(a, "--secs"))
			o.secs = atof(v);
		else if (arg_is(a, "--kernel"))
			o.kernel = atof(v);
		else if (arg_is(a, "--kernel-grow"))
			o.kernel_grow = atof(v);
		else if (arg_is(a, "--binary"))
			o.binary = v;
		else if (arg_is(a, "--noise"))
			o.noise = arg_is(v, "ideal") ? 0 : arg_is(v, "noisy") ? 2 : 1;
		else if (arg_is(a, "--inject")) {
			o.inject = v[0];
			o.amount = strchr(v, ':') ? atof(strchr(v, ':') + 1) : 0;
		} else if (arg_is(a, "-o"))
			outpath = v;
		else {
			fprintf(stderr, "gate-synth: unknown option %s\n", a);
			return 64;
		}
	}
	if (print_target) {
		printf("fn_%03d fn_000\n", SYNTH_TARGET);
		return 0;
	}
	if (o.funcs < SYNTH_TARGET + 3 || o.runs < 1 || o.hz <= 0 || o.secs <= 0) {
		fprintf(stderr, "gate-synth: bad --funcs/--runs/--hz/--secs\n");
		return 64;
	}
	out = outpath ? fopen(outpath, "w") : stdout;
	if (!out) {
		perror(outpath);
		return 2;
	}
	if (synth_generate(&o, out) || (outpath && fclose(out))) {
		fprintf(stderr, "gate-synth: write error\n");
		return 2;
	}
	return 0;
}
#endif
