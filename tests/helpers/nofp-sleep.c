// SPDX-License-Identifier: MIT
/* offcpu-sleep built the default way (-O2 -g, no frame pointers): see nofp-waits.c. */
#include "offcpu-sleep.c"
