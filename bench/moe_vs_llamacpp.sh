#!/usr/bin/env bash
# Mixture-of-experts models as checks, not just plans (issue 18): random-weight
# files made by `fitcheck gen --like` (the first LAYERS layers of a catalog
# MoE), run by fitcheck's engine and by llama.cpp on the same file.
#   1. tokens: fitcheck's greedy continuation of fixed prompt ids, fed to
#      llama.cpp teacher-forced (bench/llama_greedy.c, built here against the
#      llama.cpp build): per step llama.cpp's own argmax, and how far below it
#      fitcheck's token is. Random weights give flat logits, so a rounding
#      difference can flip a near-tie: a step passes when the tokens are equal
#      or the gap is under TIE logits.
#   2. speed: `fitcheck run --bench` with the planner's predictions (profile
#      and same-minute) for the MoE shapes, and llama-bench on the same file.
# Benchmarks hold /tmp/fitcheck-bench.lock, alternating fitcheck and llama.cpp.
# llama.cpp runs with its defaults (weight repacking on: what users run).
# The prompt is PROMPT_LEN ids, longer than gpt-oss's 128-token window, so
# its sliding-window layers really drop keys.
#
# usage: bench/moe_vs_llamacpp.sh
#   LIKES="qwen3-30b-a3b gpt-oss-20b"  QUANTS="Q8_0 Q4_K_M"  LAYERS=2  THREADS=2  N=16  TIE=0.05
#   (gpt-oss files are always made at MXFP4, its native quantization, whatever QUANTS says)
#   LLAMA_DIR=~/.cache/fitcheck/llama.cpp   (src/ and build/bin/ of a llama.cpp build)
set -euo pipefail
cd "$(dirname "$0")/.."
fitcheck=${FITCHECK:-./build/fitcheck}
cache=${XDG_CACHE_HOME:-$HOME/.cache}/fitcheck
llama=${LLAMA_DIR:-$cache/llama.cpp}
dir=$cache/bench
likes=${LIKES:-qwen3-30b-a3b gpt-oss-20b}
quants=${QUANTS:-Q8_0 Q4_K_M}
layers=${LAYERS:-2}
threads=${THREADS:-2}
n=${N:-16}
tie=${TIE:-0.05}
prompt_len=${PROMPT_LEN:-160}
prompt=$(seq 0 $((prompt_len - 1)) | awk '{printf "%s%d", (NR > 1 ? "," : ""), ($1 * 7919 + 13) % 100000}')
lock=/tmp/fitcheck-bench.lock
mkdir -p "$dir"
[ -x "$llama/build/bin/llama-bench" ] || LLAMA_CACHE=$llama bench/llamacpp_build.sh >/dev/null
greedy=$dir/llama_greedy
cc -O2 -I"$llama/src/include" -I"$llama/src/ggml/include" bench/llama_greedy.c -L"$llama/build/bin" -lllama \
    -Wl,-rpath,"$llama/build/bin" -o "$greedy"
fail=0
for like in $likes; do
    like_quants=$quants
    [ "${like#gpt-oss}" = "$like" ] || like_quants=MXFP4
    for q in $like_quants; do
        f=$dir/$like-L$layers-$q.gguf
        [ -f "$f" ] || "$fitcheck" gen --like "$like" --quant "$q" --layers "$layers" -o "$f" >/dev/null
        if ! ids=$("$fitcheck" run "$f" --tokens "$prompt" -n "$n" --temp 0 --ids -t "$threads" 2>"$dir/moe.err"); then
            echo "$like $q: fitcheck cannot run it: $(tail -1 "$dir/moe.err")"
            continue
        fi
        "$greedy" "$f" "$threads" "$prompt" "$ids" 2>/dev/null | python3 -c '
import sys
name, tie = sys.argv[1], float(sys.argv[2])
rows = [l.split() for l in sys.stdin if l.strip()]
eq = sum(r[1] == r[2] for r in rows)
gap = max(float(r[3]) for r in rows) if rows else float("inf")
ok = rows and gap <= tie
print("%-26s tokens: %d of %d equal to llama.cpp greedy, largest gap %.4f logits (tie %.2f): %s" % (
      name, eq, len(rows), gap, tie, "pass" if ok else "FAIL"))
sys.exit(0 if ok else 1)' "$like $q L$layers" "$tie" || fail=1
        ours=$(flock "$lock" "$fitcheck" run "$f" --bench -p 32 -n "$n" -r 2 -t "$threads" -o jsonl 2>/dev/null) || ours=""
        theirs=$(flock "$lock" "$llama/build/bin/llama-bench" -m "$f" -p 32 -n "$n" -r 2 -t "$threads" \
                 -o jsonl 2>/dev/null) || theirs=""
        python3 - "$ours" "$theirs" <<'PY'
import json, sys
ours = [json.loads(l) for l in sys.argv[1].splitlines() if l.strip()]
theirs = {(r["n_prompt"], r["n_gen"]): r["avg_ts"] for r in (json.loads(l) for l in sys.argv[2].splitlines() if l.strip())}
for r in ours:
    test = "pp%d" % r["n_prompt"] if r["n_prompt"] else "tg%d" % r["n_gen"]
    m, p, n = r["avg_ts"], r.get("predicted_ts") or 0, r.get("predicted_now_ts") or 0
    lc = theirs.get((r["n_prompt"], r["n_gen"]), 0)
    print("    %-5s fitcheck %7.2f t/s  predicted %7.2f (%+4.0f%%)  same-minute %7.2f (%+4.0f%%) at %.1f GB/s  llama.cpp %7.2f (x%.2f)" % (
          test, m, p, 100 * (p / m - 1) if p else 0, n, 100 * (n / m - 1) if n else 0, r.get("read_gbs_now") or 0,
          lc, m / lc if lc else 0))
PY
    done
done
echo "(interleaved under $lock; the machine was shared with other agents' builds and tests)"
exit $fail
