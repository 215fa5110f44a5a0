// SPDX-License-Identifier: MIT
/*
 * pgo convert. Until the perf.data path lands, the input is a profile JSON (-i x.json),
 * rendered as folded stacks, a flame graph SVG or (normalized) JSON.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cmd/builtin.h"
#include "cmd/convert_render.h"
#include "convert/profile_json.h"
#include "lib/report.h"

static void usage(FILE *fp)
{
	fprintf(fp, "usage: pgo convert --to folded|svg|json -i PROFILE.json [-o FILE] [options]\n\n"
		    "  --to FMT            folded (flamegraph.pl/speedscope), svg (interactive flame\n"
		    "                      graph), json (pgo profile JSON)\n"
		    "  -i, --input FILE    profile JSON (pgo convert --to json, a gate baseline)\n"
		    "  -o, --output FILE   output (default: standard output); written atomically\n"
		    CMD_RENDER_USAGE
		    "\nEXAMPLES\n"
		    "  pgo convert --to svg -i profile.json -o cpu.svg\n"
		    "  pgo convert --to folded --view offcpu -i profile.json | flamegraph.pl\n");
}

int cmd_convert(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "to", required_argument, NULL, 't' },
		{ "input", required_argument, NULL, 'i' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		CMD_RENDER_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct cmd_render_opts ro = CMD_RENDER_OPTS_INIT;
	struct convert_stackset set = CONVERT_STACKSET_INIT;
	const char *input = NULL;
	int c, r;

	optind = 1;
	while ((c = getopt_long(argc, argv, "t:i:o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 't':
			ro.to = optarg;
			break;
		case 'i':
			input = optarg;
			break;
		case 'o':
			ro.output = optarg;
			break;
		case 'h':
			usage(stdout);
			return PGO_EXIT_OK;
		default:
			r = cmd_render_parse_opt(&ro, c, optarg);
			if (r < 0)
				return PGO_EXIT_USAGE;
			if (r == 0) {
				usage(stderr);
				return PGO_EXIT_USAGE;
			}
		}
	}
	if (optind < argc || !ro.to || !input) {
		usage(stderr);
		return PGO_EXIT_USAGE;
	}
	if (!cmd_render_handles(ro.to)) {
		pgo_error("--to %s is not implemented yet", ro.to);
		return PGO_EXIT_USAGE;
	}
	if (convert_profile_json_load(input, &set))
		return PGO_EXIT_ERROR;
	r = cmd_render_write(&set, &ro);
	convert_stackset_release(&set);
	return r ? PGO_EXIT_ERROR : PGO_EXIT_OK;
}
