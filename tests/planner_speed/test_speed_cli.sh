#!/usr/bin/env bash
# calibrate and the speed part of plan from the command line: exit statuses,
# messages naming the bad field, the calibration file, JSON shape.
set -u
bin="${FITCHECK_BIN:?}" src="${FITCHECK_SRC:?}"
tmp=$(mktemp -d /tmp/fc_speed_cli.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME="$tmp/cache"   # never touch the user's calibration
out="$tmp/out" errf="$tmp/err"
fail=0
t() { # expected-status description command...
    local want=$1 what=$2; shift 2
    "$@" >"$out" 2>"$errf"
    local got=$?
    if [ "$got" -ne "$want" ]; then echo "FAIL: $what: exit $got, expected $want"; cat "$errf"; fail=1; fi
}
t 0 "calibrate --help" "$bin" calibrate --help
t 2 "calibrate without files" "$bin" calibrate
t 2 "calibrate bad flag" "$bin" calibrate --frobnicate x
t 2 "calibrate --evaluate --out" "$bin" calibrate --evaluate --out "$tmp/never.json" "$src/data/holdout_bench.csv"
grep -q "save nothing" "$errf" && [ ! -e "$tmp/never.json" ] || { echo "FAIL: --evaluate --out: no reason, or a file"; cat "$errf"; fail=1; }
t 2 "calibrate missing file" "$bin" calibrate "$tmp/none.json"
printf '[{"model_type":"llama 7B Q4_0","model_size":3825065984,"model_n_params":6738415616,"n_threads":4,"n_prompt":0,"n_gen":128,"avg_ts":"fast"}]' >"$tmp/bad.json"
t 2 "calibrate hostile json" "$bin" calibrate "$tmp/bad.json"
grep -q "avg_ts" "$errf" || { echo "FAIL: hostile field not named"; cat "$errf"; fail=1; }
printf '{"n_gen":\n' >"$tmp/bad.jsonl"
t 2 "calibrate truncated jsonl" "$bin" calibrate "$tmp/bad.jsonl"
t 0 "calibrate published, dry run" "$bin" calibrate --dry-run "$src/data/published_bench.csv"
grep -q "median |error|" "$out" || { echo "FAIL: no fit quality printed"; fail=1; }
[ ! -e "$tmp/cache/fitcheck/calibration.json" ] || { echo "FAIL: --dry-run saved"; fail=1; }
# --evaluate: the constants in use against a file, nothing fitted, nothing saved; the sealed set
# (data/holdout_bench.csv) is judged this way and only this way.
t 0 "calibrate --evaluate" "$bin" calibrate --evaluate --json "$src/data/holdout_bench.csv"
python3 - "$out" "$src/data/holdout_bench.csv" <<'PY' || fail=1
import csv, json, sys
r = json.load(open(sys.argv[1]))
rows = [x for x in csv.DictReader(l for l in open(sys.argv[2]) if not l.startswith('#'))]
assert r["current"]["n"] == len(r["rows"]) == len(rows) > 0, (r["current"]["n"], len(rows))
assert all(x["predicted_tps"] > 0 and x["measured_tps"] == float(c["tps"]) for x, c in zip(r["rows"], rows))
assert r["current"]["n_decode"] + r["current"]["n_prefill"] == len(rows)
PY
[ ! -e "$tmp/cache/fitcheck/calibration.json" ] || { echo "FAIL: --evaluate saved"; fail=1; }
t 2 "calibrate --evaluate with --cross-validate" "$bin" calibrate --evaluate --cross-validate "$src/data/holdout_bench.csv"
t 2 "calibrate --evaluate with --from-prior" "$bin" calibrate --evaluate --from-prior "$src/data/holdout_bench.csv"
head -n 7 "$src/data/holdout_bench.csv" | grep -v '^#' | head -n 1 >"$tmp/no_rows.csv"   # the header alone
t 2 "calibrate --evaluate, no rows" "$bin" calibrate --evaluate "$tmp/no_rows.csv"
grep -q "no measurements" "$errf" || { echo "FAIL: empty file not said"; cat "$errf"; fail=1; }
# The corpus and the sealed set are what scripts/corpus_build.py makes of their transcriptions, and share no source
# (the script refuses one that both cite: a fit must never see the sealed set).
for set in corpus holdout; do
    python3 "$src/scripts/corpus_build.py" "$set" "$tmp" >/dev/null || { echo "FAIL: corpus_build.py $set"; fail=1; }
done
cmp -s "$tmp/bench_corpus.csv" "$src/data/bench_corpus.csv" || { echo "FAIL: data/bench_corpus.csv is not its build"; fail=1; }
cmp -s "$tmp/holdout_bench.csv" "$src/data/holdout_bench.csv" || { echo "FAIL: data/holdout_bench.csv is not its build"; fail=1; }
mkdir -p "$tmp/data/holdout" && cp -r "$src/data/corpus" "$tmp/data/"
printf '@src leak | url=%s#issuecomment-1 | date=2026-01\n@run backend=cuda\n@table tg128\nrtx-4090 llama-2-7b Q4_0 100\n' \
    "$(awk -F, '$1 == "rtx-4090" { print $NF; exit }' "$src/data/bench_corpus.csv")" >"$tmp/data/holdout/leak.txt"
CORPUS_DATA="$tmp/data" python3 "$src/scripts/corpus_build.py" holdout "$tmp" >/dev/null 2>"$errf" &&
    { echo "FAIL: a corpus source in the sealed set was accepted"; fail=1; }
grep -q "sources in both" "$errf" || { echo "FAIL: shared source not named"; cat "$errf"; fail=1; }
t 0 "calibrate saves" "$bin" calibrate --json "$src/data/published_bench.csv"
python3 - "$out" "$tmp/cache/fitcheck/calibration.json" <<'PY' || fail=1
import json, sys
r = json.load(open(sys.argv[1]))
assert r["after"]["median_abs_err"] <= r["before"]["median_abs_err"], r
assert r["n"] >= 30 and r["saved"].endswith("calibration.json"), r
c = json.load(open(sys.argv[2]))
assert c["schema"] == 1 and isinstance(c["rows"], list)
PY
echo '{"schema":1,"rows":[{"backend":"CUDA"}]}' >"$tmp/cache/fitcheck/calibration.json"
t 2 "plan with a broken calibration" "$bin" plan llama-3.1-8b --hw rtx-4090
grep -q "calibration.json" "$errf" || { echo "FAIL: broken calibration not named"; fail=1; }
rm -f "$tmp/cache/fitcheck/calibration.json"
t 0 "plan speed --json" "$bin" plan llama-3.1-8b --hw rtx-4090 --min-tps 100 --json
python3 - "$out" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
assert d["speed"]["tg128_tps"] > 50, d["speed"]
q = {r["quant"]: r for r in d["quantizations"]}
assert q["F16"]["fits"] == "GPU" and q["Q4_K_M"]["ppl_increase_pct"] == 4.83
rec = d["recommendation"]
assert q[rec["quant"]]["speed"]["tg128_tps"] >= 100, rec
assert rec["llama_cpp"].startswith("llama-server -m ") and "-ngl 999" in rec["llama_cpp"], rec
assert "num_ctx 4096" in rec["ollama"], rec
PY
# Beside a speed, how far its set's predictions were off held out (data/speed_accuracy.csv).
python3 - "$out" <<'PY' || fail=1
import json, sys
a = json.load(open(sys.argv[1]))["speed_accuracy"]
assert a["set"] == "CUDA" and a["decode"]["rows"] > 50 and 0 < a["decode"]["median_abs_err"] < 0.2, a
assert a["family"] == "nvidia-ada" and a["family_measured"] and a["decode"]["family_median_abs_err"] > 0, a
PY
# What bounds decode, per quantization: the 4090 reads its Q4_K_M at the bandwidth; the RTX 3060 has the
# least compute per byte of the catalog's cards, and its K-quants decode at the family's kernel rate.
python3 - "$out" <<'PY' || fail=1
import json, sys
q = {r["quant"]: r for r in json.load(open(sys.argv[1]))["quantizations"]}
assert q["Q4_K_M"]["speed"]["tg128_bound"] == "memory", q["Q4_K_M"]["speed"]
PY
t 0 "plan bound, text" "$bin" plan llama-3.1-8b --hw rtx-3060-12gb
grep -q "^bound     tg128 is bound by the kernels' arithmetic" "$out" &&
    grep -q "^tg128 of Q5_K_M, .*Q2_K.* is bound by the kernels' arithmetic" "$out" ||
    { echo "FAIL: no kernel-bound lines for the RTX 3060's K-quants"; cat "$out"; fail=1; }
t 0 "plan accuracy, text" "$bin" plan llama-3.1-8b --hw amd-epyc-9005
grep -q "^accuracy  no published result measures its chip generation (amd-epyc-9005); held out one device family at a time, CPU-datasheet predictions were off" "$out" ||
    { echo "FAIL: no accuracy line for a datasheet CPU"; cat "$out"; fail=1; }
t 0 "plan --ctx-sweep" "$bin" plan llama-3.1-8b --hw rtx-4090 --ctx 8192 --ctx-sweep
grep -q "^    8192 " "$out" || { echo "FAIL: sweep does not reach the context"; fail=1; }
t 2 "plan bad --min-tps" "$bin" plan llama-3.1-8b --min-tps fast
t 0 "plan --hw all" "$bin" plan llama-3.1-70b --hw all --json
python3 - "$out" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
hw = d["hardware"]
assert len(hw) >= 40, len(hw)
order = ["GPU", "GPU+experts in RAM", "split", "CPU", "does not fit"]
# devices reaching the speed floor first, then those below it, then those it does not fit
tier = lambda h: 2 if h["fits"] == "does not fit" else int(h["below_floor"])
ranks = [(tier(h), order.index(h["fits"])) for h in hw]
assert ranks == sorted(ranks), "not ranked by floor, then fit"
assert all(h["speed"]["tg128_tps"] >= d["min_tps"] for h in hw if tier(h) == 0), "a device below the floor ranked above it"
gpu = [h for h in hw if h["fits"] == "GPU"]
assert all(a["speed"]["tg128_tps"] >= b["speed"]["tg128_tps"] for a, b in zip(gpu, gpu[1:])), "not ranked by speed"
assert not any(h["device"] == "rtx-4090" for h in gpu), "a 24 GB card cannot hold 70B Q4_K_M"
PY
# a device whose chip generation no published result measures (Pascal, the P40): the error of a whole family held
# out is what to expect of it, and the text says so; a measured generation keeps the one-source line
t 0 "plan a generation nobody measured" "$bin" plan llama-2-7b --hw p40
grep -qE "^accuracy  no published result measures its chip generation \(nvidia-pascal\); held out one device family at a time, CUDA predictions were off by a median [0-9]+% on decode \([0-9]+ published results\) and [0-9]+% on prefill \([0-9]+\)$" "$out" ||
    { echo "FAIL: an unmeasured generation's accuracy line"; grep '^accuracy' "$out"; fail=1; }
t 0 "plan a measured generation" "$bin" plan llama-2-7b --hw rtx-3090
grep -q "^accuracy  held out one source at a time, CUDA predictions" "$out" || { echo "FAIL: a measured generation's line"; fail=1; }
# a model of experts: the error of such models where the backend has some, and a word where it has none
t 0 "plan a model of experts" "$bin" plan gpt-oss-20b --hw rtx-3090
grep -qE "^accuracy  held out one source at a time, CUDA predictions of models of experts were off by a median [0-9]+% on decode \([0-9]+ published results\) and [0-9]+% on prefill \([0-9]+\)$" "$out" ||
    { echo "FAIL: a model of experts' accuracy line"; grep '^accuracy' "$out"; fail=1; }
# a long context: the error of the results that deep, where there are some, and a word where there are none
t 0 "plan a long context" "$bin" plan llama-3.1-8b --hw rtx-4090 --ctx 32768
grep -qE "^accuracy  held out one source at a time, CUDA predictions were off by a median [0-9]+% on decode \([0-9]+ published results\) and [0-9]+% on prefill \([0-9]+\); at 16k tokens of context or more, [0-9]+% on decode \([0-9]+ published results\) and [0-9]+% on prefill \([0-9]+\)$" "$out" ||
    { echo "FAIL: a long context's accuracy line"; grep '^accuracy' "$out"; fail=1; }
t 0 "plan a long context, SYCL" "$bin" plan llama-3.1-8b --hw arc-b580 --ctx 32768
grep -qE "^accuracy  held out one source at a time, SYCL predictions .*; no published result measures SYCL at 16k tokens of context or more$" "$out" ||
    { echo "FAIL: a long context nobody measured not said"; grep '^accuracy' "$out"; fail=1; }
t 0 "plan a model of experts, SYCL" "$bin" plan gpt-oss-20b --hw arc-b580 --backend sycl
grep -qE "^accuracy  no published result measures a model of experts on SYCL; held out one source at a time, SYCL predictions were off" "$out" ||
    { echo "FAIL: an unmeasured model of experts not said"; grep '^accuracy' "$out"; fail=1; }
# --bench: llama-bench's tests predicted and written as llama-bench writes them
t 0 "plan --bench md" "$bin" plan llama-3.1-8b --hw rtx-4090 --bench "pp512,tg128,pp2048@d32768,tg32@d4096,pp512+tg128"
grep -q "^| model " "$out" && grep -q "pp2048 @ d32768" "$out" && grep -q "pp512+tg128" "$out" \
    || { echo "FAIL: --bench table is not llama-bench's"; fail=1; }
t 0 "plan --bench json" "$bin" plan llama-3.1-8b --hw rtx-4090 --bench "pp512,tg128,tg128@d16384,pp512@d16384" -o json
python3 - "$out" <<'PY' || fail=1
import json, sys
r = json.load(open(sys.argv[1]))
assert [(x["n_prompt"], x["n_gen"], x["n_depth"]) for x in r] == [(512, 0, 0), (0, 128, 0), (0, 128, 16384), (512, 0, 16384)], r
assert all(x["avg_ts"] > 0 and x["backends"] == "CUDA" for x in r), r
# the flags llama-bench would run this placement with, at its defaults: -ngl -1 (every layer), -fa auto (-1)
assert all(x["n_gpu_layers"] == -1 and x["flash_attn"] == -1 and x["n_ubatch"] == 512 for x in r), r
assert r[2]["avg_ts"] < r[1]["avg_ts"] and r[3]["avg_ts"] < r[0]["avg_ts"], "speed must fall with depth"
# decode cannot beat the card's bandwidth over the bytes a token reads
assert r[1]["avg_ts"] < 1008e9 / r[1]["model_size"], r[1]
PY
# off llama-bench's defaults: the -ngl of a split, -fa 0 and -ub as columns of its table; a Mac's
# backends as llama-bench names them ("MTL,BLAS", whose table shows threads, not ngl)
t 0 "plan --bench, a split" "$bin" plan llama-3.1-70b --hw rtx-3090,cpu-ddr5-6400-2ch --ngl 40 --bench tg128 -o json
python3 -c 'import json,sys; r = json.load(open(sys.argv[1])); assert r[0]["n_gpu_layers"] == 40, r' "$out" ||
    { echo "FAIL: a split's -ngl not recorded"; fail=1; }
t 0 "plan --bench -fa off -ub 1024" "$bin" plan llama-3.1-8b --hw rtx-4090 --fa off --ubatch 1024 --bench pp512
grep -q "| backend    | ngl | n_ubatch |  fa |            test |" "$out" && grep -q "| CUDA       |  -1 |     1024 |   0 |" "$out" ||
    { echo "FAIL: -fa 0 and -ub 1024 not in llama-bench's columns"; cat "$out"; fail=1; }
# --llama-build: a build before July 2024 (PLAN_CURRENT_ERA_BUILD) prefills at its era's rate where published
# results measured such builds (CUDA), and one before -fa auto runs without flash attention unless told: its
# llama-bench recorded false, its llama-server took -fa bare; a current build is the default's plan, exactly
t 0 "plan --llama-build current" "$bin" plan llama-3.1-8b --hw rtx-4090 --bench pp512,tg128 -o json --llama-build b7000
cp "$out" "$tmp/build_now.json"
t 0 "plan --llama-build old" "$bin" plan llama-3.1-8b --hw rtx-4090 --bench pp512,tg128 -o json --llama-build b3000
cp "$out" "$tmp/build_old.json"
t 0 "plan --bench, no build" "$bin" plan llama-3.1-8b --hw rtx-4090 --bench pp512,tg128 -o json
python3 - "$tmp/build_now.json" "$tmp/build_old.json" "$out" <<'PY' || { echo "FAIL: --llama-build"; fail=1; }
import json, sys
now, old, default = (json.load(open(f)) for f in sys.argv[1:])
assert [x["avg_ts"] for x in now] == [x["avg_ts"] for x in default], (now, default)
assert now[0]["build_number"] == 7000 and default[0]["build_number"] is None and old[0]["build_number"] == 3000
assert all(x["flash_attn"] == 0 for x in old) and all(x["flash_attn"] == -1 for x in now), old
# CUDA's int8 tensor-core MMQ came in June 2024: the old build's prefill is well below; decode barely moves
assert old[0]["avg_ts"] < 0.8 * now[0]["avg_ts"], (old[0], now[0])
assert 0.9 * now[1]["avg_ts"] < old[1]["avg_ts"] <= now[1]["avg_ts"], (old[1], now[1])
PY
t 0 "plan --llama-build old, text" "$bin" plan llama-3.1-8b --hw rtx-4090 --llama-build 3000 --fa on
grep -q "llama.cpp b3000 predates July 2024 (b3275): CUDA prefilled quantized weights at 0.[0-9]*x" "$out" &&
    grep -q "ctv f16 -fa\( \|$\)" "$out" && ! grep -q -- "-fa on" "$out" ||
    { echo "FAIL: an old build's note or -fa flag"; cat "$out"; fail=1; }
# its accuracy line quotes the held-out error of the published results of builds that old
grep -qE "^accuracy  on builds before July 2024, held out one source at a time, CUDA predictions were off by a median [0-9]+% on decode \(41 published results\) and [0-9]+% on prefill \(48\)$" "$out" ||
    { echo "FAIL: an old build's accuracy line"; grep '^accuracy' "$out"; fail=1; }
t 0 "plan --llama-build, SYCL" "$bin" plan llama-3.1-8b --hw arc-b580 --llama-build 3000
grep -q "no published result measures SYCL on a build that old: predicted as a current build" "$out" &&
    grep -q "^accuracy  held out one source at a time, SYCL predictions" "$out" && ! grep -q -- " -fa" "$out" ||
    { echo "FAIL: an unmeasured era not said"; cat "$out"; fail=1; }
# the ranking says whose speeds it ranks, and ranks an old build's
t 0 "plan --hw all --llama-build" "$bin" plan llama-3.1-8b --hw all --llama-build 3000 --json
cp "$out" "$tmp/rank_old.json"
t 0 "plan --hw all" "$bin" plan llama-3.1-8b --hw all --json
python3 - "$tmp/rank_old.json" "$out" <<'PY' || { echo "FAIL: --hw all --llama-build"; fail=1; }
import json, sys
old, now = (json.load(open(f)) for f in sys.argv[1:])
assert old["build_era"] == "old" and old["llama_build"] == 3000 and now["build_era"] == "current" and now["llama_build"] is None
pp = lambda r: {x["device"]: x["speed"]["pp512_tps"] for x in r["hardware"] if x["speed"]}
assert pp(old)["rtx-4090"] < 0.8 * pp(now)["rtx-4090"], (pp(old)["rtx-4090"], pp(now)["rtx-4090"])
PY
t 0 "plan --hw all --llama-build, text" "$bin" plan llama-3.1-8b --hw all --llama-build b3000
grep -q "^speeds of llama.cpp b3000, a build before July 2024 (b3275)" "$out" || { echo "FAIL: the ranking's build line"; fail=1; }
t 2 "plan --llama-build bad" "$bin" plan llama-3.1-8b --hw rtx-4090 --llama-build b3x
grep -q "'b3x' is not a llama.cpp build number" "$errf" || { echo "FAIL: bad build not named"; fail=1; }
t 2 "plan --llama-build 0" "$bin" plan llama-3.1-8b --hw rtx-4090 --llama-build 0
t 0 "plan --bench -ts" "$bin" plan llama-3.1-70b --hw rtx-3090,rtx-3090 --tensor-split 41,39 --bench pp512
grep -q "| ngl | ts           |            test |" "$out" && grep -q "|  -1 | 41.00/39.00  |           pp512 |" "$out" ||
    { echo "FAIL: -ts not in llama-bench's ts column"; cat "$out"; fail=1; }
t 0 "plan --bench on a Mac" "$bin" plan llama-3.1-8b --hw apple-m2-ultra --bench pp512,tg128
grep -q "| MTL,BLAS   |       - |           pp512 |" "$out" && ! grep -q " ngl " "$out" ||
    { echo "FAIL: a Mac's rows not as llama-bench's"; cat "$out"; fail=1; }
# a catalog CPU platform's rows say the threads its speeds assume: as many cores as its FP32 peak holds
t 0 "plan --bench on a CPU platform" "$bin" plan llama-3.1-8b --hw amd-epyc-9005 --bench tg128
grep -q "| CPU        |     108 |           tg128 |" "$out" || { echo "FAIL: a CPU platform's threads"; cat "$out"; fail=1; }
# each test at the context llama-bench gives it (n_prompt + n_gen + n_depth), not --ctx: on two 24 GB
# cards 70B Q4_K_M runs pp512 but not pp512 at depth 65536 (its KV cache alone is ~20 GiB): no record
# for that one (the records stay what calibrate and report read), a line on stderr; and tg128 runs even
# where --ctx 131072 would not fit
t 0 "plan --bench beyond the memory" "$bin" plan llama-3.1-70b --hw rtx-3090,rtx-3090 --bench "pp512,pp512@d65536" -o json
python3 -c 'import json,sys; r = json.load(open(sys.argv[1])); assert len(r) == 1 and r[0]["avg_ts"] > 0 and r[0]["n_depth"] == 0, r' "$out" ||
    { echo "FAIL: a test beyond the memory has a speed"; fail=1; }
grep -q "pp512 @ d65536 does not fit at the context llama-bench gives it, 66048 tokens" "$errf" || { echo "FAIL: no note for the test that does not fit"; cat "$errf"; fail=1; }
t 0 "plan --bench where --ctx does not fit" "$bin" plan llama-3.1-70b --hw rtx-3090,rtx-3090 --ctx 131072 --bench tg128 -o json
python3 -c 'import json,sys; r = json.load(open(sys.argv[1])); assert r[0]["avg_ts"] > 5, r' "$out" || { echo "FAIL: tg128 not predicted"; fail=1; }
t 2 "plan --bench where no test fits" "$bin" plan llama-3.1-70b --hw rtx-3090,rtx-3090 --bench "pp512@d65536"
grep -q "no --bench test fits: llama-bench gives pp512 @ d65536 a context of 66048 tokens" "$errf" || { echo "FAIL: no reason"; cat "$errf"; fail=1; }
t 2 "plan --bench bad test" "$bin" plan llama-3.1-8b --hw rtx-4090 --bench "pp512,tg"
grep -q "'tg' is not a llama-bench test" "$errf" || { echo "FAIL: bad --bench test not named"; fail=1; }
t 2 "plan --bench empty" "$bin" plan llama-3.1-8b --hw rtx-4090 --bench "pp512,,tg128"
# --backend: the GPUs run the named backend; cpu keeps every layer off them
t 0 "plan --backend vulkan" "$bin" plan llama-2-7b --hw rx-7900-xtx --backend vulkan --bench pp512,tg128 -o json
python3 -c "import json,sys; r=json.load(open(sys.argv[1])); assert all(x['backends']=='Vulkan' for x in r), r" "$out" || fail=1
v_tg=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[1]['avg_ts'])" "$out")
t 0 "plan default backend" "$bin" plan llama-2-7b --hw rx-7900-xtx --bench pp512,tg128 -o json
python3 -c "import json,sys; r=json.load(open(sys.argv[1])); assert all(x['backends']=='ROCm' for x in r), r" "$out" || fail=1
t 0 "plan --backend cpu" "$bin" plan llama-2-7b --hw rx-7900-xtx,cpu-ddr5-6400-2ch --backend cpu --bench tg128 -o json
python3 -c "import json,sys; r=json.load(open(sys.argv[1])); assert r[0]['n_gpu_layers']==0 and r[0]['backends']=='CPU', r" "$out" || fail=1
t 0 "catalog default backend" "$bin" plan llama-2-7b --hw arc-b580 --bench tg128 -o json
python3 -c "import json,sys; r=json.load(open(sys.argv[1])); assert r[0]['backends']=='SYCL', r" "$out" || fail=1
t 0 "catalog default backend, Strix Halo" "$bin" plan llama-2-7b --hw ryzen-ai-max-plus-395 --bench tg128 -o json
python3 -c "import json,sys; r=json.load(open(sys.argv[1])); assert r[0]['backends']=='Vulkan', r" "$out" || fail=1
t 0 "plan --backend sycl" "$bin" plan llama-2-7b --hw arc-b580 --backend sycl --bench pp512,tg128 -o json
python3 -c "import json,sys; r=json.load(open(sys.argv[1])); assert all(x['backends']=='SYCL' and x['avg_ts']>0 for x in r), r" "$out" || fail=1
# cards the corpus measured are catalog devices a buyer can plan for, with their own backend and capacity options
t 0 "plan a card the corpus measured" "$bin" plan llama-3.1-8b --hw rx-9060-xt:8 --bench tg128 -o json
python3 -c "import json,sys; r=json.load(open(sys.argv[1])); assert r[0]['backends']=='ROCm' and 0 < r[0]['avg_ts'] < 320e9/r[0]['model_size'], r" "$out" || fail=1
t 0 "plan an Arc A750" "$bin" plan llama-2-7b --hw arc-a750 --bench tg128 -o json
python3 -c "import json,sys; r=json.load(open(sys.argv[1])); assert r[0]['backends']=='SYCL', r" "$out" || fail=1
t 2 "plan --backend bad" "$bin" plan llama-2-7b --hw rx-7900-xtx --backend opencl
# a backend the device cannot run is an impossible flag: exit 2, naming the device and what it does run
t 2 "plan --backend metal on a Radeon" "$bin" plan llama-2-7b --hw rx-7900-xtx --backend metal --bench tg128
grep -q "cannot run Metal on the Radeon RX 7900 XTX; it runs ROCm, Vulkan or SYCL" "$errf" ||
    { echo "FAIL: Metal on a Radeon not explained"; cat "$errf"; fail=1; }
[ ! -s "$out" ] || { echo "FAIL: Metal on a Radeon printed a plan"; fail=1; }
t 2 "plan --backend cuda on a Mac" "$bin" plan llama-2-7b --hw apple-m1-max --backend cuda
grep -q "cannot run CUDA on the Apple M1 Max; it runs Metal or Vulkan" "$errf" || { echo "FAIL: CUDA on a Mac"; cat "$errf"; fail=1; }
t 2 "plan --backend rocm on an Arc" "$bin" plan llama-2-7b --hw arc-b580 --backend rocm
t 2 "plan --backend vulkan without a GPU" "$bin" plan llama-2-7b --hw cpu-ddr5-6400-2ch --backend vulkan
grep -q "no GPU to run it on" "$errf" || { echo "FAIL: a GPU backend without a GPU"; cat "$errf"; fail=1; }
t 0 "plan --backend vulkan on a Mac" "$bin" plan llama-2-7b --hw apple-m1-max --backend vulkan --bench tg128 -o json
t 0 "plan --backend cpu without a GPU" "$bin" plan llama-2-7b --hw cpu-ddr5-6400-2ch --backend cpu --bench tg128 -o json
# --hw all --backend: the devices that can run it, on it
t 0 "rank --backend metal" "$bin" plan llama-2-7b --hw all --backend metal --json
python3 - "$out" <<'PY' || fail=1
import json, sys
h = json.load(open(sys.argv[1]))["hardware"]
assert len(h) >= 10 and all(x["backend"] == "Metal" and x["device"].startswith("apple-") for x in h), h
PY
t 0 "rank --backend cpu" "$bin" plan llama-2-7b --hw all --backend cpu --json
python3 - "$out" <<'PY' || fail=1
import json, sys
h = json.load(open(sys.argv[1]))["hardware"]
assert len(h) >= 5 and all(x["backend"] == "CPU" and x["fits"] == "CPU" for x in h), h
# ranked at llama.cpp's default threads, as its command runs; a server's fewer decode threads beside them
t = {x["device"]: x["speed"]["decode_threads"] for x in h}
assert t["amd-epyc-9005"]["tg128_tps"] > 1.1 * next(x for x in h if x["device"] == "amd-epyc-9005")["speed"]["tg128_tps"], t
PY
t 0 "rank --backend cpu, text" "$bin" plan llama-2-7b --hw all --backend cpu
grep -Eq "^threads: llama.cpp's default of a thread per core meets at a barrier per graph node; fewer decode threads would decode tg128 faster on .*amd-epyc-9005 \([0-9.]+ t/s with -t [0-9]+\)" "$out" ||
    { echo "FAIL: rank without the threads line"; cat "$out"; fail=1; }
t 0 "rank, each device's own backend" "$bin" plan llama-2-7b --hw all --json
python3 - "$out" <<'PY' || fail=1
import json, sys
h = json.load(open(sys.argv[1]))["hardware"]
b = {x["device"]: x["backend"] for x in h}
assert b["rtx-4090"] == "CUDA" and b["rx-7900-xtx"] == "ROCm" and b["apple-m1-max"] == "Metal", b
# each fitting row carries its own set's held-out error: the ROCm card ROCm's, the CPU platforms the datasheet CPU's
acc = {x["device"]: x["speed_accuracy"] for x in h}
assert acc["rx-7900-xtx"]["set"] == "ROCm" and acc["amd-epyc-9005"]["set"] == "CPU-datasheet", acc
assert all((x["speed_accuracy"] is None) == (x["fits"] == "does not fit") for x in h)
PY
t 0 "rank, text" "$bin" plan llama-2-7b --hw all
grep -q "^accuracy: held out one source at a time, the median error on decode / prefill was CUDA " "$out" ||
    { echo "FAIL: no accuracy line under the ranking"; tail -3 "$out"; fail=1; }
t 0 "rank a model of experts, text" "$bin" plan gpt-oss-20b --hw all
grep -qE "^accuracy: held out one source at a time, the median error on decode / prefill of models of experts was CUDA [0-9]+% / [0-9]+%,.* SYCL \(none measured; all models\) [0-9]+% / [0-9]+%" "$out" ||
    { echo "FAIL: a model of experts' accuracy line under the ranking"; grep '^accuracy' "$out"; fail=1; }
# a chip generation nobody measured is marked, and its family-held-out error given; a measured one is not marked
grep -q "^ *[0-9]* p40 ~ " "$out" && grep -q "^ *[0-9]* rtx-4090  " "$out" && grep -q "^~: no published result measures" "$out" &&
    grep -q "; one device family held out CUDA [0-9]*% / [0-9]*%" "$out" ||
    { echo "FAIL: unmeasured generations not marked in the ranking"; fail=1; }
t 0 "hw, measured generations" "$bin" hw --json
python3 -c 'import json,sys; d = {x["id"]: x for x in json.load(open(sys.argv[1]))}; assert not d["p40"]["family_measured"] and d["p40"]["family"] == "nvidia-pascal" and d["rtx-4090"]["family_measured"] and d["apple-m1-7c"]["family_measured"], [d["p40"], d["rtx-4090"]]' "$out" ||
    { echo "FAIL: hw --json family_measured"; fail=1; }
t 0 "hw, text" "$bin" hw
grep -q "^p40 ~ " "$out" && grep -q "^rtx-4090  " "$out" || { echo "FAIL: hw does not mark unmeasured generations"; fail=1; }
# A host of two NUMA nodes (planner/numa.c): the probe's all-core read is the
# nodes' sum, which llama.cpp's page-cache weights never see. A model that
# fits one node is bound to it (numactl, that node's threads) and decodes at
# that node's read; one that does not is spread (--numa distribute) at one
# node's read too. Same machine with one node: the sum, and no binding.
python3 - "$src/fuzz/seeds/profile/cpu-quick.json" "$tmp/numa2.json" "$tmp/numa1.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
p.update(n_packages=2, n_cores=32, n_threads=64, quick=False, ram_total=256 << 30, ram_available=250 << 30,
         numa_mem_bytes=[128 << 30, 128 << 30], numa_read_gbs=[100.0, 98.0], numa_cores=[16, 16], read_gbs=198.0,
         sgemm_gflops_1t=100.0, sgemm_gflops_all=3200.0)
json.dump(p, open(sys.argv[2], "w"))
p.update(numa_mem_bytes=[256 << 30], numa_read_gbs=[0.0], numa_cores=[32])
json.dump(p, open(sys.argv[3], "w"))
PY
for hw in numa2 numa1; do
    for m in llama-3.1-8b llama-3.1-405b; do
        t 0 "plan $m on $hw" "$bin" plan $m --hw "$tmp/$hw.json" --json
        cp "$out" "$tmp/$m.$hw.json"
    done
done
python3 - "$tmp" <<'PY' || fail=1
import json, sys
d = lambda m, hw: json.load(open(f"{sys.argv[1]}/{m}.{hw}.json"))
small, small1, big, big1 = d("llama-3.1-8b", "numa2"), d("llama-3.1-8b", "numa1"), d("llama-3.1-405b", "numa2"), d("llama-3.1-405b", "numa1")
cmd = lambda r: r["llama_cpp"]
assert small["speed"]["numa"] == "pin" and cmd(small).startswith("numactl --cpunodebind=0 --membind=0 llama-server "), cmd(small)
assert " -t 16" in cmd(small) and "--numa" not in cmd(small), cmd(small)
assert big["speed"]["numa"] == "spread" and cmd(big).startswith("llama-server ") and "--numa distribute" in cmd(big), cmd(big)
assert small1["speed"]["numa"] == big1["speed"]["numa"] == "one" and "numa" not in cmd(small1) + cmd(big1)
# memory-bound decode at one node's 100 GB/s instead of the sum's 198: close to half
for two, one in ((small, small1), (big, big1)):
    r = two["speed"]["tg128_tps"] / one["speed"]["tg128_tps"]
    assert 0.45 < r < 0.6, r
# bound to 16 of 32 cores, prefill has half the compute; spread keeps every core's
assert small["speed"]["pp512_tps"] < 0.6 * small1["speed"]["pp512_tps"], (small["speed"], small1["speed"])
assert big["speed"]["pp512_tps"] > 0.9 * big1["speed"]["pp512_tps"], (big["speed"], big1["speed"])
# the plan says so, and the recommendation's command is bound too
assert any(n.startswith("NUMA: 2 nodes; llama.cpp bound to node 0") for n in small["notes"]), small["notes"]
assert small["recommendation"]["llama_cpp"].startswith("numactl --cpunodebind=0 --membind=0 "), small["recommendation"]
PY
# an rpc-server whose CPU serves a cluster is bound the same way when its part
# fits one node (rpc-server has no --numa, so one that does not runs as it is),
# and it reads at one node's bandwidth either way
for m in llama-3.1-70b llama-3.1-405b; do
    t 0 "cluster $m, a two-node rpc host" "$bin" plan $m --hw "a=rtx-4090;b=$tmp/numa2.json" --json
    cp "$out" "$tmp/cl.$m.json"
done
python3 - "$tmp" <<'PY' || fail=1
import json, sys
d = lambda m: json.load(open(f"{sys.argv[1]}/cl.{m}.json"))
small, big = d("llama-3.1-70b"), d("llama-3.1-405b")
b = small["commands"]["b"]
assert b.startswith("numactl --cpunodebind=0 --membind=0 ggml-rpc-server ") and b.endswith(" -t 16"), b
assert big["commands"]["b"].startswith("ggml-rpc-server ") and " -t " not in big["commands"]["b"], big["commands"]
assert not small["commands"]["a"].startswith("numactl"), small["commands"]["a"]
assert small["numa"] == {"a": "one", "b": "pin"} and big["numa"] == {"a": "one", "b": "spread"}, (small["numa"], big["numa"])
PY
t 0 "cluster llama-3.1-405b, text" "$bin" plan llama-3.1-405b --hw "a=rtx-4090;b=$tmp/numa2.json"
grep -q "^  (on b: NUMA: the server's part (.*) exceeds node 0's free memory (.*): rpc-server runs unbound (it has no --numa), decode at one node's read" "$out" ||
    { echo "FAIL: the rpc host's NUMA note"; tail -3 "$out"; fail=1; }
t 0 "cluster, catalog sockets as the rpc host" "$bin" plan llama-3.1-8b --hw "a=rtx-4090;b=amd-epyc-9005:192,amd-epyc-9005:192"
grep -q "^  (on b: NUMA: 2 sockets, rpc-server runs unbound (it has no --numa): decode at one socket's read" "$out" ||
    { echo "FAIL: the rpc host's socket note"; tail -3 "$out"; fail=1; }
# a server CPU's default of a thread per core pays a barrier hand-over per thread at every graph node:
# fewer decode threads are named, and decode faster; a desktop's eight are not worth cutting
t 0 "plan on a server CPU, threads" "$bin" plan qwen3-30b-a3b --hw amd-epyc-9005 --json
cp "$out" "$tmp/thr.server.json"
t 0 "plan on a server CPU, text" "$bin" plan qwen3-30b-a3b --hw amd-epyc-9005
grep -Eq "^threads   llama.cpp's [0-9]+ threads \(a thread per core\) meet at a barrier per graph node: with -t [0-9]+, and -tb at every core for prompts, tg128 would decode at [0-9.]+ t/s$" "$out" ||
    { echo "FAIL: no threads line"; cat "$out"; fail=1; }
t 0 "plan on a desktop CPU, threads" "$bin" plan llama-3.1-8b --hw cpu-ddr5-5600-2ch --json
cp "$out" "$tmp/thr.desktop.json"
python3 - "$tmp" <<'PY' || fail=1
import json, sys
server = json.load(open(f"{sys.argv[1]}/thr.server.json"))["speed"]
desk = json.load(open(f"{sys.argv[1]}/thr.desktop.json"))["speed"]
d = server["decode_threads"]
assert d and 1 <= d["threads"] < d["of"] and d["tg128_tps"] >= 1.1 * server["tg128_tps"], server
assert desk["decode_threads"] is None, desk
PY

# a probed host: fewer threads read what the probe's thread-scaling curve says that many read, so where one
# thread reads little, cutting threads costs more read than it saves at the barriers
python3 - "$src/fuzz/seeds/profile/cpu-quick.json" "$tmp" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
p.update(n_cores=64, n_threads=128, quick=False, ram_total=256 << 30, ram_available=250 << 30, read_gbs=200.0,
         sgemm_gflops_1t=100.0, sgemm_gflops_all=6400.0)
for name, one in (("fast1t", 20.0), ("slow1t", 5.0)):
    p["scaling"] = [{"threads": 1, "gbs": one}, {"threads": 64, "gbs": 200.0}]
    json.dump(p, open(f"{sys.argv[2]}/{name}.json", "w"))
PY
for name in fast1t slow1t; do
    t 0 "plan on a 64-core profile, $name" "$bin" plan llama-3.1-8b --hw "$tmp/$name.json" --json
    cp "$out" "$tmp/thr.$name.json"
done
python3 - "$tmp" <<'PY' || fail=1
import json, sys
d = lambda n: json.load(open(f"{sys.argv[1]}/thr.{n}.json"))["speed"]
fast, slow = d("fast1t"), d("slow1t")
assert fast["decode_threads"] and fast["decode_threads"]["of"] == 64 and fast["decode_threads"]["threads"] < 64, fast
assert slow["decode_threads"] is None or slow["decode_threads"]["threads"] * 5.0 >= 0.9 * 200, slow
PY

# a second catalog socket adds memory and prefill, not decode speed: the catalog has no
# core count to give -t, so two sockets are spread, at one socket's read
for hw in amd-epyc-9005:192 amd-epyc-9005:192,amd-epyc-9005:192; do
    t 0 "plan on $hw" "$bin" plan qwen3-30b-a3b --hw "$hw" --quant Q8_0 --json
    cp "$out" "$tmp/sock.$hw.json"
done
t 0 "plan deepseek-r1 on two sockets" "$bin" plan deepseek-r1 --hw amd-epyc-9005:192,amd-epyc-9005:192 --quant Q4_K_M --json
cp "$out" "$tmp/sock.r1.json"
t 2 "two different CPU platforms" "$bin" plan qwen3-30b-a3b --hw amd-epyc-9005,amd-epyc-9004
grep -q "two CPU platforms (amd-epyc-9005, amd-epyc-9004); a second socket is the same platform again" "$errf" || { echo "FAIL: mixed sockets not explained"; cat "$errf"; fail=1; }
python3 - "$tmp" <<'PY' || fail=1
import json, sys
d = lambda hw: json.load(open(f"{sys.argv[1]}/sock.{hw}.json"))
one, two, r1 = d("amd-epyc-9005:192"), d("amd-epyc-9005:192,amd-epyc-9005:192"), d("r1")
assert one["speed"]["numa"] == "one" and two["speed"]["numa"] == "spread", (one["speed"], two["speed"])
assert two["llama_cpp"].startswith("llama-server ") and two["llama_cpp"].endswith(" --numa distribute"), two["llama_cpp"]
# the same read, and twice the threads meeting at every barrier of a token: spread over both sockets,
# decode is slower than on one (llama.cpp #1556: 32 threads on two sockets 1296 ms a token, 16 1114 ms)
assert 0.3 < two["speed"]["tg128_tps"] / one["speed"]["tg128_tps"] < 1, (two["speed"], one["speed"])
assert two["speed"]["pp512_tps"] > 1.5 * one["speed"]["pp512_tps"], (two["speed"], one["speed"])
assert r1["speed"]["numa"] == "spread" and "--numa distribute" in r1["llama_cpp"], r1["llama_cpp"]
# one socket's read bounds it: DeepSeek-R1's ~37B active Q4_K_M weights per token at 576 GB/s x 0.8
assert r1["speed"]["tg128_tps"] < 576e9 * 0.8 / (37e9 * 4.5 / 8), r1["speed"]
PY
exit $fail
