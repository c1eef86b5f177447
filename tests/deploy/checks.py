"""The deploy tests' one assertion helper: check() prints each result and
remembers failures; finish() prints the count and exits 1 if any failed."""
import sys

failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def finish():
    print(f"{len(failures)} failure(s)")
    sys.exit(1 if failures else 0)
