#!/usr/bin/env bash
# `run --bench` measures read bandwidth beside each test and predicts from it
# too (issue 18): every row carries read_gbs_now and a same-minute prediction
# beside the profile's, and the same-minute one really uses the bandwidth
# measured (a profile claiming 1000 GB/s predicts decode far faster than the
# measured bandwidth does). A --quick profile (no thread-scaling curve) with
# -t 1 is said to assume all-core bandwidth (issue 13). --no-bw-probe drops it.
set -u
bin="${FITCHECK_BIN:?}"
src="${FITCHECK_SRC:?}"
[ -n "${FITCHECK_MODELS:-}" ] || { echo "FITCHECK_MODELS not set: run scripts/fetch-models.sh (make test does)"; exit 77; }
model=$FITCHECK_MODELS/SmolLM2-135M-Instruct.Q4_1.gguf
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/fitcheck"
# a quick profile (no scaling points) whose bandwidth is far beyond any DRAM,
# and compute too, so that the decode prediction is a bandwidth figure
python3 - "$src/fuzz/seeds/profile/cpu-quick.json" "$tmp/fitcheck/machine.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
p["read_gbs"], p["quick"], p["scaling"] = 1000.0, True, []
p["sgemm_gflops_1t"] = p["sgemm_gflops_all"] = 1e5
json.dump(p, open(sys.argv[2], "w"))
PY
fail=0
XDG_CACHE_HOME=$tmp "$bin" run "$model" --bench -p 16 -n 4 -r 1 -t 1 -o jsonl >"$tmp/out.jsonl" 2>"$tmp/err.txt" ||
    { echo "FAIL: run --bench exited $?"; cat "$tmp/err.txt"; fail=1; }
grep -q "no thread-scaling point for 1 thread" "$tmp/err.txt" ||
    { echo "FAIL: -t 1 on a --quick profile is not flagged"; cat "$tmp/err.txt"; fail=1; }
python3 - "$tmp/out.jsonl" <<'PY' || fail=1
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert len(rows) == 2, rows
for r in rows:
    assert 0 < r["read_gbs_now"] < 1000, r
    assert r["predicted_ts"] > 0 and r["predicted_now_ts"] > 0, r
tg = [r for r in rows if r["n_gen"]][0]
# decode is bandwidth-bound: at the measured bandwidth it is predicted slower
assert tg["predicted_now_ts"] < 0.95 * tg["predicted_ts"], tg
print("same-minute: %.1f GB/s, tg4 predicted %.1f t/s (profile: %.1f at 1000 GB/s), measured %.1f" % (
      tg["read_gbs_now"], tg["predicted_now_ts"], tg["predicted_ts"], tg["avg_ts"]))
PY
XDG_CACHE_HOME=$tmp "$bin" run "$model" --bench -p 0 -n 2 -r 1 -t 1 --no-bw-probe -o jsonl >"$tmp/out2.jsonl" 2>/dev/null ||
    { echo "FAIL: run --bench --no-bw-probe failed"; fail=1; }
python3 -c 'import json,sys; r=json.loads(open(sys.argv[1]).readline()); assert not r["read_gbs_now"] and not r["predicted_now_ts"], r' \
    "$tmp/out2.jsonl" || { echo "FAIL: --no-bw-probe still probed"; fail=1; }
# a flag only the other mode reads is refused by name, not dropped (and no file is written)
while IFS='|' read -r args why; do
    # shellcheck disable=SC2086
    msg=$("$bin" run "$model" $args 2>&1 >/dev/null)
    rc=$?
    { [ $rc -eq 2 ] && grep -qF -- "$why" <<<"$msg"; } || { echo "FAIL: run $args: rc $rc, $msg"; fail=1; }
done <<EOF
-p hi -n 2 -d 16|-d/--depth is for --bench
-p hi -n 2 --save $tmp/never.jsonl|--save is for --bench
-p hi -n 2 -o json|-o is for --bench
--bench -p 8 -n 2 --temp 0|--temp is for generating text, not --bench
--bench -p 8 -n 2 --chat|--chat is for generating text, not --bench
EOF
[ ! -e "$tmp/never.jsonl" ] || { echo "FAIL: a refused run wrote its --save file"; fail=1; }
[ $fail = 0 ] && echo "bench_cli: ok"
exit $fail
