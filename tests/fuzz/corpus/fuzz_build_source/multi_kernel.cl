__attribute__((work_group_size_hint(8, 8, 1)))
kernel void first(global int *a) { a[get_global_id(0)] = get_global_size(1); }
__attribute__((vec_type_hint(float4)))
kernel void second(global float *a, int k) { a[get_global_offset(0)] = k; }
kernel void third(void) { }
