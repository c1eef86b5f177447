#!/usr/bin/env bash
# Compares `fitcheck plan --mmproj / --lora` with the buffers llama.cpp prints
# when it loads the same files (docs/planner-memory.md, "Checked against
# llama.cpp"): projectors written by `fitcheck gen --mmproj` (SmolVLM-256M's,
# Gemma 3 4B's: llama-mtmd-cli's "model size" and the warmup's
# "reserve_compute_meta" buffer, flash attention on and off) and a LoRA from
# `fitcheck gen --lora-for` (llama-cli's "LoRA buffer size"). CPU only.
#
# usage: bench/extras_vs_llamacpp.sh
#   LLAMA_BIN  folder with llama-mtmd-cli and llama-cli (default bench/llamacpp_build.sh's)
#   FITCHECK   the fitcheck binary (default build/fitcheck)
set -u
cd "$(dirname "$0")/.."
fitcheck="${FITCHECK:-build/fitcheck}"
bin="${LLAMA_BIN:-$(bench/llamacpp_build.sh)}"
base="${FITCHECK_MODELS:-$HOME/.cache/fitcheck/models}/SmolLM2-135M-Instruct.Q4_1.gguf"
if [ ! -x "$bin/llama-mtmd-cli" ] || [ ! -x "$bin/llama-cli" ] || [ ! -f "$base" ]; then
    echo "extras_vs_llamacpp: needs $bin/llama-mtmd-cli, $bin/llama-cli and $base; skipping"
    exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mib() { python3 -c "import json,sys; d=json.load(sys.stdin); print('%.2f' % (eval(sys.argv[1]) / 1048576))" "$1"; }
printf '%-14s %-4s %-10s %10s %10s\n' file fa buffer llama.cpp fitcheck
for preset in smolvlm-256m gemma3-4b; do
    f="$work/$preset.gguf"
    "$fitcheck" gen --mmproj "$preset" -o "$f" >/dev/null || exit 1
    for fa in on off; do
        log="$work/$preset-$fa.log"
        nice "$bin/llama-mtmd-cli" -m "$base" --mmproj "$f" -p hi -n 1 -t 1 -c 512 -fa "$fa" -v </dev/null >"$log" 2>&1
        plan=$("$fitcheck" plan "$base" --mmproj "$f" --fa "$fa" --json)
        w=$(grep -o 'model size: *[0-9.]*' "$log" | grep -o '[0-9.]*$')
        c=$(grep -o 'reserve_compute_meta: *CPU compute buffer size = *[0-9.]*' "$log" | grep -o '[0-9.]*$' | tail -1)
        printf '%-14s %-4s %-10s %10s %10s\n' "$preset" "$fa" weights "$w" "$(echo "$plan" | mib "d['extras']['mmproj']['weight_bytes']")"
        printf '%-14s %-4s %-10s %10s %10s\n' "$preset" "$fa" image "$c" "$(echo "$plan" | mib "d['extras']['mmproj']['compute_bytes']")"
    done
done
lora="$work/lora.gguf"
"$fitcheck" gen --lora-for "$base" -o "$lora" >/dev/null || exit 1
nice "$bin/llama-cli" -m "$base" --lora "$lora" -p hi -n 1 -t 1 -c 512 -st -v </dev/null >"$work/lora.log" 2>&1
l=$(grep -o 'LoRA buffer size = *[0-9.]*' "$work/lora.log" | grep -o '[0-9.]*$')
printf '%-14s %-4s %-10s %10s %10s\n' lora-r8 - weights "$l" "$("$fitcheck" plan "$base" --lora "$lora" --json | mib "d['extras']['lora'][0]['bytes']")"
