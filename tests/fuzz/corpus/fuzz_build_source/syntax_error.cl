kernel void broken(global int *a)
{
    a[0] = undefined_thing + ;
}
