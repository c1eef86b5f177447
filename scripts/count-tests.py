#!/usr/bin/env python3
"""Prints "PASSED FAILED" from meson test logs (testlog.json), summed over the
files given; a missing log counts nothing. Shared by test.sh and sanitize.sh."""
import json
import os
import sys

passed = failed = 0
for path in sys.argv[1:]:
    if not os.path.exists(path):
        continue
    for line in open(path):
        r = json.loads(line).get("result", "")
        if r in ("OK", "EXPECTEDFAIL"):
            passed += 1
        elif r in ("FAIL", "TIMEOUT", "ERROR", "UNEXPECTEDPASS"):
            failed += 1
print(passed, failed)
