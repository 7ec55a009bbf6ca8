// options: -cl-std=CL3.0
kernel void producer(write_only pipe int p, global const int *src)
{
    int v = src[get_global_id(0)];
    write_pipe(p, &v);
    reserve_id_t r = reserve_write_pipe(p, 1);
    if (is_valid_reserve_id(r)) {
        write_pipe(p, r, 0, &v);
        commit_write_pipe(p, r);
    }
}
kernel void consumer(read_only pipe int p, global int *dst)
{
    int v = 0;
    if (read_pipe(p, &v) == 0)
        dst[get_global_id(0)] = v;
}
