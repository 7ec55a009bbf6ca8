// options: -cl-std=CL1.2 -DSCALE=3 -cl-mad-enable -cl-no-signed-zeros
kernel void old(global float *a)
{
    a[get_global_id(0)] = mad(a[get_global_id(0)], SCALE, 1.0f);
}
