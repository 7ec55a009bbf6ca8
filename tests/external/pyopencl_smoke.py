#!/usr/bin/env python3
"""PyOpenCL smoke test for Kiln: through the ICD loader, create a context on the Kiln platform,
build a kernel from source, run it on NumPy arrays and compare with NumPy's own result.

The platform is the first whose name contains "Kiln", or the substring in $KILN_TEST_PLATFORM
when that is set. Exits 0 when every element matches, 1 otherwise, with one line saying why.
"""
import os
import sys

KERNEL = """
__kernel void fma_index(__global const float *a, __global const float *b,
                        __global float *out, float s, uint n)
{
    size_t i = get_global_id(0);
    if (i < n)
        out[i] = a[i] * s + b[i] + (float)(i % 7u);
}
"""

N = 100003  # not a multiple of any work-group size


def fail(message):
    print("pyopencl_smoke: FAIL: " + message)
    sys.exit(1)


def main():
    # PyOpenCL's on-disk binary cache would make the second run load a binary instead of
    # compiling the source, so the result would depend on what an earlier run left in $HOME.
    os.environ.setdefault("PYOPENCL_NO_CACHE", "1")
    try:
        import numpy as np
        import pyopencl as cl
    except ImportError as exc:
        fail("cannot import %s (install python3-pyopencl and python3-numpy for %s)"
             % (exc.name, sys.executable))

    wanted = os.environ.get("KILN_TEST_PLATFORM") or "Kiln"
    try:
        platforms = cl.get_platforms()
    except cl.Error as exc:
        fail("no OpenCL platform through the loader: %s" % exc)
    names = [p.name for p in platforms]
    matching = [p for p in platforms if wanted in p.name]
    if not matching:
        fail("no platform name contains %r; platforms found: %s" % (wanted, names))
    platform = matching[0]
    devices = platform.get_devices()
    if not devices:
        fail("platform %r has no devices" % platform.name)
    device = devices[0]
    print("Platform: %s %s" % (platform.name, platform.version))
    print("Device: %s" % device.name)
    try:
        return run(cl, np, device)
    except cl.Error as exc:
        fail("OpenCL error: %s" % exc)


def run(cl, np, device):
    """Builds and runs the kernel on device; returns 0 or exits through fail()."""
    ctx = cl.Context([device])
    queue = cl.CommandQueue(ctx)
    try:
        program = cl.Program(ctx, KERNEL).build()
    except cl.Error as exc:
        fail("kernel build failed: %s" % exc)

    # Small multiples of 1/4: every result is exact, so the comparison is exact too.
    index = np.arange(N, dtype=np.uint32)
    a = ((index % 1000) * 0.25).astype(np.float32)
    b = ((index % 333) * 0.5).astype(np.float32)
    s = np.float32(3.0)
    want = a * s + b + (index % 7).astype(np.float32)

    mf = cl.mem_flags
    a_buf = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=a)
    b_buf = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=b)
    out_buf = cl.Buffer(ctx, mf.WRITE_ONLY, size=a.nbytes)
    kernel = cl.Kernel(program, "fma_index")
    kernel.set_args(a_buf, b_buf, out_buf, s, np.uint32(N))

    got = np.full(N, -1.0, dtype=np.float32)
    cl.enqueue_nd_range_kernel(queue, kernel, (N,), None)
    cl.enqueue_copy(queue, got, out_buf)
    queue.finish()

    bad = np.nonzero(got != want)[0]
    if bad.size:
        i = int(bad[0])
        fail("%d of %d elements differ; first at %d: got %r, expected %r"
             % (bad.size, N, i, float(got[i]), float(want[i])))
    print("pyopencl_smoke: %d elements checked, OK" % N)
    return 0


if __name__ == "__main__":
    sys.exit(main())
