kernel void scan(global float *a, local float *t)
{
    size_t l = get_local_id(0), n = get_local_size(0);
    t[l] = a[get_global_id(0)];
    for (size_t off = 1; off < n; off *= 2) {
        barrier(CLK_LOCAL_MEM_FENCE);
        float v = l >= off ? t[l - off] : 0.0f;
        barrier(CLK_LOCAL_MEM_FENCE);
        t[l] += v;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l % 2 == 0) {
        a[get_global_id(0)] = t[l];
    }
}
