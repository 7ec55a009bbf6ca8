// options: -cl-std=CL9.9 -Dfoo -cl-unknown-option
kernel void k(global int *a) { a[0] = 1; }
