typedef struct {
    float4 pos;
    int id;
    char tag[3];
} particle;
kernel void move(global particle *p, particle delta, constant float *scale)
{
    size_t i = get_global_id(0);
    p[i].pos += delta.pos * scale[0];
    p[i].id ^= delta.id;
    p[i].tag[1] = delta.tag[2];
}
