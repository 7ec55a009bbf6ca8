// options: -cl-std=CL3.0
__attribute__((reqd_work_group_size(64, 1, 1)))
kernel void rev(global float *a)
{
    local float t[64];
    size_t l = get_local_id(0);
    t[l] = a[get_global_id(0)];
    work_group_barrier(CLK_LOCAL_MEM_FENCE);
    a[get_global_id(0)] = t[63 - l];
}
