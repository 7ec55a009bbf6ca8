/*
 * An object for elf_load_test.c, compiled on its own (position-independent, no
 * sanitizer) into what elf_load.c must place and relocate: code reading constant
 * data (PC32), a global variable reached through the GOT (REX_GOTPCRELX), calls to
 * memset and sqrt (PLT32 to libc and libm) and to a runtime entry point whose name
 * has a dot, as the fiber runtime's have.
 */
#include <math.h>
#include <string.h>

int sample_counter = 5;
static const int table[8] = {1, 2, 3, 4, 5, 6, 7, 8};
extern int runtime_probe(int) __asm__("kiln.fiber.run");

int sample_sum(int n)
{
    int s = 0;
    for (int i = 0; i < n; i++)
        s += table[i & 7];
    return s + sample_counter++;
}

void sample_fill(char *p, int c, unsigned long n)
{
    memset(p, c, n);
}

double sample_sqrt(double x)
{
    return sqrt(x);
}

int sample_probe(int v)
{
    return runtime_probe(v) + 1;
}
