/* The compiler tests' assertion: in a function returning int, fails it with the place. */
#ifndef KILN_TESTS_COMPILER_CHECK_H
#define KILN_TESTS_COMPILER_CHECK_H

#include <stdio.h>

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);               \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

#endif
