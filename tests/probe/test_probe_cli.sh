#!/usr/bin/env bash
# fitcheck probe's contract: exit statuses, where the profile goes, --show.
set -u
bin="${FITCHECK_BIN:?}"
dir=$(mktemp -d /tmp/fc-probe-cli.XXXXXX)
trap 'rm -rf "$dir"' EXIT
export XDG_CACHE_HOME="$dir/cache"
fail=0
t() { # expected-status description command...
    local want=$1 what=$2; shift 2
    "$@" >"$dir/out" 2>"$dir/err"
    local got=$?
    if [ "$got" -ne "$want" ]; then
        echo "FAIL: $what: exit $got, expected $want"; cat "$dir/err"; fail=1
    fi
}
t 0 "--help" "$bin" probe --help
grep -q -- "--quick" "$dir/out" || { echo "FAIL: --help does not describe --quick"; fail=1; }
t 2 "unknown flag" "$bin" probe --bogus
t 2 "threads zero" "$bin" probe -t 0
t 2 "threads not a number" "$bin" probe --threads many
t 2 "stray argument" "$bin" probe extra
t 2 "models dir missing" "$bin" probe --no-gpu --models-dir "$dir/nowhere"
t 2 "--show of a missing file" "$bin" probe --show "$dir/none.json"
# --show measures nothing and --peer only the link: a flag of a machine probe is refused by name
t 2 "--show with --quick" "$bin" probe --show --quick
grep -q "show measures nothing: --quick is for a measurement" "$dir/err" || { echo "FAIL: --show --quick: no reason"; fail=1; }
t 2 "--show with -o FILE" "$bin" probe --show -o "$dir/never.json"
[ ! -e "$dir/never.json" ] || { echo "FAIL: --show -o FILE wrote a file"; fail=1; }
t 2 "--peer with -t" "$bin" probe --peer 127.0.0.1 -t 2
grep -q "peer measures the link only: -t/--threads" "$dir/err" || { echo "FAIL: --peer -t: no reason"; fail=1; }
echo '{"schema_version": 1, "n_cores": "x"}' >"$dir/bad.json"
t 2 "--show of a malformed profile" "$bin" probe --show "$dir/bad.json"
grep -q "n_cores" "$dir/err" || { echo "FAIL: malformed profile message does not name the field"; fail=1; }
echo '{"schema_version": 999}' >"$dir/new.json"
t 2 "--show of a newer schema" "$bin" probe --show "$dir/new.json"
grep -q "newer" "$dir/err" || { echo "FAIL: newer schema message: $(cat "$dir/err")"; fail=1; }

# A real quick probe, saved where -o says, shown again in both forms.
# --force: this test is about where profiles go, on a machine other work may share.
t 0 "quick probe to -o" "$bin" probe --quick --no-gpu --force -o "$dir/m.json"
grep -q '"schema_version": 1' "$dir/m.json" || { echo "FAIL: -o file lacks schema_version"; fail=1; }
grep -q "read" "$dir/out" || { echo "FAIL: no summary on stdout"; fail=1; }
t 0 "--show FILE --json" "$bin" probe --show "$dir/m.json" --json
python3 -c 'import json,sys; p=json.load(open(sys.argv[1])); assert p["read_gbs"] > 0' "$dir/out" ||
    { echo "FAIL: --show --json is not the profile"; fail=1; }
t 0 "--show=FILE" "$bin" probe --show="$dir/m.json"
grep -q "cores" "$dir/out" || { echo "FAIL: --show prints no summary"; fail=1; }
# the int8 dot products llama.cpp's quantized kernels use here, as the profile records them
python3 - "$dir/m.json" "$dir/out" <<'PY' || { echo "FAIL: int8 dot line"; cat "$dir/out"; fail=1; }
import json, re, sys
p = json.load(open(sys.argv[1]))
shown = re.search(r"^int8 dot    (\S+) multiply-adds per FP32 one \((.*)\)$", open(sys.argv[2]).read(), re.M)
assert p["int8_per_fp32"] in (0, 2, 4, 8), p["int8_per_fp32"]
assert (shown is None) == (p["int8_per_fp32"] == 0), shown
assert shown is None or float(shown.group(1)) == p["int8_per_fp32"], shown.group(0)
PY

# The default location is $XDG_CACHE_HOME/fitcheck/machine.json.
t 0 "quick probe to the cache" "$bin" probe --quick --no-gpu --force --json
[ -f "$XDG_CACHE_HOME/fitcheck/machine.json" ] || { echo "FAIL: no profile in the cache dir"; fail=1; }
t 0 "--show of the cached profile" "$bin" probe --show

# A lying hwloc (a synthetic 16-thread topology on this machine) is noticed and
# ignored with a note, never trusted for pinning and never a crash.
online=$(getconf _NPROCESSORS_ONLN)
if [ "$online" -lt 16 ]; then
    HWLOC_SYNTHETIC="pack:2 core:4 pu:2" t 0 "lying hwloc topology" "$bin" probe --quick --no-gpu --force --json -o "$dir/l.json"
    grep -q "hwloc topology ignored" "$dir/l.json" || { echo "FAIL: lying hwloc not noted"; fail=1; }
    grep -q "\"n_cores\": 8," "$dir/l.json" && { echo "FAIL: lying hwloc core count kept"; fail=1; }
fi

# Two NUMA nodes of one core each (hwloc's synthetic topology over this
# machine's first two CPUs): the profile counts each node's cores, and a plan
# for it binds llama.cpp to one node with that node's threads (planner/numa.c).
if [ "$online" -ge 2 ]; then
    HWLOC_SYNTHETIC="package:2 numa:1 core:1 pu:1" t 0 "two-node hwloc topology" "$bin" probe --quick --no-gpu --force -o "$dir/n.json"
    python3 -c 'import json,sys; p=json.load(open(sys.argv[1])); assert p["numa_cores"] == [1, 1] and len(p["numa_mem_bytes"]) == 2, p' \
        "$dir/n.json" || { echo "FAIL: per-node cores not counted"; fail=1; }
    t 0 "plan on the two-node profile" "$bin" plan qwen3-0.6b --hw "$dir/n.json"
    grep -q "^command   numactl --cpunodebind=0 --membind=0 llama-server .* -t 1$" "$dir/out" ||
        { echo "FAIL: two-node plan not bound to a node"; grep -E "command|NUMA" "$dir/out"; fail=1; }
fi

# A busy machine: a busy loop per CPU runs while it measures. The probe
# prints what it measured but saves nothing, says why on stderr and exits 2;
# --force saves the profile with the reason recorded in it.
ncpu=$(getconf _NPROCESSORS_ONLN)
busy_pids=()
for _ in $(seq "$ncpu"); do (while :; do :; done) & busy_pids+=($!); done
t 2 "probe on a busy machine" "$bin" probe --quick --no-gpu -o "$dir/busy.json"
grep -q "NOT saved" "$dir/err" && grep -q "busy" "$dir/err" && grep -q -- "--force" "$dir/err" ||
    { echo "FAIL: busy refusal message: $(cat "$dir/err")"; fail=1; }
[ -e "$dir/busy.json" ] && { echo "FAIL: a busy profile was saved"; fail=1; }
grep -q "read" "$dir/out" || { echo "FAIL: the refused figures are not shown"; fail=1; }
t 0 "busy probe with --force" "$bin" probe --quick --no-gpu --force -o "$dir/busy.json"
python3 -c 'import json,sys; p=json.load(open(sys.argv[1])); assert p["busy"] and p["others_cpus"] > 0, p["busy"]' \
    "$dir/busy.json" || { echo "FAIL: --force profile does not record why it is busy"; fail=1; }
# The quick probe a plan makes when there is no profile is not saved either:
# it serves that plan, whose hardware line says it was measured while busy.
implicit="$dir/implicit-cache"
mkdir -p "$implicit"
XDG_CACHE_HOME="$implicit" "$bin" report -o "$dir/implicit.html" >"$dir/out" 2>"$dir/err"
[ -e "$implicit/fitcheck/machine.json" ] && { echo "FAIL: an implicit probe on a busy machine was saved"; fail=1; }
grep -q "MEASURED WHILE BUSY" "$dir/implicit.html" || { echo "FAIL: the report does not say its probe was busy"; fail=1; }
kill "${busy_pids[@]}" 2>/dev/null; wait "${busy_pids[@]}" 2>/dev/null
grep -q -- "--force" <("$bin" probe --help) || { echo "FAIL: --help does not explain --force"; fail=1; }

# A truncated profile is an error naming the file and the fix.
head -c 100 "$dir/m.json" >"$dir/cut.json"
t 2 "--show of a truncated profile" "$bin" probe --show "$dir/cut.json"
grep -q "cut.json" "$dir/err" && grep -q "fitcheck probe" "$dir/err" ||
    { echo "FAIL: truncated profile message: $(cat "$dir/err")"; fail=1; }

# An unwritable cache directory is a clear error before anything is measured.
XDG_CACHE_HOME=/dev/null/cache t 1 "unwritable cache dir" "$bin" probe --quick --no-gpu
grep -q "cannot" "$dir/err" || { echo "FAIL: unwritable cache message: $(cat "$dir/err")"; fail=1; }
exit $fail
