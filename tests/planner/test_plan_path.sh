#!/usr/bin/env bash
# One planning path (issue 13): every verb renders the same plan_make result.
# Each check below failed before plan, report and the main job shared it:
# - the recommended command names a file a user can run (not
#   "mistral/config.json-Q8_0.gguf" or "….Q4_1-Q8_0.gguf");
# - the HTML report prints the same llama.cpp command as `plan`;
# - the user's --tensor-split, --parallel and --ubatch reach the command,
#   and more -ts values than GPUs is refused;
# - `plan --json` and `plan -o json` agree on device ids and n_gpu_layers;
# - `plan` sees a container's memory.max (when a writable cgroup exists).
set -u
bin="${FITCHECK_BIN:?}"
tmp=$(mktemp -d /tmp/fc_plan_path.XXXXXX)
cg=""
cleanup() { [ -n "$cg" ] && rmdir "$cg" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
export XDG_CACHE_HOME="$tmp/cache"
fail=0
t() { # expected-status description command...
    local want=$1 what=$2; shift 2
    "$@" >"$tmp/out" 2>"$tmp/err"
    local got=$?
    if [ "$got" -ne "$want" ]; then echo "FAIL: $what: exit $got, expected $want"; cat "$tmp/err"; fail=1; fi
}
jget() { python3 -c "import json,sys; d=json.load(open('$tmp/out')); print($1)"; }

# A config.json in a folder: the file is named after the model, not the path.
mkdir -p "$tmp/mistral"
cp "${FITCHECK_SRC:?}/data/models/mistral-7b.json" "$tmp/mistral/config.json" 2>/dev/null ||
    cp "$(ls "$FITCHECK_SRC"/data/models/llama-3.1-8b.json)" "$tmp/mistral/config.json"
t 0 "plan a config.json folder" "$bin" plan "$tmp/mistral" --hw rtx-4090 --json
file=$(jget 'd["recommendation"]["file"]')
case "$file" in
    */*|*config.json*) echo "FAIL: config.json plan names file '$file'"; fail=1 ;;
    *.gguf) ;;
    *) echo "FAIL: '$file' is not a GGUF file name"; fail=1 ;;
esac

# A GGUF at another quantization: same folder, the type's token swapped.
if [ -n "${FITCHECK_MODELS:-}" ] && [ -f "$FITCHECK_MODELS/SmolLM2-135M-Instruct.Q4_1.gguf" ]; then
    smol="$FITCHECK_MODELS/SmolLM2-135M-Instruct.Q4_1.gguf"
    t 0 "plan a GGUF on a GPU" "$bin" plan "$smol" --hw rtx-4090 --json
    rec=$(jget 'd["recommendation"]["quant"]')
    file=$(jget 'd["recommendation"]["file"]')
    exists=$(jget 'd["recommendation"]["file_exists"]')
    if [ "$rec" = "Q4_1" ]; then
        [ "$file" = "$smol" ] && [ "$exists" = "True" ] || { echo "FAIL: own type but file '$file'"; fail=1; }
    else
        [ "$file" = "$FITCHECK_MODELS/SmolLM2-135M-Instruct.$rec.gguf" ] && [ "$exists" = "False" ] ||
            { echo "FAIL: $rec of $smol named '$file' (exists=$exists)"; fail=1; }
    fi
    t 0 "plan a GGUF as it is" "$bin" plan "$smol" --hw rtx-4090 --json
    [ "$(jget 'd["file"]')" = "$smol" ] || { echo "FAIL: the plan of a GGUF as it is runs another file"; fail=1; }
else
    echo "FAIL: the real test models are missing (FITCHECK_MODELS)"; fail=1
fi

# The user's flags reach the command; a split with more values than GPUs is refused.
t 0 "plan with -ts/-np/-ub" "$bin" plan llama-3.1-70b --hw rtx-4090,rtx-4090,cpu-ddr5-6400-2ch:128 \
    --tensor-split 3,1 --parallel 4 --ubatch 1024 --quant Q2_K --json
cmd=$(jget 'd["llama_cpp"]')
for want in "-ts 3,1" "-np 4" "-ub 1024"; do
    case "$cmd" in *"$want"*) ;; *) echo "FAIL: '$want' missing from '$cmd'"; fail=1 ;; esac
done
t 2 "three -ts values for two GPUs" "$bin" plan llama-3.1-8b --hw rtx-4090,rtx-4090 --tensor-split 1,1,1
grep -q "tensor-split" "$tmp/err" || { echo "FAIL: the -ts error does not name the flag"; fail=1; }

# --json and -o json: one schema for the same fields.
t 0 "plan --json" "$bin" plan llama-3.1-8b --hw rtx-4090 --ngl 10 --json
cp "$tmp/out" "$tmp/doc.json"
t 0 "plan -o json" "$bin" plan llama-3.1-8b --hw rtx-4090 --ngl 10 -o json
python3 - "$tmp/doc.json" "$tmp/out" <<'PY' || fail=1
import json, sys
doc, rows = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert [d["device"] for d in doc["devices"]] == [r["device"] for r in rows], (doc["devices"], rows)
assert [d["device_name"] for d in doc["devices"]] == [r["device_name"] for r in rows]
assert all(r["n_gpu_layers"] == doc["settings"]["n_gpu_layers"] == 10 for r in rows)
for d, r in zip(doc["devices"], rows):
    assert d["total_bytes"] == r["total_bytes"], (d, r)
PY
t 0 "plan --json all layers" "$bin" plan llama-3.1-8b --hw rtx-4090 --json
[ "$(jget 'd["settings"]["n_gpu_layers"]')" = 33 ] || { echo "FAIL: all layers of 32 is not -ngl 33"; fail=1; }

# The HTML report prints plan's command for the same model and hardware.
t 0 "plan for the report" "$bin" plan llama-3.1-8b --hw rtx-4090 --json
cmd=$(jget 'd["recommendation"]["llama_cpp"]')
t 0 "report" "$bin" report llama-3.1-8b --hw rtx-4090 -o "$tmp/r.html"
python3 - "$tmp/r.html" "$cmd" <<'PY' || fail=1
import html, sys
page = open(sys.argv[1]).read()
assert html.escape(sys.argv[2], quote=False) in page or sys.argv[2] in page, "report's command differs from plan's"
PY

# memory.max: plan inside a 512 MiB cgroup sees at most 512 MiB of host RAM.
LIMIT_MIB=512
if [ -w /sys/fs/cgroup/cgroup.procs ] && grep -qw memory /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null; then
    cg=/sys/fs/cgroup/fc_plan_test.$$
    mkdir "$cg" && echo $((LIMIT_MIB << 20)) >"$cg/memory.max" || cg=""
elif [ -w /sys/fs/cgroup/memory ] && [ -f /sys/fs/cgroup/memory/memory.limit_in_bytes ]; then
    cg=/sys/fs/cgroup/memory/fc_plan_test.$$
    mkdir "$cg" && echo $((LIMIT_MIB << 20)) >"$cg/memory.limit_in_bytes" || cg=""
fi
if [ -n "$cg" ]; then
    (echo "$BASHPID" >"$cg/cgroup.procs" && exec "$bin" plan llama-3.1-8b --json) >"$tmp/out" 2>"$tmp/err"
    free=$(jget '[x for x in d["devices"] if x["device"] == "cpu"][0]["free_bytes"]')
    [ "$free" -le $((LIMIT_MIB << 20)) ] || { echo "FAIL: plan in a $LIMIT_MIB MiB cgroup sees $free bytes free"; fail=1; }
else
    echo "no writable memory cgroup: the memory.max check did not run"
fi
exit $fail
