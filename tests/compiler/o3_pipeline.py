#!/usr/bin/env python3
"""Kiln's parts of default<O3> are exactly LLVM's default<O3>.

The optimisation stage runs LLVM's default<O3> in three parts around the loop vectoriser
(device-cpu/compiler/5-optimize/o3_pipeline.c), with Kiln's own passes between the parts,
never inside them. This compares the parts with what `opt -passes='default<O3>'
-print-pipeline-passes` prints for the LLVM Kiln is built with, so that an LLVM update that
adds, drops or reorders a pass fails here instead of silently changing the pipeline.

Cutting a pass manager into consecutive ones (function<eager-inv>(a,b) into
function<eager-inv>(a),function<eager-inv>(b)) is how the parts are made, so both
pipelines are compared as the sequence of their passes, each named with the pass managers
around it: `function<eager-inv>/loop-vectorize<...>`.

Exit 77 (skipped) when opt is missing.
usage: o3_pipeline.py <o3_pipeline_print> <opt>
"""
import os
import subprocess
import sys


def split_top(text):
    """Splits a pipeline at the commas outside parentheses and angle brackets."""
    parts, depth, start = [], 0, 0
    for i, c in enumerate(text):
        if c in "(<":
            depth += 1
        elif c in ")>":
            depth -= 1
            if depth < 0:
                raise ValueError(f"unbalanced pipeline at {i}: {text[max(0, i - 40):i + 1]}")
        elif c == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    if depth != 0:
        raise ValueError("unbalanced pipeline")
    parts.append(text[start:])
    return [p for p in parts if p]


def flatten(text, outer=""):
    """The passes of a pipeline, each as 'manager/manager/pass'."""
    out = []
    for element in split_top(text.strip()):
        # A pass manager is `name(...)` or `name<params>(...)`; a pass has no parentheses
        # outside its <params>.
        depth, paren = 0, -1
        for i, c in enumerate(element):
            if c == "<":
                depth += 1
            elif c == ">":
                depth -= 1
            elif c == "(" and depth == 0:
                paren = i
                break
        if paren < 0:
            out.append(outer + element)
        else:
            if not element.endswith(")"):
                raise ValueError(f"cannot read {element[:60]}")
            out.extend(flatten(element[paren + 1:-1], outer + element[:paren] + "/"))
    return out


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    printer, opt = sys.argv[1], sys.argv[2]
    if not (os.path.isfile(opt) and os.access(opt, os.X_OK)):
        print(f"skipped: LLVM's opt not found ({opt}); it comes with the LLVM Kiln is built with")
        return 77
    parts = subprocess.run([printer], check=True, capture_output=True, text=True).stdout
    parts = [p for p in parts.splitlines() if p]
    if len(parts) != 3:
        print(f"expected three parts from {printer}, got {len(parts)}")
        return 1
    llvm = subprocess.run(
        # -disable-verify: opt would otherwise append its own verifier pass.
        [opt, "-passes=default<O3>", "-print-pipeline-passes", "-disable-output",
         "-disable-verify"],
        check=True, capture_output=True, text=True, stdin=subprocess.DEVNULL).stdout.strip()
    kiln_passes = [p for part in parts for p in flatten(part)]
    llvm_passes = flatten(llvm)
    # The cut is where the parts say it is: the vectoriser part is loop-vectorize alone.
    if [p.rsplit("/", 1)[-1].split("<")[0] for p in flatten(parts[1])] != ["loop-vectorize"]:
        print(f"the middle part is not the loop vectoriser alone: {parts[1]}")
        return 1
    if kiln_passes == llvm_passes:
        print(f"{len(llvm_passes)} passes: Kiln's three parts are LLVM's default<O3>")
        return 0
    print(f"Kiln's parts ({len(kiln_passes)} passes) differ from default<O3> of {opt} "
          f"({len(llvm_passes)} passes):")
    for i in range(max(len(kiln_passes), len(llvm_passes))):
        k = kiln_passes[i] if i < len(kiln_passes) else "(none)"
        m = llvm_passes[i] if i < len(llvm_passes) else "(none)"
        if k != m:
            print(f"  first difference at pass {i}:\n    Kiln: {k}\n    LLVM: {m}")
            break
    return 1


if __name__ == "__main__":
    sys.exit(main())
