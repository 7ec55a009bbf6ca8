// options: -cl-std=CL2.0 -cl-kernel-arg-info
void bump(int *p) { *p += 1; }
kernel void gen(global int *g, local int *l)
{
    int priv = 4;
    bump(&priv);
    bump(g + get_global_id(0));
    if (get_local_id(0) == 0)
        bump(l);
    generic int *q = g;
    global int *back = to_global(q);
    if (back)
        back[0] += priv;
}
