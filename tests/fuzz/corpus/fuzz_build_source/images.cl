constant sampler_t s = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST;
kernel void blur(read_only image2d_t in, write_only image2d_t out)
{
    int2 c = (int2)(get_global_id(0), get_global_id(1));
    float4 v = read_imagef(in, s, c) + read_imagef(in, s, c + (int2)(1, 0));
    write_imagef(out, c, v * 0.5f);
}
