/*
 * Sub-groups (OpenCL C 3.0 §6.15.2, §6.15.17; clGetKernelSubGroupInfo), through the ICD
 * loader:
 *  - the device reports __opencl_c_subgroups and a maximum number of sub-groups;
 *  - a kernel records every sub-group work-item function and the collectives (all, any,
 *    broadcast, reduce/scan add/min/max for int, uint, long, float and double) around a
 *    sub_group_barrier, in a 3D range and in a 1D range with a partial last group; the
 *    host computes each value from the sub-group size the runtime reports for the launch
 *    (sub-groups as consecutive runs of local linear ids);
 *  - every clGetKernelSubGroupInfo query, with and without reqd_work_group_size, and its
 *    errors, outputs untouched on failure.
 */
#include "kiln_test.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define NVAL 24 /* values each work-item records */

static const char *src =
    "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
    "kernel void sg(global long *out, global double *fout)\n"
    "{\n"
    "    size_t lin = get_local_linear_id();\n"
    "    size_t gl = (get_group_id(2) * get_num_groups(1) + get_group_id(1)) * get_num_groups(0)\n"
    "                + get_group_id(0);\n"
    "    size_t slot = gl * get_enqueued_local_size(0) * get_enqueued_local_size(1)\n"
    "                  * get_enqueued_local_size(2) + lin;\n"
    "    global long *o = out + slot * 24;\n"
    "    global double *f = fout + slot * 8;\n"
    "    int x = (int)((lin * 7 + 3) % 11) - 5;\n"
    "    o[0] = get_sub_group_size(); o[1] = get_max_sub_group_size();\n"
    "    o[2] = get_num_sub_groups(); o[3] = get_enqueued_num_sub_groups();\n"
    "    o[4] = get_sub_group_id(); o[5] = get_sub_group_local_id();\n"
    "    sub_group_barrier(CLK_GLOBAL_MEM_FENCE);\n"
    "    o[6] = sub_group_all(x > -5); o[7] = sub_group_any(x == 5);\n"
    "    o[8] = sub_group_broadcast(x, 0);\n"
    "    o[9] = sub_group_reduce_add(x); o[10] = sub_group_reduce_min(x);\n"
    "    o[11] = sub_group_reduce_max(x);\n"
    "    o[12] = sub_group_scan_inclusive_add(x); o[13] = sub_group_scan_exclusive_add(x);\n"
    "    o[14] = sub_group_scan_inclusive_min(x); o[15] = sub_group_scan_exclusive_min(x);\n"
    "    o[16] = sub_group_scan_inclusive_max(x); o[17] = sub_group_scan_exclusive_max(x);\n"
    "    o[18] = sub_group_reduce_add((uint)(x + 5)); o[19] = "
    "sub_group_scan_exclusive_max((uint)x);\n"
    "    o[20] = sub_group_reduce_add((long)x * 1099511627776L); o[21] = "
    "sub_group_scan_exclusive_min((long)x);\n"
    "    o[22] = sub_group_broadcast((long)x * 3, 0);\n"
    "    sub_group_barrier(CLK_LOCAL_MEM_FENCE, memory_scope_sub_group);\n"
    "    o[23] = 1;\n"
    "    f[0] = sub_group_reduce_add((float)x * 0.5f); f[1] = "
    "sub_group_scan_exclusive_min((float)x);\n"
    "    f[2] = sub_group_scan_exclusive_max((float)x); f[3] = sub_group_broadcast((float)x, 0);\n"
    "    f[4] = sub_group_reduce_max((double)x); f[5] = sub_group_scan_inclusive_add((double)x);\n"
    "    f[6] = sub_group_scan_exclusive_add((double)x); f[7] = sub_group_reduce_min((double)x);\n"
    "}\n"
    "kernel __attribute__((reqd_work_group_size(4, 2, 1))) void fixed(global int *p) { }\n";

static long lmin(long a, long b)
{
    return a < b ? a : b;
}
static long lmax(long a, long b)
{
    return a > b ? a : b;
}

/* The expected records of one launch, from sub-group size s. */
static void check_launch(const long *o, const double *f, const size_t *global, const size_t *local,
                         size_t s, const char *what)
{
    size_t groups[3], n = 0;
    for (int d = 0; d < 3; d++)
        groups[d] = (global[d] + local[d] - 1) / local[d];
    size_t enq = local[0] * local[1] * local[2];
    for (size_t gz = 0; gz < groups[2]; gz++)
        for (size_t gy = 0; gy < groups[1]; gy++)
            for (size_t gx = 0; gx < groups[0]; gx++) {
                size_t g = (gz * groups[1] + gy) * groups[0] + gx, id[3] = {gx, gy, gz}, ls[3];
                for (int d = 0; d < 3; d++)
                    ls[d] = id[d] + 1 < groups[d] || global[d] % local[d] == 0
                                ? local[d]
                                : global[d] % local[d];
                size_t items = ls[0] * ls[1] * ls[2];
                size_t nsg = (items + s - 1) / s;
                for (size_t lin = 0; lin < items; lin++, n++) {
                    const long *r = o + (g * enq + lin) * NVAL;
                    const double *fr = f + (g * enq + lin) * 8;
                    size_t sgid = lin / s, first = sgid * s;
                    size_t size = lin / s + 1 < nsg || items % s == 0 ? s : items % s;
                    long want[NVAL] = {(long)size, (long)s,
                                       (long)nsg,  (long)((enq + s - 1) / s),
                                       (long)sgid, (long)(lin - first)};
                    long all = 1, any = 0, sum = 0, mn = 1000, mx = -1000, usum = 0;
                    long isum = 0, imin = 1000, imax = -1000, emin = 0, emax = 0, esum = 0;
                    long uemax = 0, lsum = 0, lemin = 0;
                    long b = (long)((first * 7 + 3) % 11) - 5;
                    for (size_t m = first; m < first + size; m++) {
                        long x = (long)((m * 7 + 3) % 11) - 5;
                        all &= x > -5;
                        any |= x == 5;
                        sum += x, mn = lmin(mn, x), mx = lmax(mx, x), usum += x + 5;
                        lsum += x * (1L << 40);
                        if (m < lin) {
                            esum += x;
                            emin = m == first ? x : lmin(emin, x);
                            emax = m == first ? x : lmax(emax, x);
                            uemax = m == first ? (long)(uint32_t)x : lmax(uemax, (long)(uint32_t)x);
                        }
                        if (m <= lin)
                            isum += x, imin = lmin(imin, x), imax = lmax(imax, x);
                    }
                    int excl_first = lin == first;
                    want[6] = all, want[7] = any, want[8] = b, want[9] = sum, want[10] = mn;
                    want[11] = mx, want[12] = isum, want[13] = esum;
                    want[14] = imin, want[15] = excl_first ? INT32_MAX : emin;
                    want[16] = imax, want[17] = excl_first ? INT32_MIN : emax;
                    want[18] = usum, want[19] = excl_first ? 0 : uemax, want[20] = lsum;
                    lemin = excl_first ? INT64_MAX : emin;
                    want[21] = lemin, want[22] = b * 3, want[23] = 1;
                    for (int v = 0; v < NVAL; v++)
                        KT_CHECK(r[v] == want[v], "%s: group %zu item %zu value %d: %ld, want %ld",
                                 what, g, lin, v, r[v], want[v]);
                    double fw[8] = {(double)sum * 0.5,
                                    excl_first ? INFINITY : (double)emin,
                                    excl_first ? -INFINITY : (double)emax,
                                    (double)b,
                                    (double)mx,
                                    (double)isum,
                                    (double)esum,
                                    (double)mn};
                    for (int v = 0; v < 8; v++)
                        KT_CHECK(fr[v] == fw[v], "%s: group %zu item %zu fp value %d: %g, want %g",
                                 what, g, lin, v, fr[v], fw[v]);
                }
            }
    KT_CHECK(n > 0, "%s: no work-item checked", what);
}

static void launch(struct kt_env *env, cl_kernel k, cl_uint dims, const size_t *global,
                   const size_t *local, const char *what)
{
    size_t g3[3] = {1, 1, 1}, l3[3] = {1, 1, 1};
    memcpy(g3, global, dims * sizeof(size_t));
    memcpy(l3, local, dims * sizeof(size_t));
    size_t slots = 1;
    for (int d = 0; d < 3; d++)
        slots *= (g3[d] + l3[d] - 1) / l3[d] * l3[d];
    long *o = calloc(slots * NVAL, sizeof(long));
    double *f = calloc(slots * 8, sizeof(double));
    KT_REQUIRE(o && f, "out of memory");
    cl_int err;
    cl_mem bo = clCreateBuffer(env->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                               slots * NVAL * sizeof(long), o, &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateBuffer: %d", err);
    cl_mem bf = clCreateBuffer(env->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                               slots * 8 * sizeof(double), f, &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateBuffer: %d", err);
    KT_REQUIRE_OK(clSetKernelArg(k, 0, sizeof(bo), &bo));
    KT_REQUIRE_OK(clSetKernelArg(k, 1, sizeof(bf), &bf));
    KT_REQUIRE_OK(clEnqueueNDRangeKernel(env->queue, k, dims, NULL, global, local, 0, NULL, NULL));
    KT_REQUIRE_OK(clEnqueueReadBuffer(env->queue, bo, CL_TRUE, 0, slots * NVAL * sizeof(long), o, 0,
                                      NULL, NULL));
    KT_REQUIRE_OK(clEnqueueReadBuffer(env->queue, bf, CL_TRUE, 0, slots * 8 * sizeof(double), f, 0,
                                      NULL, NULL));
    size_t s = 0;
    KT_REQUIRE_OK(clGetKernelSubGroupInfo(k, env->device, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE,
                                          dims * sizeof(size_t), local, sizeof(s), &s, NULL));
    KT_REQUIRE(s >= 1, "%s: sub-group size %zu", what, s);
    check_launch(o, f, g3, l3, s, what);
    clReleaseMemObject(bo);
    clReleaseMemObject(bf);
    free(o);
    free(f);
}

static void device_queries(struct kt_env *env)
{
    size_t size = 0;
    KT_REQUIRE_OK(clGetDeviceInfo(env->device, CL_DEVICE_OPENCL_C_FEATURES, 0, NULL, &size));
    cl_name_version *feat = malloc(size);
    KT_REQUIRE(feat, "out of memory");
    KT_REQUIRE_OK(clGetDeviceInfo(env->device, CL_DEVICE_OPENCL_C_FEATURES, size, feat, NULL));
    int found = 0;
    for (size_t i = 0; i < size / sizeof(*feat); i++)
        found |= strcmp(feat[i].name, "__opencl_c_subgroups") == 0;
    KT_CHECK(found, "__opencl_c_subgroups is not among the OpenCL C features");
    free(feat);
    cl_uint nsg = 0;
    KT_REQUIRE_OK(
        clGetDeviceInfo(env->device, CL_DEVICE_MAX_NUM_SUB_GROUPS, sizeof(nsg), &nsg, NULL));
    size_t wg = 0;
    KT_REQUIRE_OK(
        clGetDeviceInfo(env->device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof(wg), &wg, NULL));
    KT_CHECK(nsg >= 1 && nsg <= wg, "CL_DEVICE_MAX_NUM_SUB_GROUPS %u (work-group size %zu)", nsg,
             wg);
}

static void info_queries(struct kt_env *env, cl_program p, cl_kernel k)
{
    size_t local[3] = {8, 4, 2}, v = 77, ret = 0, out3[3] = {9, 9, 9};
    KT_REQUIRE_OK(clGetKernelSubGroupInfo(k, env->device, CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE,
                                          sizeof(local), local, sizeof(v), &v, &ret));
    size_t s = 0;
    KT_REQUIRE_OK(clGetKernelSubGroupInfo(k, env->device, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE,
                                          sizeof(local), local, sizeof(s), &s, NULL));
    KT_CHECK(ret == sizeof(size_t) && v == (64 + s - 1) / s, "sub-group count %zu (size %zu)", v,
             ret);
    size_t wg = 0, max = 0, compiled = 5;
    KT_REQUIRE_OK(
        clGetKernelWorkGroupInfo(k, env->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof(wg), &wg, NULL));
    KT_REQUIRE_OK(clGetKernelSubGroupInfo(k, env->device, CL_KERNEL_MAX_NUM_SUB_GROUPS, 0, NULL,
                                          sizeof(max), &max, NULL));
    KT_CHECK(max == (wg + s - 1) / s, "max sub-groups %zu for work-groups of %zu", max, wg);
    KT_REQUIRE_OK(clGetKernelSubGroupInfo(k, NULL, CL_KERNEL_COMPILE_NUM_SUB_GROUPS, 0, NULL,
                                          sizeof(compiled), &compiled, NULL));
    KT_CHECK(compiled == 0, "compile sub-groups %zu", compiled);

    /* local size for a sub-group count: a shape whose count is right, or zeros */
    size_t count = 6;
    KT_REQUIRE_OK(clGetKernelSubGroupInfo(k, env->device, CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT,
                                          sizeof(count), &count, sizeof(out3), out3, &ret));
    size_t got = 0;
    KT_REQUIRE_OK(clGetKernelSubGroupInfo(k, env->device, CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE,
                                          sizeof(out3), out3, sizeof(got), &got, NULL));
    KT_CHECK(ret == sizeof(out3) && got == count, "local size (%zu,%zu,%zu) has %zu sub-groups",
             out3[0], out3[1], out3[2], got);
    count = wg * s + 1;
    KT_REQUIRE_OK(clGetKernelSubGroupInfo(k, env->device, CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT,
                                          sizeof(count), &count, sizeof(out3), out3, NULL));
    KT_CHECK(out3[0] == 0 && out3[1] == 0 && out3[2] == 0, "%zu sub-groups fit: (%zu,%zu,%zu)",
             count, out3[0], out3[1], out3[2]);

    cl_int err;
    cl_kernel fixed = clCreateKernel(p, "fixed", &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateKernel fixed: %d", err);
    count = 8 / s;
    KT_REQUIRE_OK(clGetKernelSubGroupInfo(fixed, env->device,
                                          CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT, sizeof(count),
                                          &count, sizeof(out3), out3, NULL));
    KT_CHECK(out3[0] == 4 && out3[1] == 2 && out3[2] == 1,
             "reqd_work_group_size(4,2,1): local size (%zu,%zu,%zu)", out3[0], out3[1], out3[2]);
    size_t one = 7;
    KT_REQUIRE_OK(clGetKernelSubGroupInfo(fixed, env->device,
                                          CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT, sizeof(count),
                                          &count, sizeof(one), &one, NULL));
    KT_CHECK(one == 0, "a 4x2 required size given in one dimension: %zu", one);
    count = 3;
    KT_REQUIRE_OK(clGetKernelSubGroupInfo(fixed, env->device,
                                          CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT, sizeof(count),
                                          &count, sizeof(out3), out3, NULL));
    KT_CHECK(out3[0] == 0 && out3[1] == 0 && out3[2] == 0,
             "3 sub-groups with a required 4x2 size: (%zu,%zu,%zu)", out3[0], out3[1], out3[2]);
    clReleaseKernel(fixed);

    /* errors, the output untouched */
    v = 77;
    KT_EXPECT(clGetKernelSubGroupInfo(NULL, env->device, CL_KERNEL_MAX_NUM_SUB_GROUPS, 0, NULL,
                                      sizeof(v), &v, NULL),
              CL_INVALID_KERNEL);
    KT_EXPECT(clGetKernelSubGroupInfo(k, (cl_device_id)env->queue, CL_KERNEL_MAX_NUM_SUB_GROUPS, 0,
                                      NULL, sizeof(v), &v, NULL),
              CL_INVALID_DEVICE);
    KT_EXPECT(clGetKernelSubGroupInfo(k, env->device, 0x1234, 0, NULL, sizeof(v), &v, NULL),
              CL_INVALID_VALUE);
    KT_EXPECT(clGetKernelSubGroupInfo(k, env->device, CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE,
                                      sizeof(local), NULL, sizeof(v), &v, NULL),
              CL_INVALID_VALUE);
    size_t four[4] = {1, 1, 1, 1};
    KT_EXPECT(clGetKernelSubGroupInfo(k, env->device, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE,
                                      sizeof(four), four, sizeof(v), &v, NULL),
              CL_INVALID_VALUE);
    KT_EXPECT(clGetKernelSubGroupInfo(k, env->device, CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE, 3,
                                      local, sizeof(v), &v, NULL),
              CL_INVALID_VALUE);
    KT_EXPECT(clGetKernelSubGroupInfo(k, env->device, CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE,
                                      sizeof(local), local, 2, &v, NULL),
              CL_INVALID_VALUE);
    KT_EXPECT(clGetKernelSubGroupInfo(k, env->device, CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT, 0,
                                      NULL, sizeof(out3), out3, NULL),
              CL_INVALID_VALUE);
    KT_EXPECT(clGetKernelSubGroupInfo(k, env->device, CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT,
                                      sizeof(count), &count, 4 * sizeof(size_t), four, NULL),
              CL_INVALID_VALUE);
    KT_CHECK(v == 77 && four[0] == 1 && four[3] == 1, "a failed query wrote its output");
}

int main(void)
{
    struct kt_env env;
    kt_setup(&env, 0);
    device_queries(&env);
    cl_program p = kt_build(&env, src, "-cl-std=CL3.0");
    cl_int err;
    cl_kernel k = clCreateKernel(p, "sg", &err);
    KT_REQUIRE(err == CL_SUCCESS, "clCreateKernel: %d", err);

    size_t g3[3] = {8, 6, 4}, l3[3] = {4, 3, 2};
    launch(&env, k, 3, g3, l3, "3D 8x6x4 in 4x3x2");
    size_t g1 = 100, l1 = 16;
    launch(&env, k, 1, &g1, &l1, "1D 100 in 16 (partial last group)");
    size_t g2[2] = {33, 5}, l2[2] = {8, 5};
    launch(&env, k, 2, g2, l2, "2D 33x5 in 8x5");
    info_queries(&env, p, k);

    clReleaseKernel(k);
    KT_EXPECT(clReleaseProgram(p), CL_SUCCESS);
    kt_teardown(&env);
    return kt_finish("subgroups");
}
