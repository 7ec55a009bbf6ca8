#pragma OPENCL EXTENSION cl_khr_fp16 : enable
kernel void h(global half *p, global float *f)
{
    size_t i = get_global_id(0);
    f[i] = vload_half(i, p) * 2.0f;
    vstore_half_rtz(f[i], i, p);
    half v = p[i];
    p[i] = v * v;
}
