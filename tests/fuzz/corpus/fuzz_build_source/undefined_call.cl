int missing(int);
kernel void calls(global int *a) { a[0] = missing(a[1]); }
