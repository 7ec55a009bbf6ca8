#!/usr/bin/env python3
"""The kernel library's parts (kiln-lib.pack) hold the whole library, each part complete.

Usage: check_lib_pack.py LLVM_NM KILN_LIB_BC KILN_LIB_PACK

Reads the pack as include/kiln_lib_pack.h lays it out and checks that
- the index names every builtin kiln-lib.bc defines, once, and nothing else, in strcmp order;
- each part is bitcode inside the pack, starting at a multiple of 16, and defines every builtin
  the index gives it;
- each part is complete: nothing it uses is left undefined but LLVM intrinsics and the hooks
  that kiln-lib.bc itself leaves undefined, so one part resolves its members' calls;
- the library's internal helpers and tables appear only as shared definitions under the
  `kiln.lib.` prefix (weak, so that a kernel linking two parts that both hold one keeps one);
- a helper that several builtins reach is in more than one part (otherwise the cut is not what
  the script believes it checks).
"""
import os
import struct
import subprocess
import sys
import tempfile


def nm(tool, path):
    """{name: type letter} of every symbol llvm-nm lists for a bitcode file."""
    out = subprocess.run([tool, '--no-sort', path], check=True, capture_output=True,
                         text=True).stdout
    symbols = {}
    for line in out.splitlines():
        fields = line.split()
        if len(fields) == 3:
            symbols[fields[2]] = fields[1]
        elif len(fields) == 2:
            symbols[fields[1]] = fields[0]
    return symbols


def main():
    tool, whole_path, pack_path = sys.argv[1:4]
    failures = []
    whole = nm(tool, whole_path)
    builtins = {n for n, t in whole.items() if t in 'WTw' and not n.startswith('kiln.lib.')}
    undefined_ok = {n for n, t in whole.items() if t == 'U'}
    with open(pack_path, 'rb') as f:
        pack = f.read()
    if pack[:8] != b'KILNLIB1':
        sys.exit('FAIL: the pack does not start with KILNLIB1')
    nparts, nnames = struct.unpack_from('<II', pack, 8)
    parts = [struct.unpack_from('<QQ', pack, 16 + 16 * i) for i in range(nparts)]
    names_at = 16 + 16 * nparts
    index = []
    for i in range(nnames):
        text, part = struct.unpack_from('<II', pack, names_at + 8 * i)
        end = pack.index(b'\0', text)
        index.append((pack[text:end].decode(), part))

    names = [n for n, _ in index]
    if names != sorted(names, key=lambda n: n.encode()):
        failures.append('the index is not in strcmp order')
    if len(set(names)) != len(names):
        failures.append('the index names a builtin twice')
    if set(names) != builtins:
        missing = sorted(builtins - set(names))[:5]
        extra = sorted(set(names) - builtins)[:5]
        failures.append(f'index and library differ: missing {missing}, extra {extra}')
    if any(p >= nparts for _, p in index):
        failures.append('the index names a part the pack does not have')

    members = {}
    for name, part in index:
        members.setdefault(part, []).append(name)
    shared_in = {}
    with tempfile.TemporaryDirectory() as tmp:
        for p, (offset, size) in enumerate(parts):
            if offset % 16 or offset + size > len(pack) or pack[offset:offset + 4] != b'BC\xc0\xde':
                failures.append(f'part {p} is not aligned bitcode inside the pack')
                continue
            path = os.path.join(tmp, f'part{p}.bc')
            with open(path, 'wb') as f:
                f.write(pack[offset:offset + size])
            symbols = nm(tool, path)
            for name in members.get(p, []):
                if symbols.get(name) not in ('W', 'T'):
                    failures.append(f'part {p} does not define its member {name}')
            for name, kind in symbols.items():
                if kind == 'U' and not name.startswith('llvm.') and name not in undefined_ok:
                    failures.append(f'part {p} leaves {name} undefined')
                if name.startswith('kiln.lib.'):
                    shared_in.setdefault(name, []).append(p)
                    if kind not in ('W', 'V'):
                        failures.append(f'part {p}: helper {name} is not a shared definition ({kind})')
                elif kind in ('t', 'd', 'r', 'b'):
                    failures.append(f'part {p}: {name} is internal ({kind})')
    if not any(len(ps) > 1 for ps in shared_in.values()):
        failures.append('no helper is in two parts')
    if not members or len(members) != nparts:
        failures.append(f'{nparts} parts, {len(members)} with members')

    for line in failures[:20]:
        print('FAIL:', line)
    if failures:
        sys.exit(1)
    print(f'{nparts} parts, {nnames} builtins; {len(shared_in)} helpers, '
          f'{sum(len(ps) > 1 for ps in shared_in.values())} of them in several parts')


if __name__ == '__main__':
    main()
