#!/usr/bin/env bash
# fitcheck's engine against llama.cpp's CPU backend on TinyLlama-shaped random
# models (n_embd 2048, 22 layers, 32/4 heads, n_ff 5632, vocabulary 32000).
# Prints both speeds, their ratio, the ratio to the reference figures of issue #6
# where there is one, the load average the row ran under, and for decode the
# read bandwidth fitcheck measured beside the test (same-minute) with the share
# of it that decode moved (weights bytes x t/s; issue 18's target: >= 85%).
# Targets (issue 18): tg >= 1.2x llama.cpp, pp >= 1.0x.
#
# Usage: bench/engine_vs_llamacpp.sh [THREADS] [REPS]
#   LLAMA_BENCH=/path/to/llama-bench   use this llama-bench (else found in PATH, or
#                                       bench/llamacpp_build.sh's, built once: slow)
#   QUANTS="Q4_0 Q8_0"                  limit the types (default: every type the engine runs)
#   ISAS="avx512bf16 avx512 avx2 scalar" fitcheck's instruction sets, side by side
#                                       (FITCHECK_ISA; default: the best, avx2 and scalar;
#                                       scalar runs decode only, once: it is ~10x slower)
#   LLAMA_ARGS="..."                    extra llama-bench arguments (default none:
#                                       llama.cpp's defaults, weight repacking on,
#                                       are what users run)
# Benchmarks hold /tmp/fitcheck-bench.lock so two never run at once. llama.cpp
# is only for this comparison: nothing in fitcheck's build or tests needs it.
set -euo pipefail
cd "$(dirname "$0")/.."
threads=${1:-2}
reps=${2:-3}
fitcheck=./build/fitcheck
cache=${XDG_CACHE_HOME:-$HOME/.cache}/fitcheck
models=$cache/bench
mkdir -p "$models"

# Reference figures (llama.cpp, this kind of machine, 2 threads; issue #6).
declare -A ref_tg=([Q4_0]=43.5 [Q4_K_M]=32 [Q8_0]=29 [F16]=14.8)
declare -A ref_pp=([Q4_0]=173 [Q8_0]=106 [Q4_K_M]=124 [F16]=137)
declare -A pp_len=([Q4_0]=512 [Q8_0]=512)

find_llama_bench() {
    if [ -n "${LLAMA_BENCH:-}" ]; then echo "$LLAMA_BENCH"; return; fi
    if command -v llama-bench >/dev/null; then command -v llama-bench; return; fi
    echo "$(bench/llamacpp_build.sh)/llama-bench"
}

lb=$(find_llama_bench)
[ -x "$lb" ] || { echo "llama-bench not found or failed to build" >&2; exit 1; }

# "avg_ts model_size read_gbs_now" of the first result line of a jsonl output
ts() { python3 -c 'import json,sys; r = json.loads(sys.stdin.readline()); print("%.2f %d %.2f" % (r["avg_ts"], r.get("model_size") or 0, r.get("read_gbs_now") or 0))'; }
load() { cut -d" " -f1 /proc/loadavg; }

# the engine's AVX-512 path needs VNNI, its avx512bf16 path AVX512_BF16 too (engine/quant.c eng_isa_best)
best=$(grep -qw avx512_vnni /proc/cpuinfo && echo avx512 || echo avx2)
[ "$best" = avx512 ] && grep -qw avx512_bf16 /proc/cpuinfo && best="avx512bf16 avx512"
isas=${ISAS:-$([ "$best" = avx2 ] && echo "avx2 scalar" || echo "$best avx2 scalar")}
printf "%-7s %-6s %-7s %10s %10s %8s %10s %9s %6s %8s %6s\n" type test isa fitcheck llama.cpp ratio reference vs_ref load "GB/s now" "%bw"
quants=${QUANTS:-F16 BF16 Q8_0 Q6_K Q5_K_M Q4_K_M Q4_0 IQ4_NL IQ4_XS}
# every file written and on disk before the first test (speed_vs_engine.sh says why)
for q in $quants; do
    f=$models/tinyllama-$q.gguf
    [ -f "$f" ] || "$fitcheck" gen --like tinyllama-1.1b --quant "$q" -o "$f" >&2
done
sync
for q in $quants; do
    f=$models/tinyllama-$q.gguf
    for test in tg64 "pp${pp_len[$q]:-128}"; do
        n=${test#??}
        if [ "${test:0:2}" = tg ]; then fa=(-p 0 -n "$n"); la=(-p 0 -n "$n"); ref=${ref_tg[$q]:-0}
        else fa=(-p "$n" -n 0); la=(-p "$n" -n 0); ref=${ref_pp[$q]:-0}; fi
        for isa in $isas; do
            r=$reps
            if [ "$isa" = scalar ]; then [ "${test:0:2}" = tg ] || continue; r=1; fi
            ours=$(FITCHECK_ISA=$isa flock /tmp/fitcheck-bench.lock "$fitcheck" run "$f" --bench "${fa[@]}" -t "$threads" \
                   -r "$r" -o jsonl 2>/dev/null | ts)
            # shellcheck disable=SC2086
            theirs=$(flock /tmp/fitcheck-bench.lock "$lb" -m "$f" "${la[@]}" -t "$threads" -r "$reps" ${LLAMA_ARGS:-} \
                     -o jsonl 2>/dev/null | ts)
            python3 - "$q" "$test" "$isa" "$ref" "$(load)" $ours $theirs <<'PY'
import sys
q, test, isa = sys.argv[1:4]
ref, load, ours, size, gbs, theirs = map(float, sys.argv[4:10])
bw = "%6.0f" % (100 * size * ours / 1e9 / gbs) if test.startswith("tg") and gbs > 0 else "     -"
print("%-7s %-6s %-7s %10.2f %10.2f %7.2fx %10s %9s %6.1f %8.1f %s" % (
      q, test, isa, ours, theirs, ours / theirs, "%.1f" % ref if ref else "-", "%.2fx" % (ours / ref) if ref else "-",
      load, gbs, bw))
PY
        done
    done
done
echo "(ratio = fitcheck / llama.cpp here and now, each fitcheck run right next to its llama.cpp run; vs_ref = fitcheck / the reference figure;"
echo " load = 1-minute load average after the pair; GB/s now = fitcheck's read probe beside its test; %bw = weight bytes x t/s / GB/s now;"
echo " targets: tg >= 1.2x, pp >= 1.0x, decode >= 85% of the same-minute bandwidth)"
