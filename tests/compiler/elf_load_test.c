/*
 * Tests of the object loader (elf_load.c) on its own: an object the system C
 * compiler made from elf_sample.c is loaded and its functions called; then damaged
 * copies of it must be refused with the reason in the log, never crash.
 *
 * Usage: kiln-elf-load-test ELF_SAMPLE.o
 */
#include "check.h"
#include "binary.h"

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int probe(int v)
{
    return v * 3;
}

/* What fiber_rt.c gives libkiln-cc.so; here "kiln.fiber.run" is the probe. */
const struct kiln_cc_runtime_symbol kiln_cc_runtime_symbols[KILN_CC_NUM_RUNTIME_SYMBOLS] = {
    {KILN_CC_FIBER_RUN, (void (*)(void))probe},
    {KILN_CC_FIBER_BARRIER, (void (*)(void))probe},
};

static const char *const names[] = {"sample_sum", "sample_fill", "sample_sqrt", "sample_probe"};
enum { NUM_NAMES = 4 };

static int load_and_run(const uint8_t *obj, size_t size)
{
    struct kiln_cc_code code = {0};
    uintptr_t at[NUM_NAMES];
    struct kiln_cc_log log;
    kiln_cc_log_init(&log);
    bool ok = kiln_cc_elf_load(obj, size, names, NUM_NAMES, &code, at, &log);
    if (!ok)
        fprintf(stderr, "%s", log.text ? log.text : "(no log)\n");
    CHECK(ok && code.base);
    int (*sum)(int) = (int (*)(int))at[0];
    void (*fill)(char *, int, unsigned long) = (void (*)(char *, int, unsigned long))at[1];
    double (*root)(double) = (double (*)(double))at[2];
    int (*call_probe)(int) = (int (*)(int))at[3];
    /* 1+...+8 + 1+2 = 39, plus the counter: 5, then 6 (the variable is written). */
    CHECK(sum(10) == 44);
    CHECK(sum(10) == 45);
    char buf[300];
    memset(buf, 0, sizeof(buf));
    fill(buf + 1, 'k', 257);
    CHECK(buf[0] == 0 && buf[1] == 'k' && buf[257] == 'k' && buf[258] == 0);
    CHECK(root(2.25) == 1.5);
    CHECK(call_probe(7) == 22);
    /* Each load has its own copy of the data. */
    struct kiln_cc_code second = {0};
    uintptr_t at2[NUM_NAMES];
    CHECK(kiln_cc_elf_load(obj, size, names, NUM_NAMES, &second, at2, &log));
    CHECK(((int (*)(int))at2[0])(10) == 44);
    kiln_cc_elf_unload(&second);
    kiln_cc_elf_unload(&code);
    CHECK(code.base == NULL);
    free(kiln_cc_log_take(&log));
    return 0;
}

/* A damaged copy must be refused with `reason` in the log. */
static int refused(const uint8_t *obj, size_t size, const char *const *want, unsigned n,
                   const char *reason, const char *what)
{
    struct kiln_cc_code code = {0};
    uintptr_t at[NUM_NAMES];
    struct kiln_cc_log log;
    kiln_cc_log_init(&log);
    bool ok = kiln_cc_elf_load(obj, size, want, n, &code, at, &log);
    fprintf(stderr, "%s: %s", what, log.text ? log.text : "loaded\n");
    CHECK(!ok && code.base == NULL);
    CHECK(log.text && strstr(log.text, reason));
    free(kiln_cc_log_take(&log));
    return 0;
}

static const Elf64_Shdr *section(const uint8_t *obj, const char *name)
{
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)obj;
    const Elf64_Shdr *sh = (const Elf64_Shdr *)(obj + eh->e_shoff);
    const char *names = (const char *)obj + sh[eh->e_shstrndx].sh_offset;
    for (unsigned i = 0; i < eh->e_shnum; i++)
        if (strcmp(names + sh[i].sh_name, name) == 0)
            return &sh[i];
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s ELF_SAMPLE.o\n", argv[0]);
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    CHECK(f);
    static uint8_t obj[1 << 16], copy[1 << 16];
    size_t size = fread(obj, 1, sizeof(obj), f);
    fclose(f);
    CHECK(size > sizeof(Elf64_Ehdr) && size < sizeof(obj));
    CHECK(load_and_run(obj, size) == 0);

    const Elf64_Shdr *rela = section(obj, ".rela.text");
    const Elf64_Shdr *strtab = section(obj, ".strtab");
    const Elf64_Shdr *data = section(obj, ".data");
    CHECK(rela && strtab && data && rela->sh_size >= sizeof(Elf64_Rela));
    size_t rela_at = rela->sh_offset, data_index = (size_t)(data - section(obj, ""));
    Elf64_Ehdr *eh = (Elf64_Ehdr *)copy;
    Elf64_Rela *r = (Elf64_Rela *)(copy + rela_at);
    Elf64_Shdr *sh = (Elf64_Shdr *)(copy + ((const Elf64_Ehdr *)obj)->e_shoff);
    int failures = 0;

    failures += refused(obj, 40, names, NUM_NAMES, "shorter than an ELF header", "short");
    failures += refused(obj, size / 2, names, NUM_NAMES, "bad section table", "truncated");
    /* A section that claims more bytes than the object has. */
    memcpy(copy, obj, size);
    sh[data_index].sh_size = size;
    failures += refused(copy, size, names, NUM_NAMES, "outside the object", "section size");
    /* The symbol names, which the symbol table comes before, beyond the object. */
    memcpy(copy, obj, size);
    sh[strtab - section(obj, "")].sh_offset = (Elf64_Off)1 << 40;
    failures += refused(copy, size, names, NUM_NAMES, "outside the object", "names offset");
    memcpy(copy, obj, size);
    eh->e_machine = EM_AARCH64;
    failures += refused(copy, size, names, NUM_NAMES, "not an x86-64", "machine");
    memcpy(copy, obj, size);
    r->r_info = ELF64_R_INFO(ELF64_R_SYM(r->r_info), R_X86_64_TPOFF32);
    failures += refused(copy, size, names, NUM_NAMES, "relocation type 23", "relocation type");
    memcpy(copy, obj, size);
    r->r_info = ELF64_R_INFO(0xffffff, ELF64_R_TYPE(r->r_info));
    failures += refused(copy, size, names, NUM_NAMES, "names no symbol", "symbol index");
    memcpy(copy, obj, size);
    r->r_offset = 1u << 30;
    failures += refused(copy, size, names, NUM_NAMES, "outside its section", "offset");
    memcpy(copy, obj, size);
    sh[data_index].sh_flags |= SHF_TLS;
    failures += refused(copy, size, names, NUM_NAMES, "thread-local", "tls");
    /* An outside function that is not on the list. */
    memcpy(copy, obj, size);
    char *memset_name =
        memmem(copy + strtab->sh_offset, strtab->sh_size, "memset", sizeof("memset"));
    CHECK(memset_name);
    memset_name[3] = 'x';
    failures += refused(copy, size, names, NUM_NAMES, "undefined symbol memxet", "outside");
    static const char *const missing[] = {"sample_sum", "no_such_function"};
    failures += refused(obj, size, missing, 2, "no function no_such_function", "missing");
    CHECK(failures == 0);
    fprintf(stderr, "all checks passed\n");
    return 0;
}
