kernel void ints(global uint *a, global long *b, global uchar16 *c)
{
    size_t i = get_global_id(0);
    a[i] = rotate(a[i], 3u) ^ clz(a[i]) ^ popcount(a[i]) ^ mul_hi(a[i], 0x9e3779b9u);
    b[i] = add_sat(b[i], (long)a[i]) / (b[i] | 1) % 7;
    c[i] = abs_diff(c[i], (uchar16)(200)) >> (uchar16)(9);
}
