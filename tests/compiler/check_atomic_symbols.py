#!/usr/bin/env python3
"""Every atomic, fence and address-space builtin Clang declares resolves in kiln-lib.bc.

Usage: check_atomic_symbols.py CLANG LLVM_NM KILN_LIB_BC CLANG_INCLUDE_DIR CC1_FLAGS...

Clang's full header opencl-c.h declares the per-address-space overloads
(__global, __local) beside the generic ones that the tablegen declarations give. The
script preprocesses the header at CL1.2 and CL3.0 with Kiln's flags, takes each
declaration of the family, writes a kernel that calls it with arguments of its
parameter types, compiles that kernel at CL1.2, CL2.0 and CL3.0 with the full header
and with the tablegen declarations, and fails if a function the kernel calls is not
defined by the library.
"""
import re
import subprocess
import sys
import tempfile
import os

FAMILY = re.compile(r'\b(atomic_\w+|atom_\w+|get_fence|mem_fence|read_mem_fence|'
                    r'write_mem_fence)\(')


def declarations(clang, flags, std):
    out = subprocess.run([clang, '-cc1'] + flags + ['-cl-std=' + std, '-E', '-x', 'cl',
                                                    '/dev/null', '-o', '-'],
                         check=True, capture_output=True, text=True).stdout
    decls = set()
    for line in out.splitlines():
        if 'overloadable' not in line or not FAMILY.search(line):
            continue
        line = re.sub(r'__attribute__\(\([a-z]+\)\)', '', line)
        decls.add(' '.join(line.split()))
    return sorted(decls)


def kernel(decls):
    lines = ['#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable',
             '#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable',
             'kernel void k(void) {']
    for i, d in enumerate(decls):
        m = re.match(r'(.*?)\b(\w+)\((.*)\);$', d)
        if not m:
            sys.exit('cannot read declaration: ' + d)
        params = [p.strip() for p in m.group(3).split(',') if p.strip()]
        body, args = [], []
        for j, p in enumerate(params):
            p = re.sub(r'\bptr$', '', p).strip()
            v = 'a%d_%d' % (i, j)
            body.append('%s %s = %s;' % (p, v, '0' if '*' in p else '(%s)0' % p))
            args.append(v)
        lines.append('  { %s (void)%s(%s); }' % (' '.join(body), m.group(2), ', '.join(args)))
    lines.append('}')
    return '\n'.join(lines) + '\n'


def main():
    clang, nm, lib, include = sys.argv[1:5]
    flags = sys.argv[5:] + ['-internal-isystem', include]
    header = [f for f in flags if f != '-fdeclare-opencl-builtins']
    defined = set(subprocess.run([nm, '--defined-only', '--format=just-symbols', lib],
                                 check=True, capture_output=True, text=True).stdout.split())
    missing = set()
    with tempfile.TemporaryDirectory() as tmp:
        for decl_std, stds in (('CL1.2', ['CL1.2']), ('CL3.0', ['CL2.0', 'CL3.0'])):
            decls = declarations(clang, header, decl_std)
            src = os.path.join(tmp, 'calls.cl')
            with open(src, 'w') as f:
                f.write(kernel(decls))
            for std in stds:
                for mode, fl in (('header', header), ('tablegen', flags)):
                    ll = os.path.join(tmp, 'calls.ll')
                    r = subprocess.run([clang, '-cc1'] + fl + ['-cl-std=' + std, '-emit-llvm',
                                        '-o', ll, '-x', 'cl', src],
                                       capture_output=True, text=True)
                    if r.returncode != 0:
                        sys.exit('%s %s: the calls do not compile:\n%s' %
                                 (std, mode, r.stderr[:4000]))
                    called = set()
                    for line in open(ll):
                        m = re.match(r'declare .*?@("?[\w.$]+"?)\(', line)
                        if m and not m.group(1).startswith('llvm.'):
                            called.add(m.group(1).strip('"'))
                    lost = called - defined
                    print('%s %s: %d declarations, %d functions called, %d missing' %
                          (std, mode, len(decls), len(called), len(lost)))
                    missing |= lost
    for name in sorted(missing):
        print('missing from the library: ' + name)
    return 1 if missing else 0


sys.exit(main())
