/* Stage 6, code generation: the optimised module into an ELF object in memory. */
#ifndef KILN_COMPILER_CODEGEN_CODEGEN_H
#define KILN_COMPILER_CODEGEN_CODEGEN_H

#include "cc_util.h"

/* On KILN_CC_OK *object is the emitted ELF object, owned by the caller. */
enum kiln_cc_status kiln_cc_codegen(struct kiln_cc_build *b, LLVMMemoryBufferRef *object);

#endif
