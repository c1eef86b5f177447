#!/usr/bin/env bash
# The main verbs run to a clean exit (status 0, no output on stderr from a
# sanitizer). Built with -Db_sanitize=address (scripts/sanitize.sh) this is the
# leak check: LeakSanitizer turns any leak at exit into exit status 23.
# Verbs not built yet are skipped, as are model runs without FITCHECK_MODELS.
set -u
bin="${FITCHECK_BIN:?}"
models="${FITCHECK_MODELS:-}"
tmp=$(mktemp -d /tmp/fc_verbs.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME="$tmp/cache" # profiles and calibrations go here, not into the user's cache
fail=0 ran=0 skipped=()
v() { # description command...
    local what=$1; shift
    "$bin" "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    if [ "$rc" -eq 1 ] && grep -q "not implemented yet" "$tmp/err"; then
        skipped+=("$what")
        return
    fi
    ran=$((ran + 1))
    if [ "$rc" -ne 0 ] || grep -qE "Sanitizer|runtime error" "$tmp/err"; then
        echo "FAIL: $what: exit $rc"
        head -c 3000 "$tmp/err"
        fail=1
    fi
}
smol="$models/SmolLM2-135M-Instruct.Q4_1.gguf"
gemma="$models/gemma-3-270m-q4_k_m.gguf"
v "--help" --help
v "models --json" models --json
v "hw" hw
v "probe --quick" probe --quick --no-gpu --force
v "probe --show" probe --show
v "plan catalog model on catalog GPUs" plan llama-3.1-8b --hw rtx-4090,rtx-4090
v "plan config.json" plan "${FITCHECK_SRC:?}/fuzz/seeds/config_json/qwen3moe.json" --json
if [ -f "$smol" ] && [ -f "$gemma" ]; then
    v "inspect smollm2" inspect "$smol"
    v "inspect gemma3 --json --tensors" inspect --json --tensors "$gemma"
    v "plan smollm2" plan "$smol"
    v "plan gemma3 --json" plan --json "$gemma"
    v "gen like smollm2 (2 layers)" gen --like "$smol" --layers 2 -o "$tmp/gen.gguf"
    v "report smollm2" report -o "$tmp/report.html" "$smol"
    v "run smollm2 (4 tokens)" run "$smol" -n 4 -p "Hello"
    v "run gemma3 --chat (4 tokens)" run "$gemma" -n 4 -p "Hi" --chat --temp 0
    v "run smollm2 --bench" run "$smol" --bench -p 8 -n 2 -r 1 --save "$tmp/bench.jsonl"
    v "report --runs" report -o "$tmp/runs.html" --runs "$tmp/bench.jsonl" "$smol"
else
    skipped+=("model verbs (FITCHECK_MODELS not set)")
fi
echo "$ran verbs ran clean, ${#skipped[@]} skipped$(IFS=,; [ ${#skipped[@]} -gt 0 ] && echo ": ${skipped[*]}")"
[ "$ran" -eq 0 ] && exit 77
exit $fail
