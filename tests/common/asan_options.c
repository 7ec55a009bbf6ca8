/*
 * Default AddressSanitizer options of the test programs in a GCC (before 14) AddressSanitizer
 * build: intercept_tls_get_addr=0.
 *
 * Why: the sanitizer runtime of GCC 12 and 13 (and LLVM before 17) intercepts __tls_get_addr
 * to learn where each dynamic TLS block lies, and guesses that a block starting 16 bytes into a
 * page carries the header that glibc before 2.25 put in front of it; it then takes the two
 * words before the block for its address and size. With glibc 2.25 and later there is no such
 * header, and a block that glibc's malloc (the sanitizer's) happens to place there gives
 * LeakSanitizer a range of garbage to scan at exit: "Tracer caught signal 11". Kiln's own
 * thread-locals are initial-exec (static TLS), but LLVM's and Clang's libraries, which the
 * compiler library loads with dlopen, have general-dynamic ones, so the main thread of every
 * test that builds a kernel gets such blocks; where one lands depends on the test's earlier
 * allocations, which is why one test (api/atomics) crashed on every run and the others never.
 *
 * Without the interceptor, LeakSanitizer still finds what dynamic TLS blocks point to: the
 * blocks are ordinary heap chunks, reachable from the thread's DTV. Options in ASAN_OPTIONS
 * still apply on top of these. Clang 19's runtime (scripts/test.sh's checked build) reads the
 * block bounds from its allocator instead and needs none of this.
 */
__attribute__((visibility("default"))) const char *__asan_default_options(void);

const char *__asan_default_options(void)
{
    return "intercept_tls_get_addr=0";
}
