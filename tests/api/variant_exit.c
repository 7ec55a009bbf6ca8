/*
 * A process that exits while the background builder compiles its first variant
 * (runtime/variant.c). The builder finishes its queued jobs at exit, and that must happen
 * before the compiler's libraries tear down their own state at exit: a program whose build came
 * from the kernel cache has run no compile before its variant's, so whatever the compiler sets
 * up on first use is set up on the builder's thread, after the runtime registered its exit
 * handler.
 *
 *   test_api_variant_exit build SEED   builds the program of SEED, so that the cache holds it
 *   test_api_variant_exit exit SEED [MS]
 *                                      builds it again (a cache hit), runs a kernel with a local
 *                                      size (KILN_VARIANTS=1: its variant is queued for the
 *                                      builder), waits MS milliseconds (default 0), releases
 *                                      everything and returns
 *
 * tests/api/CMakeLists.txt runs both with new seeds and waits of 0 to 11 ms, so that the exit
 * meets the builder at different points of its build, under MALLOC_PERTURB_ (glibc fills freed
 * memory, so a table freed under the build is garbage to it: the builder then spun for ever in a
 * hash table lookup, or crashed); each process must exit 0.
 */
#include "kiln_test.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

int main(int argc, char **argv)
{
    if (argc < 3 || argc > 4 || (strcmp(argv[1], "build") != 0 && strcmp(argv[1], "exit") != 0)) {
        fprintf(stderr, "usage: %s build SEED | exit SEED [MS]\n", argv[0]);
        return 2;
    }
    char src[256];
    snprintf(src, sizeof(src),
             "kernel void k(global int *o) { o[get_global_id(0)] = %d + (int)get_local_id(0); }\n",
             atoi(argv[2]));
    struct kt_env env;
    kt_setup(&env, 0);
    cl_program p = kt_build(&env, src, NULL);
    if (strcmp(argv[1], "exit") == 0) {
        cl_int err;
        cl_kernel k = clCreateKernel(p, "k", &err);
        KT_REQUIRE(err == CL_SUCCESS, "clCreateKernel: %d", err);
        cl_mem out = clCreateBuffer(env.context, CL_MEM_READ_WRITE, 64 * sizeof(int), NULL, &err);
        KT_REQUIRE(err == CL_SUCCESS, "clCreateBuffer: %d", err);
        KT_EXPECT(clSetKernelArg(k, 0, sizeof(out), &out), CL_SUCCESS);
        size_t global = 64, local = 16;
        KT_EXPECT(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &global, &local, 0, NULL, NULL),
                  CL_SUCCESS);
        int got[64];
        KT_EXPECT(clEnqueueReadBuffer(env.queue, out, CL_TRUE, 0, sizeof(got), got, 0, NULL, NULL),
                  CL_SUCCESS);
        int bad = 0;
        for (int i = 0; i < 64; i++)
            bad += got[i] != atoi(argv[2]) + i % 16;
        KT_CHECK(bad == 0, "%d wrong results", bad);
        long ms = argc == 4 ? atol(argv[3]) : 0;
        struct timespec wait = {ms / 1000, ms % 1000 * 1000000L};
        nanosleep(&wait, NULL);
        clReleaseMemObject(out);
        clReleaseKernel(k);
    }
    clReleaseProgram(p);
    kt_teardown(&env);
    return kt_finish("variant_exit");
}
