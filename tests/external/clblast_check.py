#!/usr/bin/env python3
"""Runs one of CLBlast's correctness tests (Debian package clblast-tests) against Kiln and checks
its routines of the precisions asked for.

Each clblast_test_<routine> binary tests its routine in every precision, one after the other
(SAXPY, DAXPY, CAXPY, ZAXPY, HAXPY...), comparing with the reference CBLAS, at the binary's
default (short) sizes. This script runs the binary once on the OpenCL platform whose name
contains "Kiln" (or $KILN_TEST_PLATFORM) and reads its report of each routine:

  single  the S and C routines (float, complex float) must have passed tests and no failure;
  double  the D and Z routines (double, complex double), likewise when the device reports
          cl_khr_fp64. When it does not, they are left out, saying so: CLBlast would only
          print "Unsupported precision" for them. If nothing else is asked for, the binary is
          not run and the script exits 77 (ctest's skip).

usage: clblast_check.py ROUTINE single|double... [--bin-dir DIR] [--timeout S]
Exit status: 0 when the check passes, 1 when it fails, 77 when clblast-tests is not installed
or no precision asked for is supported by the device.
"""
import argparse
import ctypes
import ctypes.util
import os
import re
import subprocess
import sys

SKIP = 77
CL_DEVICE_TYPE_ALL = 0xFFFFFFFF
CL_PLATFORM_NAME = 0x0902
CL_DEVICE_EXTENSIONS = 0x1030
PRECISIONS = {"single": ("S", "C"), "double": ("D", "Z")}
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def fail(message):
    print("clblast_check: FAIL: " + message)
    sys.exit(1)


def find_platform(want):
    """Returns (index of the platform among those the loader lists, its first device's
    extension string), or fails."""
    name = ctypes.util.find_library("OpenCL") or "libOpenCL.so.1"
    cl = ctypes.CDLL(name)
    n = ctypes.c_uint(0)
    if cl.clGetPlatformIDs(0, None, ctypes.byref(n)) != 0 or n.value == 0:
        fail("the ICD loader lists no OpenCL platform")
    platforms = (ctypes.c_void_p * n.value)()
    cl.clGetPlatformIDs(n.value, platforms, None)
    buf = ctypes.create_string_buffer(8192)
    for i in range(n.value):
        cl.clGetPlatformInfo(ctypes.c_void_p(platforms[i]), CL_PLATFORM_NAME, len(buf), buf, None)
        if want not in buf.value.decode("utf-8", "replace"):
            continue
        device = ctypes.c_void_p()
        if cl.clGetDeviceIDs(ctypes.c_void_p(platforms[i]), ctypes.c_ulong(CL_DEVICE_TYPE_ALL), 1,
                             ctypes.byref(device), None) != 0:
            fail("platform \"%s\" has no device" % want)
        cl.clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS, len(buf), buf, None)
        return i, buf.value.decode("utf-8", "replace").split()
    fail("no OpenCL platform whose name contains \"%s\"" % want)


def parse(output):
    """Returns {routine: (passed, skipped, failed)} from a test binary's report; a routine
    skipped for an unsupported precision reads (0, -1, 0)."""
    results = {}
    routine = None
    counts = {}
    for line in ANSI.sub("", output).splitlines():
        m = re.search(r"Starting tests for the '(\w+)' routine", line)
        if m:
            routine = m.group(1)
            counts = {}
            continue
        if routine is None:
            continue
        if "All tests skipped: Unsupported precision" in line:
            results[routine] = (0, -1, 0)
            routine = None
            continue
        m = re.match(r"\s+(\d+) test\(s\) (passed|skipped|failed)", line)
        if m:
            counts[m.group(2)] = int(m.group(1))
            if len(counts) == 3:
                results[routine] = (counts["passed"], counts["skipped"], counts["failed"])
                routine = None
    return results


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("routine")
    ap.add_argument("precision", nargs="+", choices=sorted(PRECISIONS))
    ap.add_argument("--bin-dir", default="/usr/bin")
    ap.add_argument("--timeout", type=float, default=500.0)
    args = ap.parse_args()

    binary = os.path.join(args.bin_dir, "clblast_test_" + args.routine)
    if not os.access(binary, os.X_OK):
        print("clblast_check: %s not found (Debian package clblast-tests); skipped" % binary)
        return SKIP

    want = os.environ.get("KILN_TEST_PLATFORM", "Kiln")
    index, extensions = find_platform(want)
    precisions = sorted(set(args.precision))
    if "double" in precisions and "cl_khr_fp64" not in extensions:
        print("clblast_check: the device of \"%s\" does not report cl_khr_fp64: CLBlast's double"
              " precision routines cannot run; not checked" % want)
        precisions.remove("double")
        if not precisions:
            return SKIP

    try:
        proc = subprocess.run([binary, "-platform", str(index), "-device", "0"],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              timeout=args.timeout)
    except subprocess.TimeoutExpired:
        fail("%s ran longer than %.0f s" % (binary, args.timeout))
    output = proc.stdout.decode("utf-8", "replace")
    results = parse(output)
    letters = "".join("".join(PRECISIONS[p]) for p in precisions)
    mine = {r: c for r, c in results.items() if r[0] in letters}
    problems = []
    if proc.returncode < 0:
        problems.append("%s died with signal %d" % (binary, -proc.returncode))
    for precision in precisions:
        if not any(r[0] in PRECISIONS[precision] for r in mine):
            problems.append("no %s precision routine in the report" % precision)
    for routine, (passed, skipped, failed) in sorted(mine.items()):
        if skipped < 0:
            print("clblast_check: %s: skipped, unsupported precision" % routine)
            problems.append("%s was not run (unsupported precision)" % routine)
            continue
        print("clblast_check: %s: %d passed, %d skipped, %d failed"
              % (routine, passed, skipped, failed))
        if failed:
            problems.append("%s: %d test(s) failed" % (routine, failed))
        elif passed == 0:
            problems.append("%s: no test passed" % routine)
    if problems:
        tail = ANSI.sub("", output).strip().splitlines()[-60:]
        print("    | " + "\n    | ".join(tail))
        fail("; ".join(problems))
    return 0


if __name__ == "__main__":
    sys.exit(main())
