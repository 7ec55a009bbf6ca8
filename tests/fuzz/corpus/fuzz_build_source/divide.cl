kernel void div(global int *a, global uint *b, int d)
{
    size_t i = get_global_id(0);
    a[i] = a[i] / d + a[i] % (d - 1);
    b[i] = b[i] / (uint)d;
}
