#!/usr/bin/env bash
# An "old driver": a real libcuda.so.1 stand-in that lacks the CUDA symbols
# (the C math library under that name). fitcheck probe must name the missing
# symbol in one line, measure the rest and exit 0.
set -euo pipefail
# awk reads all of ldconfig's output (no early exit): an early exit would
# SIGPIPE ldconfig and fail the pipeline under pipefail.
libm=$(/sbin/ldconfig -p | awk '/libm\.so\.6 .*x86-64/ && !x {x = $NF} /libm\.so\.6 / && !any {any = $NF} END {print x ? x : any}')
[ -n "$libm" ] || { echo "no libm.so.6 found: skipped"; exit 77; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
ln -s "$libm" "$dir/libcuda.so.1"
out=$(LD_LIBRARY_PATH="$dir" "$FITCHECK_BIN" probe --quick --force --output "$dir/machine.json")
echo "$out" | grep -F "NVIDIA driver too old: libcuda.so.1 lacks cuInit"
python3 - "$dir/machine.json" <<'PY'
import json, sys
note = json.load(open(sys.argv[1]))["gpu_note"]
assert note.startswith("NVIDIA driver too old: libcuda.so.1 lacks cuInit"), note
PY
echo "old_driver: ok"
