kernel void vec(global float4 *a, global int8 *b, global double2 *d)
{
    size_t i = get_global_id(0);
    float4 v = a[i];
    a[i] = v.wzyx * (float4)(1.0f, 2.0f, 3.0f, 4.0f) + dot(v, v);
    b[i] = select(b[i], (int8)(7), b[i] > 3);
    d[i] = fma(d[i], d[i].yx, (double2)(0.5));
    vstore3(v.xyz, 0, (global float *)a);
}
