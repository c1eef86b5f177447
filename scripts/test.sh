#!/usr/bin/env bash
# The test command: set up, fetch the real test models, run every test, and
# end with one line "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --test || { echo "0 passed, 1 failed"; exit 1; }
FITCHECK_MODELS="$(scripts/fetch-models.sh | tail -n 1)" || { echo "0 passed, 1 failed"; exit 1; }
export FITCHECK_MODELS

meson test -C build --print-errorlogs --num-processes 2 "$@"
rc=$?
log=build/meson-logs/testlog.json
passed=0 failed=0
if [ -f "$log" ]; then
    read -r passed failed < <(python3 - "$log" <<'PY'
import json, sys
p = f = 0
for line in open(sys.argv[1]):
    r = json.loads(line).get("result", "")
    if r in ("OK", "EXPECTEDFAIL"): p += 1
    elif r in ("FAIL", "TIMEOUT", "ERROR", "UNEXPECTEDPASS"): f += 1
print(p, f)
PY
)
fi
[ "$rc" -ne 0 ] && [ "$failed" -eq 0 ] && failed=1
echo "$passed passed, $failed failed"
exit "$rc"
