/*
 * LLVM 19's default<O3> in three parts (o3_pipeline.c): run one after the other they are
 * default<O3>. Kiln's own passes run between them, never inside; tests/compiler/
 * o3_pipeline.py checks the parts against the LLVM Kiln is built with. Needs no LLVM header,
 * so that the test compiles o3_pipeline.c alone.
 */
#ifndef KILN_COMPILER_OPTIMIZE_O3_PIPELINE_H
#define KILN_COMPILER_OPTIMIZE_O3_PIPELINE_H

/* Up to the loop vectoriser. */
extern const char kiln_cc_o3_before_vectorize[];
/* The loop vectoriser, as default<O3> runs it. */
extern const char kiln_cc_o3_vectorize[];
/* The rest. */
extern const char kiln_cc_o3_after_vectorize[];

#endif
