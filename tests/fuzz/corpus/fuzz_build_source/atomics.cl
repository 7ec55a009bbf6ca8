// options: -cl-std=CL3.0
kernel void count(global atomic_int *c, global int *old, volatile global int *legacy)
{
    int v = atomic_fetch_add_explicit(c, 1, memory_order_relaxed, memory_scope_device);
    old[get_global_id(0)] = v;
    atomic_inc(legacy);
    atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_seq_cst, memory_scope_work_group);
}
