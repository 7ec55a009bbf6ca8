kernel void shuf(global float8 *a, global uint8 *m)
{
    size_t i = get_global_id(0);
    a[i] = shuffle2(a[i], a[i + 1], m[i]) + shuffle(a[i].lo, m[i].hi).s01230123;
}
