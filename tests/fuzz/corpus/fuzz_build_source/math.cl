// options: -cl-fast-relaxed-math
kernel void m(global float *x)
{
    size_t i = get_global_id(0);
    float v = x[i];
    x[i] = sin(v) + exp(v) * log1p(v) + pow(v, 2.5f) + native_rsqrt(v) + erf(v) + lgamma(v);
}
