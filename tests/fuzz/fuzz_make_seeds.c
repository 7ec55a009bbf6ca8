/*
 * Writes the seeds of fuzz_program_binary and fuzz_cache_entry: the binary of each
 * OpenCL C file given (built as fuzz_build_source builds it, options from a first
 * line "// options: ..."), as OUTDIR/<file name>.bin, and a compiled object and a
 * library of the first file (object.bin, library.bin). The binaries hold this
 * machine's CPU and this build's ids, which is why they are made at run time.
 *
 *   fuzz_make_seeds OUTDIR FILE.cl...
 *
 * A file that does not build is passed over (the corpus holds refused sources too).
 * Exits 1 if the loader shows no Kiln, a file cannot be read or written, or no file
 * builds.
 */
#include "fuzz_common.h"

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    FZ_REQUIRE(f, "cannot open %s", path);
    char *text = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len + 4096 + 1 > cap) {
            cap = cap ? 2 * cap : 8192;
            text = realloc(text, cap);
            FZ_REQUIRE(text, "out of memory");
        }
        size_t n = fread(text + len, 1, 4096, f);
        len += n;
        if (n == 0)
            break;
    }
    fclose(f);
    text[len] = '\0';
    return text;
}

static void write_binary(const char *dir, const char *name, cl_program p)
{
    size_t size;
    uint8_t *bin = fz_program_binary(p, &size);
    FZ_REQUIRE(bin, "no binary for %s", name);
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s.bin", dir, name);
    FILE *f = fopen(path, "wb");
    FZ_REQUIRE(f && fwrite(bin, 1, size, f) == size && fclose(f) == 0, "cannot write %s", path);
    free(bin);
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

int main(int argc, char **argv)
{
    FZ_REQUIRE(argc >= 3, "usage: fuzz_make_seeds OUTDIR FILE.cl...");
    setenv("KILN_CACHE_DIR", "off", 1);
    fz_setup_context();
    int built = 0;
    for (int i = 2; i < argc; i++) {
        char *src = read_file(argv[i]);
        cl_program p = fz_build_source(src);
        if (!p) {
            free(src);
            continue;
        }
        write_binary(argv[1], base_name(argv[i]), p);
        clReleaseProgram(p);
        if (built++ == 0) {
            cl_int err;
            const char *text = src;
            cl_program obj = clCreateProgramWithSource(fz.context, 1, &text, NULL, &err);
            FZ_REQUIRE(obj, "clCreateProgramWithSource: %d", err);
            err = clCompileProgram(obj, 1, &fz.device, NULL, 0, NULL, NULL, NULL, NULL);
            FZ_REQUIRE(err == CL_SUCCESS, "clCompileProgram of %s: %d", argv[i], err);
            write_binary(argv[1], "object", obj);
            cl_program lib = clLinkProgram(fz.context, 1, &fz.device, "-create-library", 1, &obj,
                                           NULL, NULL, &err);
            FZ_REQUIRE(lib, "clLinkProgram -create-library: %d", err);
            write_binary(argv[1], "library", lib);
            clReleaseProgram(lib);
            clReleaseProgram(obj);
        }
        free(src);
    }
    FZ_REQUIRE(built > 0, "none of the %d files builds", argc - 2);
    printf("%d binaries of %d files, an object and a library in %s\n", built, argc - 2, argv[1]);
    clReleaseContext(fz.context);
    return 0;
}
