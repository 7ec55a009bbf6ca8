// options: -cl-kernel-arg-info
kernel void saxpy(float a, global const float *restrict x, global float *restrict y, uint n)
{
    size_t i = get_global_id(0);
    if (i < n)
        y[i] = a * x[i] + y[i];
}
