int fact(int n) { return n <= 1 ? 1 : n * fact(n - 1); }
kernel void rec(global int *a) { a[0] = fact(a[0]); }
