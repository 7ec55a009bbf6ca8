/*
 * Loading stage: places the ELF relocatable object the code generator emitted in
 * memory of this process, applies its relocations and finds the work-group
 * functions. It uses no LLVM, so that a program served from the kernel cache (or
 * from a binary) loads without libkiln-cc-llvm.so.
 *
 * What an object may hold is what LLVM's x86-64 code generator emits for position-
 * independent code with the small code model (codegen.c): allocated PROGBITS and
 * NOBITS sections (code, read-only data, constant pools, data, zero data,
 * .eh_frame), one symbol table, and RELA relocations of the kinds below. Anything
 * else (thread-local data, constructors, COMMON symbols, other relocations) is
 * refused with the reason, never guessed at.
 *
 * Layout: one anonymous mapping, code first (then one 16-byte stub per outside
 * function, so that a 32-bit call reaches it), read-only execute; after a page
 * boundary everything else plus the GOT (a slot per outside symbol and per symbol
 * a GOT relocation names), read-write.
 *
 * The outside symbols an object may name are the runtime's entry points of
 * fiber_rt.c and what LLVM calls on its own (memcpy, a few libm functions, the
 * half-precision conversions); check_support.c has refused every other undefined
 * function before code generation, and this list refuses them again here, so a
 * kernel never binds to an arbitrary symbol of the host program.
 */
#include "binary.h"

#include <dlfcn.h>
#include <elf.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#if !defined(__x86_64__)
#error "elf_load.c loads x86-64 objects only"
#endif

/* Functions LLVM's code generator may call by name besides the runtime's. */
static const struct {
    const char *name;
    void *address; /* NULL: looked up in the process (libgcc's helpers) */
} outside[] = {
    {"memcpy", (void *)memcpy}, {"memmove", (void *)memmove}, {"memset", (void *)memset},
    {"fmaf", (void *)fmaf},     {"fma", (void *)fma},         {"sqrtf", (void *)sqrtf},
    {"sqrt", (void *)sqrt},     {"fminf", (void *)fminf},     {"fmin", (void *)fmin},
    {"fmaxf", (void *)fmaxf},   {"fmax", (void *)fmax},       {"fabsf", (void *)fabsf},
    {"fabs", (void *)fabs},     {"floorf", (void *)floorf},   {"floor", (void *)floor},
    {"ceilf", (void *)ceilf},   {"ceil", (void *)ceil},       {"truncf", (void *)truncf},
    {"trunc", (void *)trunc},   {"rintf", (void *)rintf},     {"rint", (void *)rint},
    {"roundf", (void *)roundf}, {"round", (void *)round},     {"__extendhfsf2", NULL},
    {"__truncsfhf2", NULL},     {"__truncdfhf2", NULL},
};

#define STUB_SIZE 16

struct loader {
    const uint8_t *obj;
    size_t size;
    const Elf64_Ehdr *eh;
    const Elf64_Shdr *sh;
    unsigned num_sections;
    const Elf64_Sym *syms;
    size_t num_syms;
    const char *strtab;
    size_t strtab_size;
    uintptr_t *section_addr; /* per section; 0 when not loaded */
    uintptr_t *sym_addr;     /* per symbol, once resolved */
    unsigned *slot;          /* per symbol: 1 + index of its GOT slot (and stub), or 0 */
    unsigned num_slots;
    uint8_t *base;
    size_t code_size, total;
    size_t stubs_off;
    uint8_t *stubs, *got;
    struct kiln_cc_log *log;
};

static bool fail(struct loader *l, const char *what)
{
    kiln_cc_log_printf(l->log, "error: kernel object: %s\n", what);
    return false;
}

static bool in_bounds(const struct loader *l, uint64_t off, uint64_t len)
{
    return off <= l->size && len <= l->size - off;
}

static const char *sym_name(const struct loader *l, const Elf64_Sym *s)
{
    if (s->st_name >= l->strtab_size ||
        !memchr(l->strtab + s->st_name, 0, l->strtab_size - s->st_name))
        return NULL;
    return l->strtab + s->st_name;
}

/* The header, the section table and the one symbol table, bounds-checked. */
static bool read_tables(struct loader *l)
{
    if (l->size < sizeof(Elf64_Ehdr))
        return fail(l, "shorter than an ELF header");
    l->eh = (const Elf64_Ehdr *)l->obj;
    const Elf64_Ehdr *eh = l->eh;
    if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
        eh->e_ident[EI_DATA] != ELFDATA2LSB || eh->e_type != ET_REL || eh->e_machine != EM_X86_64)
        return fail(l, "not an x86-64 ELF relocatable object");
    if (eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shnum == 0 ||
        !in_bounds(l, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr)) ||
        eh->e_shoff % 8 != 0)
        return fail(l, "bad section table");
    l->sh = (const Elf64_Shdr *)(l->obj + eh->e_shoff);
    l->num_sections = eh->e_shnum;
    /* Every section's bounds first: the symbol table names its string table by index. */
    for (unsigned i = 0; i < l->num_sections; i++) {
        const Elf64_Shdr *s = &l->sh[i];
        if (s->sh_type != SHT_NOBITS && s->sh_type != SHT_NULL &&
            !in_bounds(l, s->sh_offset, s->sh_size))
            return fail(l, "a section lies outside the object");
    }
    for (unsigned i = 0; i < l->num_sections; i++) {
        const Elf64_Shdr *s = &l->sh[i];
        if (s->sh_addralign > 4096)
            return fail(l, "a section asks for more than page alignment");
        if (s->sh_type == SHT_INIT_ARRAY || s->sh_type == SHT_FINI_ARRAY ||
            s->sh_type == SHT_PREINIT_ARRAY)
            return fail(l, "constructors or destructors");
        if ((s->sh_flags & SHF_TLS) != 0)
            return fail(l, "thread-local data");
        if (s->sh_type != SHT_SYMTAB)
            continue;
        if (l->syms)
            return fail(l, "two symbol tables");
        if (s->sh_entsize != sizeof(Elf64_Sym) || s->sh_offset % 8 != 0 ||
            s->sh_link >= l->num_sections)
            return fail(l, "bad symbol table");
        const Elf64_Shdr *str = &l->sh[s->sh_link];
        if (str->sh_type != SHT_STRTAB || str->sh_size == 0 ||
            l->obj[str->sh_offset + str->sh_size - 1] != 0)
            return fail(l, "bad symbol names");
        l->syms = (const Elf64_Sym *)(l->obj + s->sh_offset);
        l->num_syms = s->sh_size / sizeof(Elf64_Sym);
        l->strtab = (const char *)l->obj + str->sh_offset;
        l->strtab_size = str->sh_size;
    }
    if (!l->syms)
        return fail(l, "no symbol table");
    return true;
}

static void *outside_address(const char *name)
{
    for (size_t i = 0; i < KILN_CC_NUM_RUNTIME_SYMBOLS; i++)
        if (strcmp(name, kiln_cc_runtime_symbols[i].name) == 0)
            return (void *)kiln_cc_runtime_symbols[i].address;
    for (size_t i = 0; i < sizeof(outside) / sizeof(outside[0]); i++)
        if (strcmp(name, outside[i].name) == 0)
            return outside[i].address ? outside[i].address : dlsym(RTLD_DEFAULT, name);
    return NULL;
}

static bool loaded(const Elf64_Shdr *s)
{
    return (s->sh_flags & SHF_ALLOC) != 0 && s->sh_size != 0 &&
           (s->sh_type == SHT_PROGBITS || s->sh_type == SHT_NOBITS ||
            s->sh_type == SHT_X86_64_UNWIND);
}

static bool is_got(uint32_t type)
{
    return type == R_X86_64_GOTPCREL || type == R_X86_64_GOTPCRELX ||
           type == R_X86_64_REX_GOTPCRELX;
}

/*
 * Checks the relocation sections of loaded sections (relocate() relies on it) and
 * numbers the symbols that need a GOT slot: every undefined one a relocation names
 * (which also gets a stub) and every defined one a GOT relocation names. Undefined
 * symbols no relocation names are left alone.
 */
static bool count_slots(struct loader *l)
{
    for (size_t i = 1; i < l->num_syms; i++)
        if (l->syms[i].st_shndx == SHN_COMMON)
            return fail(l, "a COMMON symbol");
    for (unsigned i = 0; i < l->num_sections; i++) {
        const Elf64_Shdr *r = &l->sh[i];
        if (r->sh_type != SHT_RELA || r->sh_info >= l->num_sections || !loaded(&l->sh[r->sh_info]))
            continue;
        if (r->sh_entsize != sizeof(Elf64_Rela) || r->sh_offset % 8 != 0 ||
            r->sh_link >= l->num_sections || l->sh[r->sh_link].sh_type != SHT_SYMTAB)
            return fail(l, "bad relocation section");
        const Elf64_Rela *rel = (const Elf64_Rela *)(l->obj + r->sh_offset);
        for (size_t j = 0; j < r->sh_size / sizeof(Elf64_Rela); j++) {
            size_t sym = ELF64_R_SYM(rel[j].r_info);
            if (sym >= l->num_syms)
                return fail(l, "a relocation names no symbol");
            bool outside = l->syms[sym].st_shndx == SHN_UNDEF && sym != 0;
            if ((outside || is_got(ELF64_R_TYPE(rel[j].r_info))) && !l->slot[sym])
                l->slot[sym] = ++l->num_slots;
        }
    }
    return true;
}

static size_t align_up(size_t v, size_t a)
{
    return a > 1 ? (v + a - 1) / a * a : v;
}

/* Assigns every loaded section its place and maps the memory. */
static bool place_sections(struct loader *l)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t at = 0;
    uint64_t *offset = calloc(l->num_sections, sizeof(*offset));
    if (!offset)
        return fail(l, "out of memory");
    for (int pass = 0; pass < 2; pass++) {
        for (unsigned i = 0; i < l->num_sections; i++) {
            const Elf64_Shdr *s = &l->sh[i];
            bool code = (s->sh_flags & SHF_EXECINSTR) != 0;
            if (!loaded(s) || code != (pass == 0))
                continue;
            at = align_up(at, s->sh_addralign);
            offset[i] = at;
            at += s->sh_size;
        }
        if (pass == 0) {
            l->stubs_off = align_up(at, STUB_SIZE);
            l->code_size = align_up(l->stubs_off + (size_t)l->num_slots * STUB_SIZE, page);
            at = l->code_size + (size_t)l->num_slots * 8;
        }
    }
    l->total = align_up(at ? at : 1, page);
    void *m = mmap(NULL, l->total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) {
        free(offset);
        return fail(l, "cannot map memory for the code");
    }
    l->base = m;
    l->stubs = l->base + l->stubs_off;
    l->got = l->base + l->code_size;
    for (unsigned i = 0; i < l->num_sections; i++) {
        const Elf64_Shdr *s = &l->sh[i];
        if (!loaded(s))
            continue;
        l->section_addr[i] = (uintptr_t)(l->base + offset[i]);
        if (s->sh_type != SHT_NOBITS)
            memcpy(l->base + offset[i], l->obj + s->sh_offset, s->sh_size);
    }
    free(offset);
    return true;
}

/* Every symbol's address; an outside one gets its stub (jmp *slot(%rip)) and GOT slot. */
static bool resolve_symbols(struct loader *l)
{
    for (size_t i = 1; i < l->num_syms; i++) {
        const Elf64_Sym *s = &l->syms[i];
        if (l->slot[i] && s->st_shndx == SHN_UNDEF) {
            const char *name = sym_name(l, s);
            void *addr = name ? outside_address(name) : NULL;
            if (!addr && ELF64_ST_BIND(s->st_info) != STB_WEAK) {
                kiln_cc_log_printf(l->log, "error: kernel object: undefined symbol %s\n",
                                   name ? name : "(unnamed)");
                return false;
            }
            unsigned slot = l->slot[i] - 1;
            uint8_t *stub = l->stubs + (size_t)slot * STUB_SIZE;
            uint8_t *got = l->got + (size_t)slot * 8;
            uintptr_t target = (uintptr_t)addr;
            memcpy(got, &target, 8);
            /* jmp *rel32(%rip), rel32 reaching the GOT slot; int3 padding. */
            int32_t rel = (int32_t)(got - (stub + 6));
            stub[0] = 0xff;
            stub[1] = 0x25;
            memcpy(stub + 2, &rel, 4);
            memset(stub + 6, 0xcc, STUB_SIZE - 6);
            l->sym_addr[i] = addr ? (uintptr_t)stub : 0;
        } else if (s->st_shndx == SHN_ABS) {
            l->sym_addr[i] = s->st_value;
        } else if (s->st_shndx != SHN_UNDEF && s->st_shndx < l->num_sections) {
            if (!l->section_addr[s->st_shndx])
                continue; /* in a section not loaded: only debug data can name it */
            if (s->st_value > l->sh[s->st_shndx].sh_size)
                return fail(l, "a symbol lies outside its section");
            l->sym_addr[i] = l->section_addr[s->st_shndx] + s->st_value;
        } else if (s->st_shndx != SHN_UNDEF) {
            return fail(l, "a symbol of an unknown section");
        }
        if (l->slot[i] && s->st_shndx != SHN_UNDEF)
            memcpy(l->got + (size_t)(l->slot[i] - 1) * 8, &l->sym_addr[i], 8);
    }
    return true;
}

static bool fits32(int64_t v)
{
    return v >= INT32_MIN && v <= INT32_MAX;
}

/* Applies the RELA section `r` (checked by count_slots) to the section it relocates. */
static bool relocate(struct loader *l, const Elf64_Shdr *r)
{
    if (r->sh_info >= l->num_sections || !l->section_addr[r->sh_info])
        return true; /* relocates a section that is not loaded (debug data) */
    const Elf64_Shdr *target = &l->sh[r->sh_info];
    const Elf64_Rela *rel = (const Elf64_Rela *)(l->obj + r->sh_offset);
    size_t n = r->sh_size / sizeof(Elf64_Rela);
    uint8_t *section = (uint8_t *)l->section_addr[r->sh_info];
    for (size_t i = 0; i < n; i++) {
        uint32_t type = ELF64_R_TYPE(rel[i].r_info);
        size_t sym = ELF64_R_SYM(rel[i].r_info);
        if (type == R_X86_64_NONE)
            continue;
        unsigned width = type == R_X86_64_64 || type == R_X86_64_PC64 ? 8 : 4;
        if (rel[i].r_offset > target->sh_size || target->sh_size - rel[i].r_offset < width)
            return fail(l, "a relocation lies outside its section");
        uint8_t *at = section + rel[i].r_offset;
        /* Relocation arithmetic is modulo 2^64 (the addend of a damaged object may be anything),
         * so it is done unsigned; the 32-bit forms are then checked for range as signed. */
        uint64_t p = (uintptr_t)at, a = (uint64_t)rel[i].r_addend;
        uint64_t s = l->sym_addr[sym];
        unsigned slot = l->slot[sym];
        bool outside = slot && l->syms[sym].st_shndx == SHN_UNDEF;
        uint64_t u;
        switch (type) {
        case R_X86_64_64:
            /* data holding an address: the function itself, not its stub */
            u = outside ? *(const uintptr_t *)(l->got + (size_t)(slot - 1) * 8) + a : s + a;
            memcpy(at, &u, 8);
            continue;
        case R_X86_64_PC64:
            u = s + a - p;
            memcpy(at, &u, 8);
            continue;
        case R_X86_64_PC32:
        case R_X86_64_PLT32:
            u = s + a - p;
            break;
        case R_X86_64_GOTPCREL:
        case R_X86_64_GOTPCRELX:
        case R_X86_64_REX_GOTPCRELX:
            u = (uintptr_t)(l->got + (size_t)(slot - 1) * 8) + a - p;
            break;
        default:
            kiln_cc_log_printf(l->log, "error: kernel object: relocation type %u not supported\n",
                               type);
            return false;
        }
        int64_t v = (int64_t)u;
        if (!fits32(v))
            return fail(l, "a 32-bit relocation out of range");
        int32_t v32 = (int32_t)v;
        memcpy(at, &v32, 4);
    }
    return true;
}

/*
 * CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE: the data objects of writable sections are the
 * program-scope variables (function-scope `static` ones included); constants, string
 * literals and constant pools lie in read-only sections.
 */
static size_t variable_bytes(const struct loader *l)
{
    size_t total = 0;
    for (size_t i = 1; i < l->num_syms; i++) {
        const Elf64_Sym *s = &l->syms[i];
        if (ELF64_ST_TYPE(s->st_info) != STT_OBJECT || s->st_shndx == SHN_UNDEF ||
            s->st_shndx >= l->num_sections)
            continue;
        const Elf64_Shdr *sh = &l->sh[s->st_shndx];
        if ((sh->sh_flags & (SHF_ALLOC | SHF_WRITE)) == (SHF_ALLOC | SHF_WRITE) &&
            !(sh->sh_flags & SHF_EXECINSTR))
            total += s->st_size;
    }
    return total;
}

static void loader_free(struct loader *l)
{
    free(l->section_addr);
    free(l->sym_addr);
    free(l->slot);
}

bool kiln_cc_elf_load(const void *object, size_t size, const char *const *names, unsigned n,
                      struct kiln_cc_code *code, uintptr_t *addresses, struct kiln_cc_log *log)
{
    struct loader l = {.obj = object, .size = size, .log = log};
    /*
     * The tables are read in place as ELF structures, which need 8-byte alignment,
     * and their offsets are checked against it; a container puts the object at any
     * offset (container.c), so a misaligned object is read from an aligned copy.
     */
    uint8_t *aligned = NULL;
    if ((uintptr_t)object % 8 != 0) {
        aligned = malloc(size ? size : 1);
        if (!aligned)
            return fail(&l, "out of memory");
        memcpy(aligned, object, size);
        l.obj = aligned;
    }
    bool ok = read_tables(&l);
    if (ok) {
        l.section_addr = calloc(l.num_sections, sizeof(*l.section_addr));
        l.sym_addr = calloc(l.num_syms, sizeof(*l.sym_addr));
        l.slot = calloc(l.num_syms, sizeof(*l.slot));
        ok = (l.section_addr && l.sym_addr && l.slot) || fail(&l, "out of memory");
    }
    ok = ok && count_slots(&l) && place_sections(&l) && resolve_symbols(&l);
    for (unsigned i = 0; ok && i < l.num_sections; i++)
        if (l.sh[i].sh_type == SHT_RELA)
            ok = relocate(&l, &l.sh[i]);
        else if (l.sh[i].sh_type == SHT_REL)
            ok = fail(&l, "REL relocations");
    for (unsigned k = 0; ok && k < n; k++) {
        addresses[k] = 0;
        for (size_t i = 1; i < l.num_syms && !addresses[k]; i++) {
            const Elf64_Sym *s = &l.syms[i];
            const char *name = sym_name(&l, s);
            if (ELF64_ST_TYPE(s->st_info) == STT_FUNC && s->st_shndx != SHN_UNDEF && name &&
                strcmp(name, names[k]) == 0)
                addresses[k] = l.sym_addr[i];
        }
        if (!addresses[k]) {
            kiln_cc_log_printf(log, "error: kernel object: no function %s\n", names[k]);
            ok = false;
        }
    }
    if (ok && mprotect(l.base, l.code_size, PROT_READ | PROT_EXEC) != 0)
        ok = fail(&l, "cannot make the code executable");
    if (!ok && l.base)
        munmap(l.base, l.total);
    if (ok) {
        code->base = l.base;
        code->size = l.total;
        code->variable_bytes = variable_bytes(&l);
    }
    loader_free(&l);
    free(aligned);
    return ok;
}

void kiln_cc_elf_unload(struct kiln_cc_code *code)
{
    if (code->base)
        munmap(code->base, code->size);
    code->base = NULL;
    code->size = 0;
    code->variable_bytes = 0;
}
