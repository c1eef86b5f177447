#!/usr/bin/env bash
# Runs the whole test suite built with AddressSanitizer + UndefinedBehaviorSanitizer
# (build-asan/), then the engine's thread-pool stress test under ThreadSanitizer
# (build-tsan/; skipped when test names are given). LeakSanitizer is part of ASan:
# any test that runs the fitcheck binary (FITCHECK_BIN is the sanitized one here)
# fails on a leak, a bad access or undefined behaviour. Arguments go to
# `meson test` (e.g. a test name).
# Ends with "sanitize: N passed, N failed" (build-asan's test log plus the TSan run).
set -uo pipefail
cd "$(dirname "$0")/.."

if [ ! -f build-asan/build.ninja ]; then
    meson setup build-asan -Db_sanitize=address,undefined -Db_lundef=false --buildtype=debugoptimized \
        >/dev/null || { echo "sanitize: 0 passed, 1 failed"; exit 1; }
fi
nice ninja -C build-asan >/dev/null || { echo "sanitize: build failed"; echo "sanitize: 0 passed, 1 failed"; exit 1; }

# halt_on_error: UBSan only warns by default, and a warning passes a test.
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export ASAN_OPTIONS=detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1
rm -f build-asan/meson-logs/testlog.json
# Sanitized code runs 2-3x slower: give each test that much more time.
meson test -C build-asan --print-errorlogs --num-processes 2 --timeout-multiplier 3 "$@" >build-asan/test.out 2>&1
rc=$?
grep -E '^ *[0-9]+/[0-9]+ ' build-asan/test.out | grep -v ' OK \| SKIP ' 
read -r passed failed < <(scripts/count-tests.py build-asan/meson-logs/testlog.json)
[ "$rc" -ne 0 ] && [ "$failed" -eq 0 ] && failed=1

# ThreadSanitizer on the engine's thread pool (its stress test only: the
# whole suite under TSan would take too long on a 2-core machine).
TSAN_TEST=tests/hostile/test_pool_race
if [ $# -eq 0 ]; then
    if [ ! -f build-tsan/build.ninja ]; then
        meson setup build-tsan -Db_sanitize=thread -Db_lundef=false --buildtype=debugoptimized >/dev/null
    fi
    if nice ninja -C build-tsan "$TSAN_TEST" >/dev/null &&
        TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 "build-tsan/$TSAN_TEST" >build-tsan/test.out 2>&1; then
        passed=$((passed + 1))
        echo "tsan: $(tail -n 1 build-tsan/test.out)"
    else
        failed=$((failed + 1)) rc=1
        echo "tsan: $TSAN_TEST FAILED"
        head -n 80 build-tsan/test.out
    fi
fi
# The failing tests' logs (sanitizer reports included), not the whole run.
[ "$rc" -ne 0 ] && sed -n '/^>>> /,/^Summary of Failures/p' build-asan/test.out | head -n 300
echo "sanitize: $passed passed, $failed failed"
exit "$rc"
