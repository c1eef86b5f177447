#!/usr/bin/env bash
# The speed model against measurement on this machine: fitcheck's own engine
# (`fitcheck run --bench`, llama-bench's tests and fields) on random-weight
# models with a catalog model's exact shapes (`fitcheck gen --like`), across
# tensor types x thread counts x KV depths, prediction beside measurement.
# Targets (issue 5): decode median |error| <= 5% (max <= 15%), prefill median <= 10%.
#
# The predictions are those of `fitcheck calibrate --dry-run` on the results:
# the constants in use now ("predicted"), and a refit to these very runs
# ("refit", in-sample: how well the model's shape can follow this machine).
# Then each row's two predictions as `run --bench` made them: from the machine
# profile's bandwidth, and from the read bandwidth measured right before and
# after the test ("same-minute"; this VM's DRAM swings 32..55 GB/s between
# minutes), with the median |error| of each (issue 18's target: <= 5%).
#
# usage: bench/speed_vs_engine.sh          (environment overrides below)
#   LIKE=tinyllama-1.1b  TYPES="Q4_0 Q8_0 Q4_K_M"  THREADS="1 2"  DEPTHS="0 1024 4096"
#   PP=64  TG=16  REPS=2  FITCHECK=build/fitcheck  DIR=~/.cache/fitcheck/bench
set -euo pipefail
cd "$(dirname "$0")/.."
fitcheck="${FITCHECK:-build/fitcheck}"
like="${LIKE:-tinyllama-1.1b}"
types="${TYPES:-Q4_0 Q8_0 Q4_K_M}"
threads="${THREADS:-1 2}"
depths="${DEPTHS:-0 1024 4096}"
pp="${PP:-64}" tg="${TG:-16}" reps="${REPS:-2}"
dir="${DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/fitcheck/bench}"
lock=/tmp/fitcheck-bench.lock
mkdir -p "$dir"
if "$fitcheck" run --help 2>&1 | grep -q "not implemented"; then
    echo "speed_vs_engine: 'fitcheck run --bench' is not built yet; skipping"
    exit 0
fi
results="$dir/speed_vs_engine.jsonl"
: >"$results"
# Every model is written, and synced to disk, before the first test: the test
# right after `gen` wrote a 1 GB file decoded 20-30% slow (Llama-3.2-1B shapes,
# 2 Dec 2026: tg16 at depth 0 28.1 and 24.4 t/s, below the same files at depth
# 1024); with the files made and synced first, 39.3 and 33.9, as a lone run.
for q in $types; do
    model="$dir/$like-$q.gguf"
    [ -f "$model" ] || "$fitcheck" gen --like "$like" --quant "$q" -o "$model" >/dev/null
done
sync
for q in $types; do
    model="$dir/$like-$q.gguf"
    for t in $threads; do
        for d in $depths; do
            # One benchmark at a time on the machine: the lock is shared with the other benches.
            flock "$lock" "$fitcheck" run "$model" --bench -p "$pp" -n "$tg" -t "$t" -d "$d" -r "$reps" -o jsonl \
                >>"$results"
        done
    done
done
"$fitcheck" calibrate --dry-run --json "$results" >"$dir/speed_vs_engine.fit.json"
python3 - "$dir/speed_vs_engine.fit.json" <<'PY'
import json, statistics, sys
fit = json.load(open(sys.argv[1]))
rows = fit["measurements"]
print("%-44s %10s %10s %7s %10s %7s" % ("test", "measured", "predicted", "ratio", "refit", "ratio"))
err = {"decode": [], "prefill": []}
for r in rows:
    kind = "decode" if " tg" in r["label"] else "prefill"
    err[kind].append(abs(r["before_tps"] / r["measured_tps"] - 1))
    print("%-44s %10.2f %10.2f %7.3f %10.2f %7.3f" % (r["label"], r["measured_tps"], r["before_tps"],
          r["before_tps"] / r["measured_tps"], r["after_tps"], r["after_tps"] / r["measured_tps"]))
targets = {"decode": (0.05, 0.15), "prefill": (0.10, None)}
for kind, e in err.items():
    if not e:
        continue
    med, mx = statistics.median(e), max(e)
    tm, tx = targets[kind]
    verdict = "meets" if med <= tm and (tx is None or mx <= tx) else "misses"
    print("%-8s n=%-3d median |error| %5.1f%% (target %.0f%%), max %5.1f%%%s: %s target" % (
        kind, len(e), 100 * med, 100 * tm, 100 * mx, "" if tx is None else " (target %.0f%%)" % (100 * tx), verdict))
print("refit (in-sample) median %.1f%%, max %.1f%%" % (100 * fit["after"]["median_abs_err"],
                                                     100 * fit["after"]["max_abs_err"]))
PY
python3 - "$results" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
print("%-34s %9s %9s %7s %8s %9s %7s" % ("test", "measured", "profile", "error", "GB/s now", "same-min", "error"))
err = {}
for r in rows:
    kind = "decode" if r["n_gen"] else "prefill"
    test = "%s %s t%d d%d" % (r["model_type"], ("tg%d" if r["n_gen"] else "pp%d") % (r["n_gen"] or r["n_prompt"]),
                               r["n_threads"], r["n_depth"])
    m, p, n = r["avg_ts"], r.get("predicted_ts", 0), r.get("predicted_now_ts", 0)
    e = err.setdefault(kind, {"profile": [], "same-minute": []})
    if p > 0: e["profile"].append(abs(p / m - 1))
    if n > 0: e["same-minute"].append(abs(n / m - 1))
    print("%-34s %9.2f %9.2f %+6.0f%% %8.1f %9.2f %+6.0f%%" % (test, m, p, 100 * (p / m - 1) if p else 0,
          r.get("read_gbs_now", 0), n, 100 * (n / m - 1) if n else 0))
for kind, e in err.items():
    for basis, v in e.items():
        if v:
            print("%-8s %-12s n=%-3d median |error| %5.1f%%, max %5.1f%%" % (kind, basis, len(v),
                  100 * statistics.median(v), 100 * max(v)))
PY
echo "(load average at the end: $(cut -d' ' -f1-3 /proc/loadavg); CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2))"
