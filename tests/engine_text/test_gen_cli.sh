#!/usr/bin/env bash
# fitcheck gen from the command line: a catalog model cut to 2 layers is
# written, inspect reads it back with the planner's mix and size, the seed
# makes it reproducible, bad flags exit 2, and a failed or interrupted
# write leaves no file behind.
set -u
bin="${FITCHECK_BIN:?}"
dir=$(mktemp -d /tmp/fitcheck-gen-cli.XXXXXX)
trap 'rm -rf "$dir"' EXIT
fail=0
t() { # expected-status description command...
    local want=$1 what=$2; shift 2
    "$@" >"$dir/out" 2>"$dir/err"
    local got=$?
    if [ "$got" -ne "$want" ]; then
        echo "FAIL: $what: exit $got, expected $want"; cat "$dir/err"; fail=1
    fi
}
leftovers() { # files other than those named
    ls -A "$dir" | grep -v -x -e out -e err "$@"
}

t 0 "--help" "$bin" gen --help
grep -q -- "--like" "$dir/out" || { echo "FAIL: --help does not describe --like"; fail=1; }
t 2 "no --like" "$bin" gen -o "$dir/x.gguf"
t 2 "no -o" "$bin" gen --like smollm2-135m
t 2 "unknown quant" "$bin" gen --like smollm2-135m --quant Q9_9 -o "$dir/x.gguf"
t 2 "--layers 0" "$bin" gen --like smollm2-135m --layers 0 -o "$dir/x.gguf"
t 2 "--layers not a number" "$bin" gen --like smollm2-135m --layers two -o "$dir/x.gguf"
t 2 "--layers beyond the model" "$bin" gen --like smollm2-135m --layers 31 -o "$dir/x.gguf"
t 2 "--seed negative" "$bin" gen --like smollm2-135m --seed -1 -o "$dir/x.gguf"
t 2 "unknown option" "$bin" gen --like smollm2-135m --frobnicate -o "$dir/x.gguf"
t 2 "unknown model" "$bin" gen --like no-such-model-9b -o "$dir/x.gguf"
[ -z "$(leftovers)" ] || { echo "FAIL: refused runs left files: $(leftovers)"; fail=1; }

# Written, read back by inspect with the planner's mix; same seed, same bytes.
t 0 "gen smollm2-135m" "$bin" gen --like smollm2-135m --quant Q4_K_M --layers 2 --seed 5 --json -o "$dir/a.gguf"
cp "$dir/out" "$dir/a.json"
t 0 "gen again, same seed" "$bin" gen --like smollm2-135m --quant Q4_K_M --layers 2 --seed 5 -o "$dir/b.gguf"
cmp -s "$dir/a.gguf" "$dir/b.gguf" || { echo "FAIL: the same seed gave different files"; fail=1; }
t 0 "gen, other seed" "$bin" gen --like smollm2-135m --quant Q4_K_M --layers 2 --seed 6 -o "$dir/c.gguf"
cmp -s "$dir/a.gguf" "$dir/c.gguf" && { echo "FAIL: another seed gave the same file"; fail=1; }
t 0 "inspect the result" "$bin" inspect --json "$dir/a.gguf"
python3 - "$dir/a.json" "$dir/out" "$dir/a.gguf" <<'PY' || fail=1
import json, os, sys
gen, ins = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
size = os.path.getsize(sys.argv[3])
assert gen["bytes"] == size, (gen["bytes"], size)
assert ins["hparams"]["n_layer"] == 2 and ins["hparams"]["n_vocab"] == 49152, ins["hparams"]
assert ins["tokenizer"] == "bpe", ins["tokenizer"]
# Weights exactly as predicted; the whole file within the planner's metadata estimate.
assert abs(size - gen["predicted_bytes"]) <= 0.01 * size, (size, gen["predicted_bytes"])
types = {t["type"] for t in ins["types"]}
assert types <= {"f32", "q4_K", "q5_0", "q6_K", "q8_0"} and "q4_K" in types, types
PY

# A write that fails half way (file size limit) and one interrupted with
# Ctrl-C leave neither the file nor a temp file.
rm -f "$dir"/*.gguf "$dir/a.json"
(ulimit -f 2048; trap '' XFSZ; exec "$bin" gen --like smollm2-135m --layers 2 -o "$dir/big.gguf") >/dev/null 2>&1
[ $? -ne 0 ] || { echo "FAIL: a write past the file size limit succeeded"; fail=1; }
[ -z "$(leftovers)" ] || { echo "FAIL: a failed write left $(leftovers)"; fail=1; }
"$bin" gen --like smollm2-360m --quant F32 -o "$dir/int.gguf" >/dev/null 2>"$dir/int.err" &
pid=$!
sleep 0.5
kill -INT "$pid" 2>/dev/null
wait "$pid"
[ $? -ne 0 ] || { echo "FAIL: an interrupted gen exited 0"; fail=1; }
rm -f "$dir/int.err"
[ -z "$(leftovers)" ] || { echo "FAIL: an interrupted gen left $(leftovers)"; fail=1; }

# A file larger than the free disk space is refused before writing.
t 1 "no room on the disk" "$bin" gen --like llama-3.1-405b --quant F32 -o "$dir/huge.gguf"
grep -q "disk" "$dir/err" || { echo "FAIL: no-space message: $(cat "$dir/err")"; fail=1; }
[ -z "$(leftovers)" ] || { echo "FAIL: a refused gen left $(leftovers)"; fail=1; }

[ $fail -eq 0 ] && echo "gen_cli: ok"
exit $fail
