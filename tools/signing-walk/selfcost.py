#!/usr/bin/env python3
"""The functions of a callgrind profile that ran instructions of their own (not only callers
on the stack above the collected region): one mangled name per line."""
import re
import sys

names, current, after_calls, out = {}, None, False, set()


def name_of(token):
    m = re.match(r'\((\d+)\)(?: (.*))?', token)
    if m.group(2):
        names[m.group(1)] = m.group(2)
    return m.group(1)


for line in open(sys.argv[1], errors='replace'):
    if line.startswith('fn='):
        current = name_of(line[3:].strip())
    elif line.startswith('cfn='):
        name_of(line[4:].strip())
    elif line.startswith('calls='):
        after_calls = True   # the next cost line is the callee's inclusive cost
    elif line[:1].isdigit() or line[:1] in '+-*':
        if after_calls:
            after_calls = False
            continue
        parts = line.split()
        if len(parts) >= 2 and int(parts[1]) > 0 and current:
            out.add(names.get(current, current))
for n in sorted(out):
    print(n)
