float helper(float x) { return x * x; }
constant int unused = 7;
