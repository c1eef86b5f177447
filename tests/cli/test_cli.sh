#!/usr/bin/env bash
# The command's contract: help, version, exit statuses, errors on stderr.
set -u
bin="${FITCHECK_BIN:?}"
fail=0
t() { # expected-status description command...
    local want=$1 what=$2; shift 2
    "$@" >/tmp/fc_cli_out.$$ 2>/tmp/fc_cli_err.$$
    local got=$?
    if [ "$got" -ne "$want" ]; then
        echo "FAIL: $what: exit $got, expected $want"; cat /tmp/fc_cli_err.$$; fail=1
    fi
}
t 0 "--help" "$bin" --help
grep -q "inspect" /tmp/fc_cli_out.$$ || { echo "FAIL: --help lists no verbs"; fail=1; }
t 0 "--version" "$bin" --version
grep -q "^fitcheck [0-9]" /tmp/fc_cli_out.$$ || { echo "FAIL: --version"; fail=1; }
t 2 "unknown verb" "$bin" frobnicate
t 2 "inspect without file" "$bin" inspect
t 2 "inspect unknown option" "$bin" inspect --bogus x.gguf
t 2 "inspect missing file" "$bin" inspect /nonexistent/model.gguf
grep -q "nonexistent" /tmp/fc_cli_err.$$ || { echo "FAIL: error does not name the file"; fail=1; }
printf 'GGUF\x03\x00\x00\x00\xff\xff\xff\xff\xff\xff\xff\x7f\x00\x00\x00\x00\x00\x00\x00\x00garbage' >/tmp/fc_bad.$$.gguf
t 2 "inspect hostile tensor count" "$bin" inspect /tmp/fc_bad.$$.gguf
grep -q "tensor count" /tmp/fc_cli_err.$$ || { echo "FAIL: hostile file message: $(cat /tmp/fc_cli_err.$$)"; fail=1; }
[ -s /tmp/fc_cli_out.$$ ] && { echo "FAIL: output on stdout for a failed inspect"; fail=1; }
t 2 "inspect a directory" "$bin" inspect /tmp
# A FIFO named *.gguf: opened without blocking and refused by type (it hung
# forever in open() before). timeout turns a hang into a failure.
tmpd=$(mktemp -d /tmp/fc_cli.XXXXXX)
mkfifo "$tmpd/f.gguf"
t 2 "inspect a FIFO" timeout 20 "$bin" inspect "$tmpd/f.gguf"
grep -q "FIFO" /tmp/fc_cli_err.$$ || { echo "FAIL: FIFO message: $(cat /tmp/fc_cli_err.$$)"; fail=1; }
t 2 "plan a FIFO" timeout 20 "$bin" plan "$tmpd/f.gguf" --hw rtx-4090
# A *.gguf that is not GGUF is a bad model file, not a JSON syntax error.
echo "not a model at all" >"$tmpd/garbage.gguf"
t 2 "plan garbage.gguf" "$bin" plan "$tmpd/garbage.gguf" --hw rtx-4090
grep -qi "json" /tmp/fc_cli_err.$$ && { echo "FAIL: garbage.gguf reported as JSON: $(cat /tmp/fc_cli_err.$$)"; fail=1; }
grep -q "GGUF" /tmp/fc_cli_err.$$ || { echo "FAIL: garbage.gguf message: $(cat /tmp/fc_cli_err.$$)"; fail=1; }
# llama.cpp's spellings are aliases of the verb's options.
t 0 "plan with llama.cpp spellings" "$bin" plan -m llama-3.1-8b -c 8192 -ngl 20 -ctk q8_0 -ctv q8_0 -fa on -np 2 -ub 256 \
    --hw rtx-4090 --json
python3 - /tmp/fc_cli_out.$$ <<'PY' || { echo "FAIL: llama.cpp spellings not applied"; fail=1; }
import json, sys
d = json.load(open(sys.argv[1]))
s = d["settings"]
assert s["n_ctx"] == 8192 and s["type_k"] == "q8_0" and s["type_v"] == "q8_0", s
assert s["n_parallel"] == 2 and s["n_ubatch"] == 256, s
g = [x for x in d["devices"] if x["device"] != "cpu"][0]
assert g["n_layers"] == 19 and g["output"], g  # -ngl 20: the output and 19 layers, as llama.cpp counts
PY
t 0 "plan -ctk alone" "$bin" plan llama-3.1-8b -ctk q8_0 --hw rtx-4090 --json
python3 -c "import json,sys; s=json.load(open(sys.argv[1]))['settings']; assert (s['type_k'], s['type_v']) == ('q8_0', 'f16'), s" \
    /tmp/fc_cli_out.$$ || { echo "FAIL: -ctk alone"; fail=1; }
# An unknown option before the model is named itself, not the model after it.
t 2 "unknown option before the model" "$bin" inspect -ngl 5 "$tmpd/garbage.gguf"
grep -q "'-ngl'" /tmp/fc_cli_err.$$ && ! grep -q "garbage" /tmp/fc_cli_err.$$ ||
    { echo "FAIL: option error blames: $(cat /tmp/fc_cli_err.$$)"; fail=1; }
t 2 "unknown plan option before the model" "$bin" plan --frob llama-3.1-8b
grep -q "'--frob'" /tmp/fc_cli_err.$$ || { echo "FAIL: plan option error: $(cat /tmp/fc_cli_err.$$)"; fail=1; }
# Bare fitcheck with a truncated profile: an error naming the file and the
# fix, from "fitcheck:", never "fitcheck :" and never silently "no profile".
mkdir -p "$tmpd/cache/fitcheck"
echo '{"schema_version": 1, "ram_total": 8' >"$tmpd/cache/fitcheck/machine.json"
XDG_CACHE_HOME="$tmpd/cache" t 2 "bare fitcheck, truncated profile" "$bin"
grep -q "^fitcheck: .*machine.json.*fitcheck probe" /tmp/fc_cli_err.$$ ||
    { echo "FAIL: broken profile message: $(cat /tmp/fc_cli_err.$$)"; fail=1; }
echo '{"schema_version": 99}' >"$tmpd/cache/fitcheck/machine.json"
XDG_CACHE_HOME="$tmpd/cache" t 2 "plan, newer-schema profile" "$bin" plan llama-3.1-8b
grep -q "newer" /tmp/fc_cli_err.$$ || { echo "FAIL: newer profile message: $(cat /tmp/fc_cli_err.$$)"; fail=1; }
# calibrate finds out it cannot write before doing its work.
echo '{"build_commit":"x"}' >"$tmpd/m.jsonl"
mkdir "$tmpd/out.json"
t 2 "calibrate into a directory" "$bin" calibrate --out "$tmpd/out.json" "$tmpd/m.jsonl"
grep -q "out.json" /tmp/fc_cli_err.$$ && grep -q "directory" /tmp/fc_cli_err.$$ ||
    { echo "FAIL: calibrate write check: $(cat /tmp/fc_cli_err.$$)"; fail=1; }
rm -rf "$tmpd"
for v in probe plan run report inspect models hw gen; do
    t 0 "$v --help" "$bin" "$v" --help
done
if [ -n "${FITCHECK_MODELS:-}" ] && [ -f "$FITCHECK_MODELS/SmolLM2-135M-Instruct.Q4_1.gguf" ]; then
    t 0 "inspect real model --json" "$bin" inspect --json "$FITCHECK_MODELS/SmolLM2-135M-Instruct.Q4_1.gguf"
    python3 - /tmp/fc_cli_out.$$ <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
h = d["hparams"]
assert d["architecture"] == "llama", d["architecture"]
assert (h["n_layer"], h["n_embd"], h["n_head"], h["n_head_kv"], h["n_vocab"]) == (30, 576, 9, 3, 49152), h
assert d["tokenizer"] == "bpe" and d["kv_bytes_per_token_f16"] == 23040
assert {t["type"] for t in d["types"]} == {"f32", "q4_1", "q8_0"}
PY
fi
if [ -n "${FITCHECK_MODELS:-}" ] && [ -f "$FITCHECK_MODELS/SmolLM2-135M-Instruct.Q4_1.gguf" ]; then
    # Ctrl-C in run --bench keeps the finished tests (printed and saved) and
    # exits 130, as a shell reports SIGINT. 16 tests cannot all finish in 8 s.
    sv=$(mktemp -u /tmp/fc_cli_save.XXXXXX)
    "$bin" run "$FITCHECK_MODELS/SmolLM2-135M-Instruct.Q4_1.gguf" --bench -p 32 -n 32,32,32,32,32,32,32,32,32,32,32,32,32,32,32 \
        -r 3 --no-bw-probe -o csv --save "$sv" >/tmp/fc_cli_out.$$ 2>/tmp/fc_cli_err.$$ &
    pid=$!
    sleep 8
    kill -INT "$pid"
    wait "$pid"
    rc=$?
    [ "$rc" -eq 130 ] || { echo "FAIL: run --bench after Ctrl-C: exit $rc, expected 130"; cat /tmp/fc_cli_err.$$; fail=1; }
    kept=$(sed -n 's/.*keeping the \([0-9]*\) finished test.*/\1/p' /tmp/fc_cli_err.$$)
    rows=$(($(wc -l </tmp/fc_cli_out.$$) - 1)); [ "$rows" -lt 0 ] && rows=0
    [ -n "$kept" ] && [ "$kept" -lt 16 ] && [ "$rows" -eq "$kept" ] ||
        { echo "FAIL: Ctrl-C kept '$kept' tests, printed $rows rows"; cat /tmp/fc_cli_err.$$; fail=1; }
    if [ "${kept:-0}" -gt 0 ]; then
        [ "$(wc -l <"$sv")" -eq "$kept" ] || { echo "FAIL: --save after Ctrl-C has $(wc -l <"$sv") lines, not $kept"; fail=1; }
    fi
    rm -f "$sv"
fi
rm -f /tmp/fc_cli_out.$$ /tmp/fc_cli_err.$$ /tmp/fc_bad.$$.gguf
exit $fail
