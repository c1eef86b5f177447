#!/usr/bin/env bash
# The test command: set up, fetch the real test models, run every test, then
# the same suite under ASan+UBSan (scripts/sanitize.sh) and a short libFuzzer
# run of every reader (scripts/fuzz.sh, FUZZ_SECONDS per target, default 30);
# ends with one line "N passed, N failed" counting every test of every step
# (each fuzz target counts as one test).
set -uo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --test || { echo "0 passed, 1 failed"; exit 1; }
FITCHECK_MODELS="$(scripts/fetch-models.sh | tail -n 1)" || { echo "0 passed, 1 failed"; exit 1; }
export FITCHECK_MODELS

status=0
rm -f build/meson-logs/testlog.json
meson test -C build --print-errorlogs --num-processes 2 "$@" || status=1
read -r passed failed < <(scripts/count-tests.py build/meson-logs/testlog.json)
[ "$status" -ne 0 ] && [ "$failed" -eq 0 ] && failed=1

# Sanitizer and fuzz steps: each prints "STEP: N passed, N failed" last.
for step in "scripts/sanitize.sh $*" "scripts/fuzz.sh ${FUZZ_SECONDS:-30}"; do
    out=$($step 2>&1)
    rc=$?
    printf '%s\n' "$out"
    read -r p f < <(printf '%s\n' "$out" | tail -n 1 | sed -n 's/^[a-z]*: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p')
    [ "$rc" -ne 0 ] && [ "${f:-0}" -eq 0 ] && f=1
    passed=$((passed + ${p:-0})) failed=$((failed + ${f:-0}))
    [ "$rc" -ne 0 ] && status=1
done
echo "$passed passed, $failed failed"
exit "$status"
