kernel void hello(int x, float f)
{
    printf("id %zu x=%d f=%f %s %c %#x %v4hd\n", get_global_id(0), x, f, "str", 'c', x,
           (short4)(1, 2, 3, 4));
}
