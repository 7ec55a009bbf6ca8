#!/usr/bin/env python3
"""Runs piglit's OpenCL tests (Debian package piglit) against Kiln and compares the results with
an expected-failures list.

The tests are those of piglit's "cl" profile (tests/cl.xml.gz in piglit's directory): the native
cl-api-*, cl-custom-* and cl-program-* binaries, and every .cl/.program_test file run through
cl-program-tester. Each runs in its own process, from piglit's directory (the profile's file
names are relative to it), with PIGLIT_CL_PLATFORM naming the platform so that nothing else the
loader may list is tested. A test's outcome is piglit's own: the result of its last
`PIGLIT: {"result": ...}` line, "crash" when it dies by a signal or prints no result, "timeout"
when it runs longer than --timeout seconds, and a pass with a non-zero exit status is "warn".

The expected-failures file and the expected-skips file each hold one test a line:
`name | reason` (blank lines and lines starting with # are ignored). A skip is not a pass: a
test passes the check when its outcome is "pass" and it is in neither list, when it is listed as
a failure and its outcome is neither "pass" nor "skip", or when it is listed as a skip and it
skips. So the check fails on a new failure, on a new skip, and on a listed test whose outcome
changed (move it or take it off its list).

usage: piglit_cl.py [--piglit-dir DIR] --expected FILE [--skips FILE] [--group PREFIX]...
                    [--exclude PREFIX]... [--timeout S] [--platform NAME] [--list] [--check-list]

--group selects the tests whose names start with one of the prefixes (default: all), --exclude
drops those starting with one of its prefixes. --list prints the selected names and exits.
--check-list checks that every name in the two files is a test of the profile and that no test
is in both (a stale name would otherwise go unnoticed). Exit status: 0 when the check passes, 1 when it
fails, 77 when piglit is not installed.
"""
import argparse
import ast
import gzip
import json
import os
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

SKIP = 77  # ctest SKIP_RETURN_CODE of the entries that run this script


def load_profile(piglit_dir):
    """Returns [(name, argv)] for every test of the cl profile, in the profile's order."""
    path = os.path.join(piglit_dir, "tests", "cl.xml.gz")
    with gzip.open(path, "rb") as f:
        root = ET.parse(f).getroot()
    bindir = os.path.join(piglit_dir, "bin")
    tests = []
    for t in root.iter("Test"):
        options = {o.get("name"): o.get("value") for o in t.iter("option")}
        kind = t.get("type")
        if kind == "cl":
            argv = ast.literal_eval(options["command"])
            argv[0] = os.path.join(bindir, argv[0])
        elif kind == "cl_prog":
            filename = ast.literal_eval(options["filename"])
            argv = [os.path.join(bindir, "cl-program-tester"), filename]
        else:
            raise ValueError("unknown test type %r in %s" % (kind, path))
        tests.append((t.get("name"), argv))
    return tests


def load_expected(path):
    """Returns {name: reason}; raises ValueError on a malformed or repeated line."""
    expected = {}
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            name, sep, reason = line.partition(" | ")
            if not sep or not name.strip() or not reason.strip():
                raise ValueError("%s:%d: expected 'name | reason'" % (path, number))
            name = name.strip()
            if name in expected:
                raise ValueError("%s:%d: %s listed twice" % (path, number, name))
            expected[name] = reason.strip()
    return expected


def run_one(argv, cwd, env, timeout):
    """Runs one test; returns (outcome, output)."""
    try:
        proc = subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode("utf-8", "replace") if e.stdout else ""
        return "timeout", out
    out = proc.stdout.decode("utf-8", "replace")
    result = None
    for line in out.splitlines():
        if line.startswith("PIGLIT:"):
            try:
                report = json.loads(line[len("PIGLIT:"):])
            except ValueError:
                continue
            if "result" in report:
                result = report["result"]
    if proc.returncode < 0 or result is None:
        return "crash", out
    if proc.returncode != 0 and result == "pass":
        return "warn", out
    return result, out


def selected(name, groups, excludes):
    if groups and not any(name.startswith(g) for g in groups):
        return False
    return not any(name.startswith(x) for x in excludes)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--piglit-dir", default="/usr/lib/x86_64-linux-gnu/piglit")
    ap.add_argument("--expected", required=True)
    ap.add_argument("--skips")
    ap.add_argument("--group", action="append", default=[])
    ap.add_argument("--exclude", action="append", default=[])
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--platform", default=os.environ.get("KILN_TEST_PLATFORM", "Kiln"))
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--check-list", action="store_true")
    args = ap.parse_args()

    if not os.path.isfile(os.path.join(args.piglit_dir, "bin", "cl-program-tester")):
        print("piglit_cl: piglit's OpenCL tests are not in %s (Debian package piglit); skipped"
              % args.piglit_dir)
        return SKIP

    tests = load_profile(args.piglit_dir)
    try:
        expected = load_expected(args.expected)
        skips = load_expected(args.skips) if args.skips else {}
    except ValueError as e:
        print("piglit_cl: FAIL: %s" % e)
        return 1

    if args.check_list:
        names = {name for name, _ in tests}
        stale = sorted(n for n in list(expected) + list(skips) if n not in names)
        for n in stale:
            print("piglit_cl: FAIL: %s is listed but is no test of the cl profile" % n)
        both = sorted(n for n in expected if n in skips)
        for n in both:
            print("piglit_cl: FAIL: %s is listed both as a failure and as a skip" % n)
        print("piglit_cl: %d tests in the profile, %d listed as expected failures, %d as "
              "expected skips" % (len(tests), len(expected), len(skips)))
        return 1 if stale or both else 0

    chosen = [(n, a) for n, a in tests if selected(n, args.group, args.exclude)]
    if args.list:
        for name, _ in chosen:
            print(name)
        return 0
    if not chosen:
        print("piglit_cl: FAIL: no test selected")
        return 1

    env = dict(os.environ)
    env["PIGLIT_CL_PLATFORM"] = args.platform
    counts = {}
    bad = []
    start = time.monotonic()
    for name, argv in chosen:
        t0 = time.monotonic()
        outcome, out = run_one(argv, args.piglit_dir, env, args.timeout)
        counts[outcome] = counts.get(outcome, 0) + 1
        verdict = None
        note = None
        if name in expected:
            if outcome in ("pass", "skip"):
                verdict = "UNEXPECTED %s (listed as a failure: %s)" % (outcome.upper(),
                                                                      expected[name])
            else:
                note = expected[name]
        elif name in skips:
            if outcome != "skip":
                verdict = "UNEXPECTED %s (listed as a skip: %s)" % (outcome.upper(), skips[name])
            else:
                note = skips[name]
        elif outcome != "pass":
            verdict = "UNEXPECTED %s" % outcome.upper()
        line = "%-8s %6.2fs %s" % (outcome, time.monotonic() - t0, name)
        if note:
            line += "  (expected: %s)" % note
        print(line)
        if verdict:
            bad.append((name, verdict))
            tail = out.strip().splitlines()[-40:]
            print("    | " + "\n    | ".join(tail))
    summary = ", ".join("%d %s" % (counts[k], k) for k in sorted(counts))
    print("piglit_cl: %d tests in %.1fs: %s" % (len(chosen), time.monotonic() - start, summary))
    for name, verdict in bad:
        print("piglit_cl: FAIL: %s: %s" % (name, verdict))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
