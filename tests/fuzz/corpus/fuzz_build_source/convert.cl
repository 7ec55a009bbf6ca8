kernel void conv(global float *f, global int *i, global uchar4 *u, global double *d)
{
    size_t g = get_global_id(0);
    i[g] = convert_int_sat_rte(f[g]);
    u[g] = convert_uchar4_sat(convert_int4((float4)(f[g])) * 50);
    d[g] = convert_double(i[g]) + as_float(i[g]);
}
