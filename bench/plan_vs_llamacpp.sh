#!/usr/bin/env bash
# Compares `fitcheck plan` with the buffer sizes llama.cpp prints when it loads
# a model (model, KV, compute, output buffers per backend), for each GGUF in
# $FITCHECK_MODELS at a few contexts, with and without flash attention.
# Target (issue 4): every device within max(3%, 128 MiB); KV exact.
#
# usage: bench/plan_vs_llamacpp.sh [MODEL.gguf ...]
#   LLAMA_CLI   the llama.cpp binary (default: llama-cli, then llama-completion on PATH)
#   FITCHECK    the fitcheck binary (default: build/fitcheck)
#   NGL         GPU layers passed to both (default 0: CPU only)
set -u
cd "$(dirname "$0")/.."
fitcheck="${FITCHECK:-build/fitcheck}"
llama="${LLAMA_CLI:-$(command -v llama-cli || command -v llama-completion || true)}"
if [ -z "$llama" ]; then
    echo "plan_vs_llamacpp: llama.cpp is not installed (no llama-cli on PATH, LLAMA_CLI unset); skipping"
    exit 0
fi
ngl="${NGL:-0}"
models=("$@")
[ ${#models[@]} -eq 0 ] && models=("${FITCHECK_MODELS:-$HOME/.cache/fitcheck/models}"/*.gguf)
# One prompt, one token, then exit: today's llama-cli is a chat loop that
# takes -st (single turn); older ones and llama-completion take -no-cnv.
once=(-no-cnv)
"$llama" --help 2>/dev/null | grep -q -- "--single-turn" && once=(-st)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
printf '%-34s %6s %3s  %-8s %12s %12s %8s\n' model ctx fa buffer llama.cpp fitcheck ratio
for m in "${models[@]}"; do
    [ -f "$m" ] || continue
    for ctx in ${CTXS:-2048 8192}; do
        for fa in off on; do
            # One token generated: enough for every buffer to be allocated and printed.
            flock /tmp/fitcheck-bench.lock "$llama" -m "$m" -c "$ctx" -fa "$fa" -ngl "$ngl" -n 1 -p hi \
                "${once[@]}" --no-warmup -t 2 -v >"$log" 2>&1 </dev/null
            plan=$("$fitcheck" plan "$m" --ctx "$ctx" --fa "$fa" --ngl "$ngl" --json) || continue
            python3 - "$log" "$(basename "$m")" "$ctx" "$fa" "$plan" <<'PY'
import json, re, sys
log, name, ctx, fa, plan = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], json.loads(sys.argv[5])
got = {"model": 0.0, "kv": 0.0, "compute": 0.0, "output": 0.0}
seen_compute = False
for line in open(log, errors="replace"):
    # llama.cpp's --fit dry run prints a first set of buffers; count the real
    # load only: a model buffer after a compute buffer starts the next set.
    if "loading model tensors" in line or (seen_compute and "model buffer size" in line):
        got = dict.fromkeys(got, 0.0)
        seen_compute = False
    seen_compute |= "compute buffer size" in line
    m = re.search(r"(\S+)\s+(model|KV|compute|output) buffer size =\s*([0-9.]+) MiB", line)
    if m:
        got[{"model": "model", "KV": "kv", "compute": "compute", "output": "output"}[m.group(2)]] += float(m.group(3))
    m = re.search(r"llama_kv_cache.*size =\s*([0-9.]+) MiB", line)
    if m and "buffer" not in line:
        got["kv"] = max(got["kv"], float(m.group(1)))
want = {"model": 0, "kv": 0, "compute": 0, "output": 0}
for d in plan["devices"]:
    want["model"] += d["weights_bytes"]; want["kv"] += d["kv_bytes"]
    want["compute"] += d["compute_bytes"]; want["output"] += d["output_bytes"]
total_got = total_want = 0.0
for k in ("model", "kv", "compute", "output"):
    w = want[k] / 2**20
    total_got += got[k]; total_want += w
    ratio = w / got[k] if got[k] else float("nan")
    print(f"{name[:34]:34s} {ctx:>6s} {fa:>3s}  {k:8s} {got[k]:10.2f} M {w:10.2f} M {ratio:8.3f}")
ok = abs(total_want - total_got) <= max(0.03 * total_got, 128)
print(f"{name[:34]:34s} {ctx:>6s} {fa:>3s}  {'total':8s} {total_got:10.2f} M {total_want:10.2f} M "
      f"{(total_want / total_got if total_got else float('nan')):8.3f}  {'within target' if ok else 'OUTSIDE target'}")
PY
        done
    done
done
