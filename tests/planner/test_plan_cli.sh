#!/usr/bin/env bash
# plan / models / hw from the command line: exit statuses, messages, JSON shape.
set -u
bin="${FITCHECK_BIN:?}"
out=/tmp/fc_plan_out.$$ errf=/tmp/fc_plan_err.$$
fail=0
t() { # expected-status description command...
    local want=$1 what=$2; shift 2
    "$@" >"$out" 2>"$errf"
    local got=$?
    if [ "$got" -ne "$want" ]; then echo "FAIL: $what: exit $got, expected $want"; cat "$errf"; fail=1; fi
}
t 2 "plan without model" "$bin" plan
t 2 "plan unknown model" "$bin" plan no-such-model-9b
grep -q "no-such-model-9b" "$errf" || { echo "FAIL: unknown model not named"; fail=1; }
t 2 "plan negative ctx" "$bin" plan llama-3.1-8b --ctx -5
grep -q -- "--ctx" "$errf" || { echo "FAIL: bad ctx not named"; fail=1; }
t 2 "plan unknown quant" "$bin" plan llama-3.1-8b --quant Q9_K
t 2 "plan bad kv" "$bin" plan llama-3.1-8b --kv q3
t 2 "plan bad fa" "$bin" plan llama-3.1-8b --fa maybe
t 2 "plan unknown hw" "$bin" plan llama-3.1-8b --hw gtx-9999
t 2 "plan q8_0 V cache without FA" "$bin" plan llama-3.1-8b --kv q8_0 --fa off
t 2 "plan --pp on one machine" "$bin" plan qwen3-8b --hw rtx-4090 --pp 1024
grep -q "on one machine say --bench pp1024,tg128" "$errf" || { echo "FAIL: --pp on one machine: no hint"; cat "$errf"; fail=1; }
t 2 "plan --ngld without --draft" "$bin" plan qwen3-8b --hw rtx-4090 --ngld 5
grep -q "ngld needs --draft MODEL" "$errf" || { echo "FAIL: --ngld alone: no reason"; cat "$errf"; fail=1; }
t 2 "plan --hw all --tensor-split" "$bin" plan qwen3-8b --hw all --tensor-split 1,1
grep -q "hw all plans one device each" "$errf" || { echo "FAIL: --hw all -ts: no reason"; cat "$errf"; fail=1; }
# a ranking has no place for them: refused, not silently dropped
for flag in "--bench tg128" "--ctx-sweep" "-o csv"; do
    t 2 "plan --hw all $flag" "$bin" plan qwen3-8b --hw all $flag
    grep -q "are for one machine; --hw all ranks every catalog device" "$errf" || { echo "FAIL: --hw all $flag: no reason"; cat "$errf"; fail=1; }
done
t 0 "plan catalog model" "$bin" plan llama-3.1-8b --hw rtx-4090
grep -q "fits" "$out" || { echo "FAIL: plan printed no verdict"; fail=1; }
# -o rows carry the same memory split as --json's devices (one fact, two renderings):
# anon + mapped = total, and the host's mapped (reclaimable) file pages are not zero on a CPU plan.
"$bin" plan qwen3-8b --hw cpu-ddr5-6400-2ch:64 -o jsonl >"$out.rows" 2>"$errf" &&
"$bin" plan qwen3-8b --hw cpu-ddr5-6400-2ch:64 --json >"$out.doc" 2>>"$errf" || { echo "FAIL: plan -o jsonl"; cat "$errf"; fail=1; }
python3 - "$out.rows" "$out.doc" <<'PY' || fail=1
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
devs = json.load(open(sys.argv[2]))["devices"]
keys = ("anon_bytes", "mapped_bytes", "pinned_bytes", "repack_bytes", "total_bytes")
assert [{k: r[k] for k in keys} for r in rows] == [{k: d[k] for k in keys} for d in devs], (rows, devs)
assert all(r["anon_bytes"] + r["mapped_bytes"] == r["total_bytes"] for r in rows), rows
assert rows[-1]["mapped_bytes"] > 0, rows[-1]
PY
"$bin" plan qwen3-8b --hw cpu-ddr5-6400-2ch:64 -o csv | head -1 | grep -q "anon_bytes,mapped_bytes" || { echo "FAIL: -o csv lacks anon/mapped"; fail=1; }
rm -f "$out.rows" "$out.doc"
t 0 "plan --json" "$bin" plan qwen3-30b-a3b --hw rtx-4090,rtx-4090 --ctx 8192 --json
python3 - "$out" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
devs = d["devices"]
assert [x["device"] for x in devs] == ["rtx-4090", "rtx-4090", "cpu"], devs
assert all(x["free_bytes"] == 24 << 30 for x in devs[:2]), "VRAM must be per card"
assert sum(x["n_layers"] for x in devs) == 48
assert d["settings"]["kv_bytes"] == 48 * 8192 * 4 * 128 * 2 * 2, d["settings"]
assert d["verdict"] in ("fits", "tight", "fits, pages from disk", "does not fit")
# memory as the OS sees it: each device's total is its anonymous plus its mapped bytes
assert all(x["anon_bytes"] + x["mapped_bytes"] == x["total_bytes"] and x["pinned_bytes"] <= x["anon_bytes"] for x in devs), devs
PY
t 0 "plan 405B on one GPU says no" "$bin" plan llama-3.1-405b --hw rtx-4090 --json
grep -q '"verdict": "does not fit"' "$out" || { echo "FAIL: 405B fits a 4090?"; fail=1; }
# "Does not fit" never comes with a speed (issue 15: gpt-oss-120b on one
# 4090 said "does not fit" and printed tg128 158 t/s); the choice is still made.
t 0 "no-fit plan has no speed" "$bin" plan gpt-oss-120b --hw rtx-4090 --json
python3 - "$out" <<'PY' || { echo "FAIL: a no-fit plan came with a speed"; fail=1; }
import json, sys
d = json.load(open(sys.argv[1]))
assert d["verdict"] == "does not fit", d["verdict"]
assert d["speed"] is None and "does not fit" in d["speed_note"], (d["speed"], d.get("speed_note"))
PY
# A Mac with a CUDA card cannot exist: refused, both named.
t 2 "Mac with a CUDA card" "$bin" plan llama-3.1-8b --hw apple-m2-ultra:64,rtx-4090
grep -q "apple-m2-ultra" "$errf" && grep -q "rtx-4090" "$errf" || { echo "FAIL: Mac+CUDA message: $(cat "$errf")"; fail=1; }
t 0 "models" "$bin" models
[ "$(grep -c '^[a-z]' "$out")" -ge 31 ] || { echo "FAIL: fewer than 30 catalog models"; fail=1; }
t 0 "models --json" "$bin" models --json
python3 -c "import json,sys; d=json.load(open('$out')); assert len(d)>=30 and all(m['source'] for m in d)" || fail=1
t 0 "hw --json" "$bin" hw --json
python3 -c "import json,sys; d=json.load(open('$out')); assert len(d)>=40 and all(m['source'] for m in d)" || fail=1
python3 - "$out" <<'PY' || fail=1
import json, sys
d = {m["id"]: m for m in json.load(open(sys.argv[1]))}
x = d["rx-7900-xtx"]  # its default, and what else llama.cpp runs on it ('plan --backend' refuses the rest)
assert x["backend"] == "ROCm" and "Vulkan" in x["backends"] and "Metal" not in x["backends"], x
assert d["apple-m1-max"]["backend"] == "Metal" and "CUDA" not in d["apple-m1-max"]["backends"], d["apple-m1-max"]
assert all(m["backends"] == ["CPU"] for m in d.values() if m["category"] == "cpu_platform")
PY
t 2 "hw bad option" "$bin" hw --bogus
if [ -n "${FITCHECK_MODELS:-}" ] && [ -f "$FITCHECK_MODELS/gemma-3-270m-q4_k_m.gguf" ]; then
    t 0 "plan a real GGUF" "$bin" plan "$FITCHECK_MODELS/gemma-3-270m-q4_k_m.gguf" --json
    python3 -c "import json; d=json.load(open('$out')); assert d['settings']['kv_cells_swa'] == 1024, d['settings']" || fail=1
fi
rm -f "$out" "$errf"
exit $fail
