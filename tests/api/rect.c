/*
 * Rectangular transfers (clEnqueue{Read,Write,Copy}BufferRect): results against a
 * host reference, the zero-pitch defaults, large boxes that go to the workers,
 * every CL_INVALID_VALUE path, and CL_MEM_COPY_OVERLAP against a byte-by-byte
 * reference on many random boxes.
 */
#include "kiln_test.h"

#include <stdbool.h>

/* Reference: copy a box between two host layouts. */
static void ref_copy(unsigned char *dst, const size_t *dorg, size_t drow, size_t dslice,
                     const unsigned char *src, const size_t *sorg, size_t srow, size_t sslice,
                     const size_t *region)
{
    for (size_t z = 0; z < region[2]; z++)
        for (size_t y = 0; y < region[1]; y++)
            for (size_t x = 0; x < region[0]; x++)
                dst[(dorg[2] + z) * dslice + (dorg[1] + y) * drow + dorg[0] + x] =
                    src[(sorg[2] + z) * sslice + (sorg[1] + y) * srow + sorg[0] + x];
}

static unsigned rng_state = 12345;
static unsigned rnd(unsigned n)
{
    rng_state = rng_state * 1103515245u + 12345u;
    return (rng_state >> 8) % n;
}

static void check_bytes(const unsigned char *got, const unsigned char *want, size_t n,
                        const char *what)
{
    for (size_t i = 0; i < n; i++) {
        if (got[i] != want[i]) {
            KT_CHECK(0, "%s: byte %zu is %u, want %u", what, i, got[i], want[i]);
            return;
        }
    }
}

static void test_results(struct kt_env *env, size_t w, size_t h, size_t d, const char *what)
{
    /* Buffer: rows of brow bytes, slices of bslice bytes; host: its own pitches. */
    const size_t brow = w + 24, bslice = brow * (h + 3), bsize = bslice * (d + 2);
    const size_t hrow = w + 8, hslice = hrow * (h + 1), hsize = hslice * (d + 1);
    const size_t borg[3] = {5, 2, 1}, horg[3] = {3, 1, 0}, region[3] = {w, h, d};
    unsigned char *init = malloc(bsize), *want = malloc(bsize), *got = malloc(bsize);
    unsigned char *host = malloc(hsize), *hwant = malloc(hsize), *hgot = malloc(hsize);
    KT_REQUIRE(init && want && got && host && hwant && hgot, "malloc");
    for (size_t i = 0; i < bsize; i++)
        init[i] = (unsigned char)(i * 7 + 1);
    for (size_t i = 0; i < hsize; i++)
        host[i] = (unsigned char)(i * 13 + 5);
    cl_int err;
    cl_mem buf = clCreateBuffer(env->context, CL_MEM_COPY_HOST_PTR, bsize, init, &err);
    KT_REQUIRE(err == CL_SUCCESS, "buffer: %d", err);

    /* Write: host box -> buffer box. */
    memcpy(want, init, bsize);
    ref_copy(want, borg, brow, bslice, host, horg, hrow, hslice, region);
    KT_EXPECT(clEnqueueWriteBufferRect(env->queue, buf, CL_TRUE, borg, horg, region, brow, bslice,
                                       hrow, hslice, host, 0, NULL, NULL),
              CL_SUCCESS);
    KT_EXPECT(clEnqueueReadBuffer(env->queue, buf, CL_TRUE, 0, bsize, got, 0, NULL, NULL),
              CL_SUCCESS);
    check_bytes(got, want, bsize, what);

    /* Read: buffer box -> host box. */
    memset(hgot, 0xee, hsize);
    memset(hwant, 0xee, hsize);
    ref_copy(hwant, horg, hrow, hslice, want, borg, brow, bslice, region);
    cl_event ev;
    KT_EXPECT(clEnqueueReadBufferRect(env->queue, buf, CL_FALSE, borg, horg, region, brow, bslice,
                                      hrow, hslice, hgot, 0, NULL, &ev),
              CL_SUCCESS);
    KT_EXPECT(clWaitForEvents(1, &ev), CL_SUCCESS);
    cl_command_type type = 0;
    KT_EXPECT(clGetEventInfo(ev, CL_EVENT_COMMAND_TYPE, sizeof(type), &type, NULL), CL_SUCCESS);
    KT_CHECK(type == CL_COMMAND_READ_BUFFER_RECT, "type 0x%x", type);
    clReleaseEvent(ev);
    check_bytes(hgot, hwant, hsize, what);

    /* Copy within one buffer, boxes apart; and to a second buffer. */
    const size_t sorg[3] = {0, 0, 0}, dorg[3] = {0, 0, 1};
    const size_t small[3] = {w, h, 1};
    cl_mem other = clCreateBuffer(env->context, CL_MEM_COPY_HOST_PTR, bsize, init, &err);
    KT_REQUIRE(err == CL_SUCCESS, "buffer: %d", err);
    unsigned char *owant = malloc(bsize);
    memcpy(owant, init, bsize);
    ref_copy(owant, borg, brow, bslice, want, sorg, brow, bslice, region);
    KT_EXPECT(clEnqueueCopyBufferRect(env->queue, buf, other, sorg, borg, region, brow, bslice,
                                      brow, bslice, 0, NULL, NULL),
              CL_SUCCESS);
    ref_copy(want, dorg, brow, bslice, want, sorg, brow, bslice, small);
    KT_EXPECT(clEnqueueCopyBufferRect(env->queue, buf, buf, sorg, dorg, small, brow, bslice, brow,
                                      bslice, 0, NULL, NULL),
              CL_SUCCESS);
    KT_EXPECT(clEnqueueReadBuffer(env->queue, buf, CL_TRUE, 0, bsize, got, 0, NULL, NULL),
              CL_SUCCESS);
    check_bytes(got, want, bsize, what);
    KT_EXPECT(clEnqueueReadBuffer(env->queue, other, CL_TRUE, 0, bsize, got, 0, NULL, NULL),
              CL_SUCCESS);
    check_bytes(got, owant, bsize, what);

    clReleaseMemObject(other);
    clReleaseMemObject(buf);
    free(owant);
    free(init);
    free(want);
    free(got);
    free(host);
    free(hwant);
    free(hgot);
}

/* Zero pitches mean tightly packed: a whole 3-D box matches a plain read. */
static void test_default_pitches(struct kt_env *env)
{
    enum { W = 16, H = 4, D = 3 };
    unsigned char data[W * H * D], got[W * H * D];
    for (size_t i = 0; i < sizeof(data); i++)
        data[i] = (unsigned char)(255 - i);
    cl_int err;
    cl_mem buf = clCreateBuffer(env->context, CL_MEM_READ_WRITE, sizeof(data), NULL, &err);
    KT_REQUIRE(err == CL_SUCCESS, "buffer: %d", err);
    const size_t zero[3] = {0, 0, 0}, region[3] = {W, H, D};
    KT_EXPECT(clEnqueueWriteBufferRect(env->queue, buf, CL_TRUE, zero, zero, region, 0, 0, 0, 0,
                                       data, 0, NULL, NULL),
              CL_SUCCESS);
    KT_EXPECT(clEnqueueReadBuffer(env->queue, buf, CL_TRUE, 0, sizeof(got), got, 0, NULL, NULL),
              CL_SUCCESS);
    check_bytes(got, data, sizeof(data), "default pitches");
    /* Default slice pitch follows an explicit row pitch: region[1] * row. */
    memset(got, 0, sizeof(got));
    const size_t half[3] = {W / 2, H, D};
    KT_EXPECT(clEnqueueReadBufferRect(env->queue, buf, CL_TRUE, zero, zero, half, W, 0, W, 0, got,
                                      0, NULL, NULL),
              CL_SUCCESS);
    for (size_t i = 0; i < sizeof(data); i++)
        if ((i % W < W / 2 ? data[i] : 0) != got[i]) {
            KT_CHECK(0, "half box: byte %zu is %u", i, got[i]);
            break;
        }
    clReleaseMemObject(buf);
}

static void test_errors(struct kt_env *env)
{
    cl_int err;
    unsigned char host[4096];
    cl_mem buf = clCreateBuffer(env->context, CL_MEM_READ_WRITE, 1024, NULL, &err);
    KT_REQUIRE(err == CL_SUCCESS, "buffer: %d", err);
    const size_t o[3] = {0, 0, 0}, r[3] = {16, 4, 2};
    cl_command_queue q = env->queue;

    KT_EXPECT(clEnqueueReadBufferRect(NULL, buf, CL_TRUE, o, o, r, 0, 0, 0, 0, host, 0, NULL, NULL),
              CL_INVALID_COMMAND_QUEUE);
    KT_EXPECT(clEnqueueReadBufferRect(q, NULL, CL_TRUE, o, o, r, 0, 0, 0, 0, host, 0, NULL, NULL),
              CL_INVALID_MEM_OBJECT);
    KT_EXPECT(clEnqueueReadBufferRect(q, buf, CL_TRUE, o, o, r, 0, 0, 0, 0, NULL, 0, NULL, NULL),
              CL_INVALID_VALUE);
    KT_EXPECT(clEnqueueReadBufferRect(q, buf, CL_TRUE, NULL, o, r, 0, 0, 0, 0, host, 0, NULL, NULL),
              CL_INVALID_VALUE);
    KT_EXPECT(
        clEnqueueWriteBufferRect(q, buf, CL_TRUE, o, NULL, r, 0, 0, 0, 0, host, 0, NULL, NULL),
        CL_INVALID_VALUE);
    KT_EXPECT(clEnqueueReadBufferRect(q, buf, CL_TRUE, o, o, NULL, 0, 0, 0, 0, host, 0, NULL, NULL),
              CL_INVALID_VALUE);
    for (int i = 0; i < 3; i++) {
        size_t z[3] = {16, 4, 2};
        z[i] = 0;
        KT_EXPECT(
            clEnqueueReadBufferRect(q, buf, CL_TRUE, o, o, z, 0, 0, 0, 0, host, 0, NULL, NULL),
            CL_INVALID_VALUE);
    }
    /* Row pitches below region[0]. */
    KT_EXPECT(clEnqueueReadBufferRect(q, buf, CL_TRUE, o, o, r, 15, 0, 0, 0, host, 0, NULL, NULL),
              CL_INVALID_VALUE);
    KT_EXPECT(clEnqueueReadBufferRect(q, buf, CL_TRUE, o, o, r, 0, 0, 15, 0, host, 0, NULL, NULL),
              CL_INVALID_VALUE);
    /* Slice pitches below region[1] * row pitch, or not a multiple of it. */
    KT_EXPECT(clEnqueueReadBufferRect(q, buf, CL_TRUE, o, o, r, 16, 63, 0, 0, host, 0, NULL, NULL),
              CL_INVALID_VALUE);
    KT_EXPECT(clEnqueueReadBufferRect(q, buf, CL_TRUE, o, o, r, 16, 72, 0, 0, host, 0, NULL, NULL),
              CL_INVALID_VALUE);
    KT_EXPECT(clEnqueueWriteBufferRect(q, buf, CL_TRUE, o, o, r, 0, 0, 20, 79, host, 0, NULL, NULL),
              CL_INVALID_VALUE);
    KT_EXPECT(clEnqueueWriteBufferRect(q, buf, CL_TRUE, o, o, r, 0, 0, 20, 90, host, 0, NULL, NULL),
              CL_INVALID_VALUE);
    KT_EXPECT(clEnqueueWriteBufferRect(q, buf, CL_TRUE, o, o, r, 0, 0, 20, 80, host, 0, NULL, NULL),
              CL_SUCCESS);
    /* Out of bounds: the last byte of the box is byte 1024. */
    const size_t big[3] = {16, 4, 4};              /* 16 * 4 * 4 = 256 bytes with pitch 16/64 */
    const size_t end[3] = {1, 0, 12};              /* 12 * 64 + 1 + 255 = 1024: one past the end */
    const size_t fits[3] = {0, 0, 12};             /* ends exactly at 1024 */
    const size_t huge[3] = {0, (size_t)-1 / 8, 0}; /* overflowing origin */
    KT_EXPECT(
        clEnqueueReadBufferRect(q, buf, CL_TRUE, end, o, big, 16, 64, 0, 0, host, 0, NULL, NULL),
        CL_INVALID_VALUE);
    KT_EXPECT(
        clEnqueueReadBufferRect(q, buf, CL_TRUE, fits, o, big, 16, 64, 0, 0, host, 0, NULL, NULL),
        CL_SUCCESS);
    KT_EXPECT(
        clEnqueueReadBufferRect(q, buf, CL_TRUE, huge, o, big, 16, 64, 0, 0, host, 0, NULL, NULL),
        CL_INVALID_VALUE);
    const size_t toolong[3] = {1025, 1, 1};
    KT_EXPECT(
        clEnqueueReadBufferRect(q, buf, CL_TRUE, o, o, toolong, 0, 0, 0, 0, host, 0, NULL, NULL),
        CL_INVALID_VALUE);
    /* Wait lists. */
    KT_EXPECT(clEnqueueReadBufferRect(q, buf, CL_TRUE, o, o, r, 0, 0, 0, 0, host, 1, NULL, NULL),
              CL_INVALID_EVENT_WAIT_LIST);
    /* Host access flags. */
    cl_mem hw = clCreateBuffer(env->context, CL_MEM_HOST_WRITE_ONLY, 1024, NULL, &err);
    cl_mem hr = clCreateBuffer(env->context, CL_MEM_HOST_READ_ONLY, 1024, NULL, &err);
    KT_EXPECT(clEnqueueReadBufferRect(q, hw, CL_TRUE, o, o, r, 0, 0, 0, 0, host, 0, NULL, NULL),
              CL_INVALID_OPERATION);
    KT_EXPECT(clEnqueueWriteBufferRect(q, hr, CL_TRUE, o, o, r, 0, 0, 0, 0, host, 0, NULL, NULL),
              CL_INVALID_OPERATION);
    KT_EXPECT(clEnqueueWriteBufferRect(q, hw, CL_TRUE, o, o, r, 0, 0, 0, 0, host, 0, NULL, NULL),
              CL_SUCCESS);

    /* Copies. */
    cl_event ev = (cl_event)0x1;
    KT_EXPECT(clEnqueueCopyBufferRect(q, buf, NULL, o, o, r, 0, 0, 0, 0, 0, NULL, &ev),
              CL_INVALID_MEM_OBJECT);
    KT_CHECK(ev == (cl_event)0x1, "event written on failure");
    KT_EXPECT(clEnqueueCopyBufferRect(q, buf, hw, NULL, o, r, 0, 0, 0, 0, 0, NULL, NULL),
              CL_INVALID_VALUE);
    KT_EXPECT(clEnqueueCopyBufferRect(q, buf, hw, o, o, r, 0, 0, 8, 0, 0, NULL, NULL),
              CL_INVALID_VALUE);
    KT_EXPECT(clEnqueueCopyBufferRect(q, buf, hw, end, o, big, 16, 64, 0, 0, 0, NULL, NULL),
              CL_INVALID_VALUE);
    KT_EXPECT(clEnqueueCopyBufferRect(q, buf, hw, o, end, big, 0, 0, 16, 64, 0, NULL, NULL),
              CL_INVALID_VALUE);
    /* The same buffer with different pitches. */
    const size_t far[3] = {0, 0, 8};
    KT_EXPECT(clEnqueueCopyBufferRect(q, buf, buf, o, far, r, 16, 64, 32, 128, 0, NULL, NULL),
              CL_INVALID_VALUE);
    KT_EXPECT(clEnqueueCopyBufferRect(q, buf, buf, o, far, r, 16, 64, 16, 128, 0, NULL, NULL),
              CL_INVALID_VALUE);
    KT_EXPECT(clEnqueueCopyBufferRect(q, buf, buf, o, far, r, 16, 64, 16, 64, 0, NULL, NULL),
              CL_SUCCESS);
    /* Side by side in the same rows: their byte ranges interleave, but no byte is shared. */
    const size_t left[3] = {0, 0, 0}, right[3] = {16, 0, 0};
    KT_EXPECT(clEnqueueCopyBufferRect(q, buf, buf, left, right, r, 32, 128, 32, 128, 0, NULL, NULL),
              CL_SUCCESS);
    const size_t shifted[3] = {15, 0, 0};
    KT_EXPECT(
        clEnqueueCopyBufferRect(q, buf, buf, left, shifted, r, 32, 128, 32, 128, 0, NULL, NULL),
        CL_MEM_COPY_OVERLAP);
    KT_EXPECT(clEnqueueCopyBufferRect(q, buf, buf, o, o, r, 0, 0, 0, 0, 0, NULL, NULL),
              CL_MEM_COPY_OVERLAP);
    KT_EXPECT(clFinish(q), CL_SUCCESS);
    clReleaseMemObject(hw);
    clReleaseMemObject(hr);
    clReleaseMemObject(buf);
}

/*
 * Random boxes in one buffer: the runtime must answer CL_MEM_COPY_OVERLAP exactly
 * when a byte-by-byte reference finds a shared byte, and copy correctly otherwise.
 */
static void test_overlap_random(struct kt_env *env)
{
    enum { SIZE = 4096 };
    static unsigned char mark[SIZE], init[SIZE], want[SIZE], got[SIZE];
    for (size_t i = 0; i < SIZE; i++)
        init[i] = (unsigned char)(i * 31 + 3);
    cl_int err;
    cl_mem buf = clCreateBuffer(env->context, CL_MEM_READ_WRITE, SIZE, NULL, &err);
    KT_REQUIRE(err == CL_SUCCESS, "buffer: %d", err);
    int overlaps = 0, copies = 0;
    for (int iter = 0; iter < 3000; iter++) {
        size_t region[3] = {1 + rnd(8), 1 + rnd(4), 1 + rnd(3)};
        size_t row = region[0] + rnd(6);
        size_t slice = row * (region[1] + rnd(3));
        size_t so[3], dn[3];
        /* Origins may run past a row (x beyond the pitch), as the API allows. */
        for (int i = 0; i < 3; i++) {
            so[i] = rnd(i == 0 ? 2 * (unsigned)row : 4);
            dn[i] = rnd(i == 0 ? 2 * (unsigned)row : 4);
        }
        size_t s_off = so[2] * slice + so[1] * row + so[0];
        size_t d_off = dn[2] * slice + dn[1] * row + dn[0];
        size_t extent = (region[2] - 1) * slice + (region[1] - 1) * row + region[0];
        if (s_off + extent > SIZE || d_off + extent > SIZE)
            continue;
        memset(mark, 0, SIZE);
        bool shared = false;
        for (size_t z = 0; z < region[2]; z++)
            for (size_t y = 0; y < region[1]; y++)
                for (size_t x = 0; x < region[0]; x++)
                    mark[s_off + z * slice + y * row + x] = 1;
        for (size_t z = 0; z < region[2]; z++)
            for (size_t y = 0; y < region[1]; y++)
                for (size_t x = 0; x < region[0]; x++)
                    shared |= mark[d_off + z * slice + y * row + x] != 0;
        KT_EXPECT(clEnqueueWriteBuffer(env->queue, buf, CL_FALSE, 0, SIZE, init, 0, NULL, NULL),
                  CL_SUCCESS);
        err = clEnqueueCopyBufferRect(env->queue, buf, buf, so, dn, region, row, slice, row, slice,
                                      0, NULL, NULL);
        if (shared) {
            overlaps++;
            KT_CHECK(err == CL_MEM_COPY_OVERLAP,
                     "overlapping boxes accepted (%d): region %zu,%zu,%zu row %zu slice %zu "
                     "src %zu dst %zu",
                     err, region[0], region[1], region[2], row, slice, s_off, d_off);
            continue;
        }
        copies++;
        KT_CHECK(
            err == CL_SUCCESS,
            "disjoint boxes refused (%d): region %zu,%zu,%zu row %zu slice %zu src %zu dst %zu",
            err, region[0], region[1], region[2], row, slice, s_off, d_off);
        memcpy(want, init, SIZE);
        ref_copy(want, dn, row, slice, init, so, row, slice, region);
        KT_EXPECT(clEnqueueReadBuffer(env->queue, buf, CL_TRUE, 0, SIZE, got, 0, NULL, NULL),
                  CL_SUCCESS);
        check_bytes(got, want, SIZE, "random copy");
    }
    /* The walk must have exercised both answers. */
    KT_CHECK(overlaps > 20 && copies > 20, "%d overlapping and %d disjoint cases", overlaps,
             copies);
    clReleaseMemObject(buf);
}

int main(void)
{
    struct kt_env env;
    kt_setup(&env, 0);
    test_results(&env, 13, 5, 3, "small box");
    test_results(&env, 1000, 300, 2, "large box on the workers");
    test_default_pitches(&env);
    test_errors(&env);
    test_overlap_random(&env);
    kt_teardown(&env);
    return kt_finish("rect");
}
