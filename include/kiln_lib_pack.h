/*
 * The kernel library as the compiler embeds it: the finalized library cut into parts, each a
 * bitcode module of its own, with an index from a builtin's name to the part that holds it.
 *
 * kernel-lib/tools/split.c writes it at build time; device-cpu/compiler/2-link/link_library.c
 * reads it in place. A build then reads only the parts of the builtins it calls, not the
 * whole library's symbol table (docs/kernel-lib.md, *Parts*).
 *
 * Layout, native byte order (the pack never leaves the build that made it):
 *
 *     struct kiln_lib_pack_head
 *     struct kiln_lib_pack_part     parts[head.parts]
 *     struct kiln_lib_pack_name     names[head.names]   sorted by strcmp of their text
 *     the names' text, each ending in NUL
 *     the parts' bitcode, each starting at a multiple of KILN_LIB_PACK_ALIGN
 *
 * A part holds the definitions of the builtins the index names for it (its members) and of
 * every library function they reach, so linking one part resolves all its members' calls;
 * a function reached from several members may be in several parts, and LLVM's linker keeps
 * the first copy of such a linkonce_odr definition.
 */
#ifndef KILN_LIB_PACK_H
#define KILN_LIB_PACK_H

#include <stdint.h>

#define KILN_LIB_PACK_MAGIC "KILNLIB1"
#define KILN_LIB_PACK_ALIGN 16

struct kiln_lib_pack_head {
    char magic[8]; /* KILN_LIB_PACK_MAGIC, no NUL */
    uint32_t parts;
    uint32_t names;
};

struct kiln_lib_pack_part {
    uint64_t offset; /* of the bitcode, from the start of the pack */
    uint64_t size;
};

struct kiln_lib_pack_name {
    uint32_t text; /* offset of the name's text from the start of the pack */
    uint32_t part;
};

#endif
