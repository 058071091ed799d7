#!/usr/bin/env python3
"""Merge sections rerun by `ONLY=... scripts/bench.sh` into BENCHMARKS.md.

    bench-merge.py FILE SECTIONS TABLE NOTE

SECTIONS: the "## Title" blocks of the rerun; TABLE: the opening table made
from their summary rows. In FILE, each section of the same title is
replaced (or added at the end), and each table row of the same comparison
is replaced (or added at the end of the table); both carry NOTE. The rest
of FILE is left as it was.
"""
import re
import sys


def sections(text):
    """The "## " blocks of text: a list of (title, block)."""
    out = []
    parts = re.split(r'(?m)^(?=## )', text)
    for p in parts:
        if p.startswith('## '):
            title = p.split('\n', 1)[0][3:].strip()
            out.append((title, p))
    return out


def main():
    path, secs, table, note = sys.argv[1:5]
    old = open(path).read()
    new_secs = sections(open(secs).read())
    new_rows = [l for l in open(table).read().splitlines()
                if l.startswith('| ') and not l.startswith('| comparison')]
    for title, block in new_secs:
        head, body = block.split('\n', 1)
        block = head + '\n\n_' + note + '._\n' + body
        if not block.endswith('\n\n'):
            block = block.rstrip('\n') + '\n\n'
        pat = re.compile(r'(?ms)^## ' + re.escape(title) + r'\n.*?(?=^## |\Z)')
        if pat.search(old):
            old = pat.sub(lambda m: block, old, count=1)
        else:
            old = old.rstrip('\n') + '\n\n' + block
    lines = old.split('\n')
    # The opening table: the rows after its "| comparison |" header, up to
    # the first line that is not a table row (other sections have tables
    # of their own, which summary rows must not join).
    try:
        top = next(i for i, l in enumerate(lines)
                   if l.startswith('| comparison |'))
    except StopIteration:
        sys.exit('bench-merge: no opening table in %s' % path)
    for row in new_rows:
        key = row.split('|')[1].strip()
        i = top + 1
        while i < len(lines) and lines[i].startswith('|'):
            if ('|---' not in lines[i]
                    and lines[i].split('|')[1].strip() == key):
                lines[i] = row
                break
            i += 1
        else:
            lines.insert(i, row)
    text = '\n'.join(lines)
    mark = '- date: '
    if mark in text:
        i = text.index(mark)
        j = text.index('\n', i)
        text = text[:j + 1] + '- sections ' + note + ': ' + \
            ', '.join(t for t, _ in new_secs) + '\n' + text[j + 1:]
    open(path, 'w').write(text)


if __name__ == '__main__':
    main()
