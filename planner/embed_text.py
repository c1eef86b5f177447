#!/usr/bin/env python3
"""Build step: turns a data file (CSV) into a C source holding it as one
NUL-terminated string, so the binary carries its data and never reads the
source tree at run time.  usage: embed_text.py INPUT OUTPUT SYMBOL"""
import sys

src, dst, sym = sys.argv[1], sys.argv[2], sys.argv[3]
data = open(src, "rb").read()
with open(dst, "w") as out:
    out.write("/* generated from %s by planner/embed_text.py: do not edit */\n" % src.split("/")[-1])
    out.write("const char %s[] =\n" % sym)
    for i in range(0, len(data), 64):
        chunk = data[i:i + 64]
        out.write('    "' + "".join("\\x%02x" % b for b in chunk) + '"\n')
    out.write(";\n")
