#!/usr/bin/env bash
# fitcheck report from the command line: atomic output, well-formed page,
# hostile runs escaped, bad input refused with exit 2; table outputs parse.
set -u
bin="${FITCHECK_BIN:?}"
src="${FITCHECK_SRC:?}"
bench_bin="${1:?usage: test_report_cli.sh TEST_BENCH TEST_TABLE}"
table_bin="${2:?usage: test_report_cli.sh TEST_BENCH TEST_TABLE}"
dir=$(mktemp -d /tmp/fc_report_cli.XXXXXX)
trap 'rm -rf "$dir"' EXIT
# A private cache: the report saves a quick probe when there is no profile.
export XDG_CACHE_HOME="$dir/cache"
fail=0
expect() { # status description command...
    local want=$1 what=$2; shift 2
    "$@" >"$dir/out" 2>"$dir/err"
    local got=$?
    [ "$got" -eq "$want" ] || { echo "FAIL: $what: exit $got, expected $want"; cat "$dir/err"; fail=1; }
}

# -o FORMAT on probe: a quick probe into the private cache (the reports below use it),
# then the saved one shown.
expect 0 "probe --quick -o csv" "$bin" probe --quick --no-gpu --force -o csv
cp "$dir/out" "$dir/probe.csv"
expect 0 "probe --show -o jsonl" "$bin" probe --show -o jsonl
cp "$dir/out" "$dir/probe.jsonl"
python3 - "$dir" <<'PY' || fail=1
import csv, json, sys
d = sys.argv[1]
rows = list(csv.DictReader(open(f"{d}/probe.csv", newline="")))
tests = {r["test"]: r for r in rows}
assert int(tests["RAM total"]["value"]) > 1 << 28 and tests["RAM total"]["unit"] == "bytes", rows[:3]
assert float(tests["DRAM read"]["value"]) > 0.1 and tests["DRAM read"]["unit"] == "GB/s", tests["DRAM read"]
lines = [json.loads(l) for l in open(f"{d}/probe.jsonl")]
assert len(lines) == len(rows) and lines[0]["test"] == "RAM total", lines[:2]
PY
expect 0 "report --help" "$bin" report --help
grep -q -- "--runs" "$dir/out" || { echo "FAIL: help does not describe --runs"; fail=1; }
expect 2 "unknown flag" "$bin" report --bogus
expect 2 "missing runs file" "$bin" report -o "$dir/r.html" --runs /nonexistent/runs.jsonl
grep -q "/nonexistent/runs.jsonl" "$dir/err" || { echo "FAIL: error does not name the file"; fail=1; }
[ -e "$dir/r.html" ] && { echo "FAIL: a failed report left a file"; fail=1; }

printf '{"n_prompt":512,"n_gen":0,"avg_ts":"fast"}\n' >"$dir/bad.jsonl"
expect 2 "runs with a wrong type" "$bin" report -o "$dir/r.html" --runs "$dir/bad.jsonl"
grep -q "avg_ts" "$dir/err" || { echo "FAIL: error does not name the field: $(cat "$dir/err")"; fail=1; }

cat >"$dir/runs.jsonl" <<'JSONL'
{"model_type":"<script>alert(1)</script>","model_filename":"\"><img src=x onerror=alert(1)>","backends":"CPU","n_threads":2,"n_prompt":512,"n_gen":0,"avg_ts":120.5,"stddev_ts":1.5,"predicted_ts":110}
{"model_type":"<script>alert(1)</script>","backends":"CPU","n_threads":2,"n_prompt":0,"n_gen":128,"n_depth":1024,"avg_ts":20.25,"stddev_ts":0.5}
JSONL
expect 0 "report with hostile runs" "$bin" report -o "$dir/r.html" --runs "$dir/runs.jsonl" --title '<b>title</b>'
[ -s "$dir/r.html" ] || { echo "FAIL: no report written"; fail=1; }
ls "$dir" | grep -q "tmp\|lock" && { echo "FAIL: temp files left: $(ls "$dir")"; fail=1; }
grep -qi "<script" "$dir/r.html" && { echo "FAIL: <script> reached the page"; fail=1; }
grep -q "&lt;script&gt;alert(1)&lt;/script&gt;" "$dir/r.html" || { echo "FAIL: model name not shown escaped"; fail=1; }
python3 "$src/tests/reports/check_html.py" "$dir/r.html" || fail=1

# Table outputs parse as what they claim to be.
{ "$bench_bin" "$dir" && "$table_bin" "$dir"; } >/dev/null || { echo "FAIL: could not write the table outputs"; fail=1; }
python3 - "$dir" <<'PY' || fail=1
import csv, json, sys
d = sys.argv[1]
rows = list(csv.DictReader(open(f"{d}/bench.csv", newline="")))
assert len(rows) == 2 and rows[0]["model_type"] == "qwen2 7B Q4_K - Medium", rows
assert float(rows[0]["avg_ts"]) > 7000 and rows[1]["n_gen"] == "128", rows
doc = json.load(open(f"{d}/bench.json"))
assert isinstance(doc, list) and len(doc) == 2 and doc[0]["samples_ts"][0] == 6863.1, doc[0]
lines = [json.loads(l) for l in open(f"{d}/bench.jsonl")]
assert [l["n_depth"] for l in lines] == [0, 512], lines
md = open(f"{d}/bench.md").read().splitlines()
assert md[0].startswith("| model") and md[1].startswith("| ---") and len({len(l) for l in md}) == 1, md
t = list(csv.reader(open(f"{d}/table.csv", newline="")))
# CSV is read on terminals too: the escape is shown, not sent (common/fc.h); -o json keeps it raw.
assert t[2][0] == 'evil|<script>alert(1)</script>\\x1b[31m', t
PY
# -o FORMAT on plan (a catalog model: no download, no probe needed).
for f in md csv json jsonl; do
    expect 0 "plan -o $f" "$bin" plan qwen3-8b --hw rtx-4090 -o "$f"
    cp "$dir/out" "$dir/plan.$f"
done
expect 2 "plan -o xml" "$bin" plan qwen3-8b -o xml
python3 - "$dir" <<'PY' || fail=1
import csv, json, sys
d = sys.argv[1]
rows = list(csv.DictReader(open(f"{d}/plan.csv", newline="")))
assert [r["backend"] for r in rows] == ["CUDA", "CPU"], rows
assert int(rows[0]["total_bytes"]) > int(rows[0]["weights_bytes"]) > 4 << 30, rows[0]
j = json.load(open(f"{d}/plan.json"))
assert j[0]["model_n_params"] > 8e9 and j[0]["verdict"] in ("fits", "tight"), j[0]
assert [json.loads(l)["device"] for l in open(f"{d}/plan.jsonl")] == [r["device"] for r in rows]
md = open(f"{d}/plan.md").read().splitlines()
assert len(md) == 4 and len({len(l) for l in md}) == 1, md
PY
# The report uses that profile: the machine section and no note about it missing.
expect 0 "report with a saved profile" "$bin" report -o "$dir/r2.html" qwen3-8b
grep -q "Processor, memory and storage" "$dir/r2.html" || { echo "FAIL: no machine table"; fail=1; }
grep -q "No machine profile" "$dir/r2.html" && { echo "FAIL: profile said missing"; fail=1; }
grep -q "Qwen3-8B: quantizations" "$dir/r2.html" || { echo "FAIL: no quantization table"; fail=1; }
python3 "$src/tests/reports/check_html.py" "$dir/r2.html" || fail=1
# The page carries the plan's notes as `plan` prints them: on a profile of two
# NUMA nodes, the binding the command does and why.
python3 - "$src/fuzz/seeds/profile/cpu-quick.json" "$dir/numa.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
p.update(n_cores=32, ram_total=256 << 30, ram_available=250 << 30, numa_mem_bytes=[128 << 30, 128 << 30],
         numa_read_gbs=[100.0, 98.0], numa_cores=[16, 16], read_gbs=198.0, sgemm_gflops_1t=100.0)
json.dump(p, open(sys.argv[2], "w"))
PY
expect 0 "report on a two-node profile" "$bin" report -o "$dir/r4.html" --profile "$dir/numa.json" qwen3-8b
"$bin" plan qwen3-8b --hw "$dir/numa.json" | sed -n 's/^note      \(NUMA: .*\)$/\1/p' >"$dir/numa_note"
[ -s "$dir/numa_note" ] && grep -qF "$(cat "$dir/numa_note")" "$dir/r4.html" ||
    { echo "FAIL: the page lacks the plan's NUMA note: $(cat "$dir/numa_note")"; fail=1; }
grep -q "numactl --cpunodebind=0 --membind=0 llama-server" "$dir/r4.html" || { echo "FAIL: the page's command is not bound"; fail=1; }
# run --bench in llama-bench's shapes, and the runs back into a report with
# predictions (the real small model; skipped without it).
model="${FITCHECK_MODELS:-}/SmolLM2-135M-Instruct.Q4_1.gguf"
if [ -f "$model" ]; then
    expect 0 "run --bench -o jsonl" "$bin" run "$model" --bench -p 16 -n 4 -r 1 -t 1 -o jsonl
    cp "$dir/out" "$dir/runs_real.jsonl"
    expect 0 "run --bench -o csv" "$bin" run "$model" --bench -p 16 -n 4 -r 1 -t 1 -o csv
    python3 - "$dir" <<'PY' || fail=1
import csv, json, sys
d = sys.argv[1]
rows = [json.loads(l) for l in open(f"{d}/runs_real.jsonl")]
assert [(r["n_prompt"], r["n_gen"]) for r in rows] == [(16, 0), (0, 4)], rows
# llama.cpp types a 30-layer llama "256M" (smoldocling), SmolLM2-135M too: model/bench_desc.c
assert rows[0]["engine"] == "fitcheck" and rows[0]["model_type"] == "llama 256M Q4_1" and rows[0]["avg_ts"] > 0, rows[0]
c = list(csv.DictReader(open(f"{d}/out", newline="")))
assert len(c) == 2 and c[1]["n_gen"] == "4" and float(c[1]["avg_ts"]) > 0, c
PY
    expect 0 "report with real runs" "$bin" report -o "$dir/r3.html" --runs "$dir/runs_real.jsonl" "$model"
    grep -q 'id="chart-accuracy"' "$dir/r3.html" || { echo "FAIL: no predicted-against-measured chart"; fail=1; }
    python3 "$src/tests/reports/check_html.py" "$dir/r3.html" || fail=1
fi
exit $fail
