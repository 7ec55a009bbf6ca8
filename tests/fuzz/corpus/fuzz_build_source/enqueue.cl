// options: -cl-std=CL3.0
kernel void parent(global int *a)
{
    queue_t q = get_default_queue();
    ndrange_t r = ndrange_1D(16);
    enqueue_kernel(q, CLK_ENQUEUE_FLAGS_WAIT_KERNEL, r, ^{ a[get_global_id(0)] *= 2; });
}
