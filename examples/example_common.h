/* Helpers shared by the example programs: choosing a platform and a device, building a program
 * from source with its log printed on failure, and naming OpenCL error codes. They use the
 * public OpenCL API only, so the examples run on any conformant platform. */
#ifndef KILN_EXAMPLES_EXAMPLE_COMMON_H
#define KILN_EXAMPLES_EXAMPLE_COMMON_H

#include <CL/cl.h>
#include <stddef.h>

/* Picks the platform the example runs on and prints "Platform: <name> <version>".
 * Order: the first platform whose name contains $KILN_EXAMPLE_PLATFORM when that variable is set
 * (no match is an error, so a typo never silently tests another driver), else the first whose
 * name contains "Kiln", else the first platform listed by the loader.
 * Returns CL_SUCCESS and writes *platform, or the failing call's code (CL_INVALID_PLATFORM when
 * no platform matches). */
cl_int example_platform_pick(cl_platform_id *platform);

/* Writes the first device of any type on platform to *device and prints "Device: <name>". */
cl_int example_device_pick(cl_platform_id platform, cl_device_id *device);

/* Creates a program from one source string and builds it for device. On a failed build the
 * build log goes to stderr. On success *program holds a reference the caller releases. */
cl_int example_program_build(cl_context ctx, cl_device_id device, const char *source,
                             cl_program *program);

/* A work-group size for a 1D launch: preferred, clamped to what the device allows. */
size_t example_local_size_1d(cl_device_id device, size_t preferred);

/* Prints "<example>: <what> failed: <CL_NAME> (<code>)" to stderr. */
void example_report(const char *example, const char *what, cl_int err);

/* The spelled-out name of an OpenCL error code, or "CL_<unknown>". */
const char *example_error_name(cl_int err);

#endif
