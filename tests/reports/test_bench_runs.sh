#!/usr/bin/env bash
# One llama-bench reader (issue 13): `report --runs` and `calibrate` read the
# same records from llama-bench's json, jsonl and csv. Each check failed
# while report and calibrate had a parser each:
# - report refused llama-bench's boolean flash_attn (builds before -fa
#   on|off|auto wrote true/false);
# - calibrate refused a -pg record (n_prompt and n_gen both set) that report
#   accepted, so report's predictions (paired by index) were lost;
# - a prediction (`plan --bench` output) pairs with its measurement by test,
#   not by position: the files list them in opposite orders here.
set -u
bin="${FITCHECK_BIN:?}"
tmp=$(mktemp -d /tmp/fc_bench_runs.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME="$tmp/cache"
fail=0
t() { # expected-status description command...
    local want=$1 what=$2; shift 2
    "$@" >"$tmp/out" 2>"$tmp/err"
    local got=$?
    if [ "$got" -ne "$want" ]; then echo "FAIL: $what: exit $got, expected $want"; cat "$tmp/err"; fail=1; fi
}

# The machine the runs came from (docs/profile.md's fields; 2 cores, 50 GB/s).
echo '{"schema_version":1,"n_cores":2,"ram_total":8000000000,"read_gbs":50,"sgemm_gflops_1t":100}' >"$tmp/prof.json"

# Three tests as llama-bench b4732 writes them (-o json: flash_attn a bool):
# -p 512, -pg 512,128 and -n 128 -d 4096.
python3 - "$tmp" <<'PY'
import json, sys
d = sys.argv[1]
fields = ["build_commit", "build_number", "cpu_info", "gpu_info", "backends", "model_filename", "model_type",
          "model_size", "model_n_params", "n_batch", "n_ubatch", "n_threads", "cpu_mask", "cpu_strict", "poll",
          "type_k", "type_v", "n_gpu_layers", "split_mode", "main_gpu", "no_kv_offload", "flash_attn",
          "tensor_split", "use_mmap", "embeddings", "n_prompt", "n_gen", "n_depth", "test_time", "avg_ns",
          "stddev_ns", "avg_ts", "stddev_ts"]
base = dict(build_commit="b4732a1", build_number=4732, cpu_info="AMD EPYC", gpu_info="", backends="CPU",
            model_filename="/nonexistent/tinyllama-1.1b.gguf", model_type="llama 1B Q4_0", model_size=636174336,
            model_n_params=1100048384, n_batch=2048, n_ubatch=512, n_threads=2, cpu_mask="0x0", cpu_strict=False,
            poll=50, type_k="f16", type_v="f16", n_gpu_layers=99, split_mode="layer", main_gpu=0,
            no_kv_offload=False, flash_attn=True, tensor_split="0.00", use_mmap=True, embeddings=False,
            test_time="2026-11-30T10:00:00Z", stddev_ns=0, stddev_ts=0.5)
tests = [(512, 0, 0, 173.0), (512, 128, 0, 60.0), (0, 128, 4096, 40.0)]
rows = []
for p, g, dep, ts in tests:
    r = dict(base, n_prompt=p, n_gen=g, n_depth=dep, avg_ts=ts, avg_ns=int(1e9 * (p + g) / ts))
    rows.append({k: r[k] for k in fields})
json.dump([dict(r, samples_ns=[r["avg_ns"]], samples_ts=[r["avg_ts"]]) for r in rows], open(f"{d}/lb.json", "w"),
          indent=2)
with open(f"{d}/lb.jsonl", "w") as f:
    for r in rows:
        f.write(json.dumps(r) + "\n")
# -o csv: every value quoted, bools as 0/1 (llama-bench's csv_printer)
def cell(v):
    v = int(v) if isinstance(v, bool) else v
    return '"' + str(v).replace('"', '""') + '"'
with open(f"{d}/lb.csv", "w") as f:
    f.write(",".join(fields) + "\n")
    for r in rows:
        f.write(",".join(cell(r[k]) for k in fields) + "\n")
# Predictions as `plan --bench -o jsonl` writes them, in the opposite order:
# tg128@d4096 30 (-25%), pp512+tg128 90 (+50%), pp512 346 (+100%).
with open(f"{d}/pred.jsonl", "w") as f:
    for (p, g, dep, _), ts in zip(reversed(tests), [30.0, 90.0, 346.0]):
        f.write(json.dumps(dict(build_commit="fitcheck-prediction", engine="llama.cpp", backends="CPU",
                                model_type="llama 1B Q4_0", model_size=636174336, model_n_params=1100048384,
                                type_k="f16", type_v="f16", n_threads=2, n_prompt=p, n_gen=g, n_depth=dep,
                                avg_ts=ts)) + "\n")
PY

# calibrate reads every record of every shape, the -pg one included, the same way.
for f in lb.json lb.jsonl lb.csv; do
    t 0 "calibrate $f" "$bin" calibrate --dry-run --json --hw "$tmp/prof.json" "$tmp/$f"
    cp "$tmp/out" "$tmp/cal.$f.out"
done
python3 - "$tmp" <<'PY' || fail=1
import json, sys
d = sys.argv[1]
got = {f: json.load(open(f"{d}/cal.{f}.out")) for f in ["lb.json", "lb.jsonl", "lb.csv"]}
for f, r in got.items():
    labels = [m["label"] for m in r["measurements"]]
    assert len(labels) == 3, (f, labels)
    assert "pp512+tg128" in labels[1] and "tg128 @ d4096" in labels[2], (f, labels)
    assert all(m["before_tps"] > 0 for m in r["measurements"]), (f, r)
a = got["lb.json"]["measurements"]
for f in ["lb.jsonl", "lb.csv"]:
    assert got[f]["measurements"] == a, (f, got[f]["measurements"], a)
# -pg: llama-bench divides all tokens by both phases' time, so it lies between pp512 and tg128
assert a[2]["before_tps"] < a[1]["before_tps"] < a[0]["before_tps"], a
PY

# report reads the same file (boolean flash_attn) and predicts every record.
t 0 "report --runs lb.json" "$bin" report -o "$tmp/r.html" --profile "$tmp/prof.json" --runs "$tmp/lb.json" llama-3.2-1b
grep -q "No prediction" "$tmp/r.html" && { echo "FAIL: report lost predictions:"; grep -o "No prediction[^<]*" "$tmp/r.html"; fail=1; }
for want in "pp512+tg128" "tg128 @ d4096"; do
    grep -q "$want" "$tmp/r.html" || { echo "FAIL: report lacks test $want"; fail=1; }
done

# A prediction file beside the measurements: paired by test, whatever the order.
t 0 "report --runs lb.csv --runs pred.jsonl" "$bin" report -o "$tmp/p.html" --profile "$tmp/prof.json" \
    --runs "$tmp/lb.csv" --runs "$tmp/pred.jsonl" llama-3.2-1b
for want in "+100%" "+50%" "-25%"; do
    grep -qF -- "$want" "$tmp/p.html" || { echo "FAIL: paired prediction error $want missing"; fail=1; }
done
grep -qF "346.00 ±" "$tmp/p.html" && { echo "FAIL: a paired prediction is listed as a run"; fail=1; }

# Broken csv: named by file and line.
printf 'build_commit,n_prompt,n_gen,avg_ts\n"x","512","0","fast"\n' >"$tmp/bad.csv"
t 2 "report with a bad csv" "$bin" report -o "$tmp/b.html" --runs "$tmp/bad.csv"
grep -q "bad.csv:2.*avg_ts" "$tmp/err" || { echo "FAIL: bad csv error: $(cat "$tmp/err")"; fail=1; }
[ -e "$tmp/b.html" ] && { echo "FAIL: report half-written"; fail=1; }

[ "$fail" -eq 0 ] && echo "bench runs: ok"
exit "$fail"
