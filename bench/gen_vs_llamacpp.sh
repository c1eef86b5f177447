#!/usr/bin/env bash
# Checks that llama.cpp loads and runs the files `fitcheck gen` writes: for
# each model and quantization type, a 1-layer random-weight file is made and
# llama.cpp's llama-simple generates a few tokens from it. Prints one line
# per file (ok / FAIL with llama.cpp's error) and a count.
#
# usage: bench/gen_vs_llamacpp.sh [MODEL ...]   (default: smollm2-135m gemma-3-270m qwen3-0.6b)
#   LLAMA_SIMPLE  llama.cpp's llama-simple (default: on PATH)
#   FITCHECK      the fitcheck binary (default: build/fitcheck)
#   QUANTS        the types to try (default: every type fitcheck knows but MXFP4_MOE)
set -u
cd "$(dirname "$0")/.."
fitcheck="${FITCHECK:-build/fitcheck}"
simple="${LLAMA_SIMPLE:-$(command -v llama-simple || true)}"
if [ -z "$simple" ]; then
    echo "gen_vs_llamacpp: llama.cpp is not installed (no llama-simple on PATH, LLAMA_SIMPLE unset); skipping"
    exit 0
fi
models=("$@")
[ ${#models[@]} -gt 0 ] || models=(smollm2-135m gemma-3-270m qwen3-0.6b)
quants="${QUANTS:-F32 F16 BF16 Q8_0 Q6_K Q5_K_M Q5_K_S Q5_1 Q5_0 Q4_K_M Q4_K_S Q4_1 Q4_0 IQ4_XS IQ4_NL Q3_K_L Q3_K_M Q3_K_S IQ3_M IQ3_S IQ3_XS IQ3_XXS Q2_K Q2_K_S IQ2_M IQ2_S IQ2_XS IQ2_XXS IQ1_M IQ1_S}"
dir=$(mktemp -d /tmp/fitcheck-gen-llama.XXXXXX)
trap 'rm -rf "$dir"' EXIT
ok=0 bad=0
for m in "${models[@]}"; do
    for q in $quants; do
        f="$dir/$m-$q.gguf"
        if ! "$fitcheck" gen --like "$m" --quant "$q" --layers 1 -o "$f" >/dev/null 2>"$dir/err"; then
            echo "FAIL $m $q: fitcheck gen: $(tail -1 "$dir/err")"; bad=$((bad + 1)); continue
        fi
        if "$simple" -m "$f" -n 2 "Hello" >"$dir/out" 2>&1; then
            echo "ok   $m $q"; ok=$((ok + 1))
        else
            echo "FAIL $m $q: $(grep -m1 -i error "$dir/out")"; bad=$((bad + 1))
        fi
        rm -f "$f"
    done
done
echo "gen_vs_llamacpp: $ok loaded and ran, $bad failed"
