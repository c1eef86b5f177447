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
rm -f /tmp/fc_cli_out.$$ /tmp/fc_cli_err.$$ /tmp/fc_bad.$$.gguf
exit $fail
