#!/usr/bin/env bash
# Fuzzes every reader of untrusted input with libFuzzer (clang, ASan + UBSan).
# Usage: scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]   (default 30 s, all targets)
# Builds build-fuzz/ (meson -Dfuzz=true), keeps a growing corpus per target in
# build-fuzz/corpus/NAME (started from fuzz/seeds/NAME) and writes crashing
# inputs to build-fuzz/artifacts/NAME/. A crash found here should be committed
# to fuzz/regressions/NAME/ once fixed: the fuzz_replay_NAME test replays it.
# Prints one line per target (executions, executions per second, corpus,
# crashes), then "fuzz: N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
secs=${1:-30}
shift || true

if [ ! -f build-fuzz/build.ninja ]; then
    CC=clang meson setup build-fuzz -Dfuzz=true -Db_sanitize=address,undefined -Db_lundef=false \
        --buildtype=debugoptimized >/dev/null || { echo "fuzz: 0 passed, 1 failed"; exit 1; }
fi
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    for src in fuzz/fuzz_*.c; do
        n=${src#fuzz/fuzz_}
        targets+=("${n%.c}")
    done
fi
nice ninja -C build-fuzz "${targets[@]/#/fuzz/fuzz_}" >/dev/null || { echo "fuzz: 0 passed, 1 failed"; exit 1; }

export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
passed=0 failed=0
for t in "${targets[@]}"; do
    corpus=build-fuzz/corpus/$t art=build-fuzz/artifacts/$t
    mkdir -p "$corpus" "$art"
    seeds=()
    [ -d "fuzz/seeds/$t" ] && seeds+=("fuzz/seeds/$t")
    [ -d "fuzz/regressions/$t" ] && seeds+=("fuzz/regressions/$t")
    # -rss_limit_mb: a reader that tries to allocate what a hostile count asks
    # for is a finding, not a reason to swap the CI machine to death.
    log=build-fuzz/$t.log
    nice "build-fuzz/fuzz/fuzz_$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=1024 -max_len=65536 \
        -print_final_stats=1 -artifact_prefix="$art/" "$corpus" "${seeds[@]}" >"$log" 2>&1
    rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1)
    crashes=$(find "$art" -type f | wc -l)
    # Rate from libFuzzer's own count and clock, so a long run can be sized
    # for a target count (10^7 executions: 1e7 / rate seconds).
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
    echo "fuzz $t: ${execs:-?} executions in ${secs} s (${rate:-?}/s), ${cov:-cov: ?} edges, corpus $(find "$corpus" -type f | wc -l) inputs, $crashes crash files, exit $rc"
    if [ "$rc" -ne 0 ]; then
        failed=$((failed + 1))
        grep -m 20 -E 'ERROR|SUMMARY|runtime error|#[0-9]+ 0x' "$log" | head -n 20
        echo "  full log: $log; reproduce: build-fuzz/fuzz/fuzz_$t $art/<file>"
    else
        passed=$((passed + 1))
    fi
done
echo "fuzz: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
