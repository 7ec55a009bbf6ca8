kernel void priv(global int *a, int k)
{
    int buf[32];
    for (int i = 0; i < 32; i++)
        buf[i] = a[(get_global_id(0) + i) % 64];
    a[get_global_id(0)] = buf[k & 31];
}
