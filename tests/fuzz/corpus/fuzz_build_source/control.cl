int helper(int x)
{
    switch (x & 3) {
    case 0: return x * 2;
    case 1: return x - 1;
    default: break;
    }
    for (int k = 0; k < x % 5; k++)
        x += k;
    return x;
}
kernel void ctl(global int *a, int n)
{
    int i = get_global_id(0);
    if (i >= n)
        return;
    int v = a[i];
    while (v > 100)
        v /= 3;
    do {
        v = helper(v);
    } while (v < 0);
    a[i] = v;
}
