/*
 * Stage 5, the optimisation pipeline: host CPU attributes, then default<O3> in halves
 * around the loop vectoriser, with the loop passes of 4-loops between them.
 */
#ifndef KILN_COMPILER_OPTIMIZE_OPTIMIZE_H
#define KILN_COMPILER_OPTIMIZE_OPTIMIZE_H

#include "cc_util.h"

enum kiln_cc_status kiln_cc_optimize(struct kiln_cc_build *b);
/* Sets each kernel's column_reuse from its optimised work-group function (column_reuse.c). */
void kiln_cc_note_column_reuse(struct kiln_cc_build *b);

#endif
