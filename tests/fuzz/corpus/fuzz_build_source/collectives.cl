kernel void wg(global int *a, global int *b)
{
    size_t i = get_global_id(0);
    int s = work_group_reduce_add(a[i]);
    int m = work_group_scan_inclusive_max(a[i]);
    int any = work_group_any(a[i] > 5);
    b[i] = s + m + any + work_group_broadcast(a[i], 0);
}
