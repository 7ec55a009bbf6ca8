kernel void grid(global int *a)
{
    size_t x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
    size_t w = get_global_size(0), h = get_global_size(1);
    a[(z * h + y) * w + x] = get_local_id(2) + get_group_id(1) + get_work_dim();
}
