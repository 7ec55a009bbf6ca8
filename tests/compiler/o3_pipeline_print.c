/*
 * Prints the three parts of default<O3> the optimisation stage runs
 * (device-cpu/compiler/5-optimize/o3_pipeline.c), one a line, for o3_pipeline.py.
 */
#include "o3_pipeline.h"

#include <stdio.h>

int main(void)
{
    printf("%s\n%s\n%s\n", kiln_cc_o3_before_vectorize, kiln_cc_o3_vectorize,
           kiln_cc_o3_after_vectorize);
    return 0;
}
