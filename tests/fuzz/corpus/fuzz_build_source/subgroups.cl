// options: -cl-std=CL3.0
kernel void sg(global uint *a)
{
    uint i = get_global_id(0);
    a[i] = get_sub_group_size() + get_sub_group_local_id() + sub_group_reduce_add(a[i]) +
           sub_group_broadcast(a[i], 0);
    sub_group_barrier(CLK_GLOBAL_MEM_FENCE);
}
