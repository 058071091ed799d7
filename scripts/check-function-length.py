#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Fail on functions in the DIRs (lib/, drivers/, apps/) longer than MAX lines.

A function definition in this tree's style starts with its name at the
beginning of a line and its body between a '{' and a '}' alone at the
beginning of lines. One longer than MAX lines passes only with its reason
written in the comment above it, on a line that says "Long because ...".

usage: check-function-length.py [--max N] DIR...
"""
import os
import re
import sys

NAME = re.compile(r'^([A-Za-z_]\w*)\(')


def functions(path):
    """(name, first line, number of lines, comment above) per function."""
    with open(path, encoding='utf-8', errors='replace') as f:
        lines = f.read().split('\n')
    i = 0
    while i < len(lines):
        if lines[i] != '{' or i == 0:
            i += 1
            continue
        # The name is on one of the few lines above the brace (the
        # parameter list may wrap).
        j = i - 1
        while j > 0 and j > i - 8 and not NAME.match(lines[j]):
            j -= 1
        m = NAME.match(lines[j])
        k = i + 1
        while k < len(lines) and lines[k] != '}':
            k += 1
        if m:
            # The comment block right above the return type line.
            c = j - 2
            above = []
            while c >= 0 and lines[c].strip().startswith(('/*', '*', '//')):
                above.append(lines[c])
                c -= 1
            yield m.group(1), j + 1, k - i + 1, '\n'.join(above)
        i = k + 1


def main(argv):
    limit = 80
    if len(argv) > 2 and argv[1] == '--max':
        limit = int(argv[2])
        argv = argv[2:]
    bad = 0
    for top in argv[1:]:
        for dirpath, _, names in sorted(os.walk(top)):
            for n in sorted(names):
                if not n.endswith(('.c', '.h')):
                    continue
                path = os.path.join(dirpath, n)
                for name, line, length, above in functions(path):
                    if length <= limit or 'Long because' in above:
                        continue
                    print(f'{path}:{line}: {name}() has {length} lines '
                          f'(more than {limit}, and no "Long because" '
                          f'comment above it)')
                    bad += 1
    if bad:
        print(f'{bad} function(s) too long: split them, or say above each '
              f'why it must be long')
        return 1
    print('every function within the limit or with its reason')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
