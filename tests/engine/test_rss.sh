#!/usr/bin/env bash
# Peak resident memory of a real generation stays within the model file's
# size + its KV cache + RSS_SLACK_MIB (issue 6), although the engine copies
# the packed matrices out of the mapping: it must drop the file pages it has
# packed. Runs every real test model ($FITCHECK_MODELS) for a few tokens.
set -u
bin="${FITCHECK_BIN:?}"
[ -n "${FITCHECK_MODELS:-}" ] || { echo "FITCHECK_MODELS not set: run scripts/fetch-models.sh (make test does)"; exit 77; }
models=$FITCHECK_MODELS
RSS_SLACK_MIB=64
CTX=256
# A sanitized build's shadow memory and quarantine are not the engine's own.
ldd "$bin" 2>/dev/null | grep -q 'lib[at]san' && { echo "sanitized binary: resident size is not the engine's"; exit 77; }
fail=0
for m in "$models"/*.gguf; do
    read -r file_bytes kv_tok < <("$bin" inspect --json "$m" |
        python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["file_bytes"], d["kv_bytes_per_token_f16"])')
    read -r rc peak_kib < <(python3 -c '
import resource, subprocess, sys
rc = subprocess.call(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
' "$bin" run "$m" -p "The capital of France is" -n 16 --temp 0 -c "$CTX")
    limit_kib=$(( (file_bytes + CTX * kv_tok) / 1024 + RSS_SLACK_MIB * 1024 ))
    echo "$(basename "$m"): peak resident $((peak_kib / 1024)) MiB, limit $((limit_kib / 1024)) MiB (file $((file_bytes >> 20)) MiB + KV + ${RSS_SLACK_MIB} MiB)"
    [ "$rc" -eq 0 ] || { echo "FAIL: fitcheck run exited $rc"; fail=1; }
    [ "$peak_kib" -le "$limit_kib" ] || { echo "FAIL: peak resident memory over the limit"; fail=1; }
done
exit $fail
