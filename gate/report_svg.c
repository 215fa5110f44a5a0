// SPDX-License-Identifier: MIT
/* The gate's differential flamegraph. */
#include "gate/report.h"
#include "lib/report.h"

/*
 * NEEDSWORK: the flamegraph renderer (convert/flamegraph.h) has not landed on main; when
 * it does, colour head's stacks by the verdict (root causes and flagged frames red,
 * improvements blue, the rest grey) and write through it.
 */
int gate_report_svg(const struct gate_verdict *v, const struct gate_profile *base,
		    const struct gate_profile *head, const char *path)
{
	return pgo_error("cannot write '%s': --svg needs the flamegraph renderer, which this "
			 "build of pgo does not have yet", path);
}
