// SPDX-License-Identifier: MIT
/* offcpu-pingpong built the default way (-O2 -g, no frame pointers): see nofp-waits.c. */
#include "offcpu-pingpong.c"
