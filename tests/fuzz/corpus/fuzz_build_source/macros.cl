#define CAT(a, b) a##b
#define STR(x) #x
#if defined(cl_khr_fp64) && __OPENCL_C_VERSION__ >= 200
#define REAL double
#else
#define REAL float
#endif
kernel void CAT(mac, ro)(global REAL *a)
{
    constant char *s = STR(hello);
    a[get_global_id(0)] = s[0];
}
