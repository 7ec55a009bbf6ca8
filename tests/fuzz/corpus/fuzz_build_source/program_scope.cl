// options: -cl-std=CL2.0
global int counter = 3;
constant float table[4] = {1.0f, 2.0f, 4.0f, 8.0f};
global float4 state[2];
kernel void use(global float *out)
{
    out[get_global_id(0)] = table[get_global_id(0) & 3] * counter + state[1].y;
    counter++;
}
