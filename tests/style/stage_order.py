#!/usr/bin/env python3
"""The kernel compiler's stages depend one way (docs/compiler.md).

Every file under device-cpu/compiler/ belongs to the stage its folder names. A file may
include headers of its own stage and of earlier ones only: util/ lies below every stage,
the drivers (the files at the top of the folder) above them all. A stage's interface is
its header, so an `extern` function declaration in a .c file, which would reach another
stage without including its header, is refused too.

usage: stage_order.py <device-cpu/compiler directory>
"""
import os
import re
import sys

# The order, earliest first. A folder not listed here is an error, so a new stage must be
# placed in the order before it can hold code.
STAGES = [
    "util",
    "1-frontend",
    "2-link",
    "3-workgroup",
    "4-loops",
    "5-optimize",
    "6-codegen",
    "7-binary",
    "",  # the drivers: compiler.c, backend.c
]
# Headers at the top that are no driver's: the public interface the runtime includes,
# which every stage may see.
BELOW_ALL = {"kiln_cc.h": "util"}
# Headers CMake generates into the build directory, and the stage they belong to.
GENERATED = {"kiln_cc_cl_flags.h": "1-frontend"}
SOURCES = (".c", ".cpp", ".h", ".S")

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
# `extern` followed, on the same declaration, by an opening parenthesis: a function.
# Data (embedded.S's symbols) may still be declared extern.
EXTERN_FN = re.compile(r"^\s*extern\s+(?!\"C\")[^;{=]*\(", re.M)


def stage_of(rel):
    folder = os.path.dirname(rel)
    if folder not in STAGES:
        return None
    return folder


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    root = sys.argv[1]
    files = []
    for dirpath, _, names in os.walk(root):
        for name in names:
            if name.endswith(SOURCES):
                files.append(os.path.relpath(os.path.join(dirpath, name), root))
    headers = {}
    errors = []
    for rel in files:
        if rel.endswith(".h"):
            name = os.path.basename(rel)
            if name in headers:
                errors.append(f"{rel}: header name also used by {headers[name]}")
            headers[name] = rel
    rank = {s: i for i, s in enumerate(STAGES)}
    for rel in sorted(files):
        stage = stage_of(rel)
        if stage is None:
            errors.append(f"{rel}: folder is not a stage listed in {os.path.basename(__file__)}")
            continue
        with open(os.path.join(root, rel), encoding="utf-8") as f:
            text = f.read()
        for inc in INCLUDE.findall(text):
            name = os.path.basename(inc)
            if name in BELOW_ALL:
                to = BELOW_ALL[name]
            elif name in GENERATED:
                to = GENERATED[name]
            elif name in headers:
                to = stage_of(headers[name])
            else:
                continue  # outside the compiler (include/kiln_abi.h)
            if to is not None and rank[to] > rank[stage]:
                errors.append(
                    f"{rel}: includes {inc}, a header of stage {to or 'driver'}, "
                    f"later than its own stage {stage or 'driver'}"
                )
        if rel.endswith((".c", ".cpp")):
            for m in EXTERN_FN.finditer(text):
                line = text.count("\n", 0, m.start()) + 1
                errors.append(
                    f"{rel}:{line}: extern function declaration; include the header of "
                    "the stage that defines it"
                )
    for e in errors:
        print(e)
    if not files:
        print(f"no sources under {root}")
        return 1
    print(f"{len(files)} files in {len(STAGES)} stages: " + ("FAILED" if errors else "ok"))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
