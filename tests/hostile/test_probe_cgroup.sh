#!/usr/bin/env bash
# The probe never allocates more than half of the memory it may use, cgroup
# limits included: run a full probe inside a memory cgroup limited to
# LIMIT_MIB and measure its peak resident memory. The peak may exceed
# half the limit only by the process itself (binary, libraries, stacks):
# BASELINE_MIB. Nothing may be OOM-killed, and the
# profile must report the limit it ran under. Needs root and a writable
# cgroup v1 memory hierarchy or cgroup v2 with the memory controller; skips
# (77) otherwise.
set -u
bin="${FITCHECK_BIN:?}"
LIMIT_MIB=256
BASELINE_MIB=24
# A sanitized build's shadow memory and quarantine are not the probe's own.
ldd "$bin" 2>/dev/null | grep -q 'lib[at]san' && { echo "sanitized binary: resident size is not the probe's"; exit 77; }
tmp=$(mktemp -d /tmp/fc_cgroup.XXXXXX)
cg=""
cleanup() { [ -n "$cg" ] && rmdir "$cg" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
export XDG_CACHE_HOME="$tmp/cache"

if [ -w /sys/fs/cgroup/memory ] && [ -f /sys/fs/cgroup/memory/memory.limit_in_bytes ]; then
    cg=/sys/fs/cgroup/memory/fc_probe_test.$$
    mkdir "$cg" || exit 77
    echo $((LIMIT_MIB << 20)) >"$cg/memory.limit_in_bytes" || exit 77
elif [ -w /sys/fs/cgroup/cgroup.procs ] && grep -qw memory /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null; then
    cg=/sys/fs/cgroup/fc_probe_test.$$
    mkdir "$cg" || exit 77
    echo $((LIMIT_MIB << 20)) >"$cg/memory.max" || exit 77
else
    echo "no writable memory cgroup"; exit 77
fi

# The subshell moves itself into the cgroup, then runs the probe and reports
# its peak resident set: the cgroup's own peak counter would also count the
# page cache of the storage test, which the kernel reclaims at will.
(echo "$BASHPID" >"$cg/cgroup.procs" && exec python3 -c '
import resource, subprocess, sys
rc = subprocess.call(sys.argv[1:], stdout=subprocess.DEVNULL)
print(rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss >> 10)
' "$bin" probe --no-gpu --force -o "$tmp/machine.json") >"$tmp/out" 2>"$tmp/err"
read -r rc peak_mib <"$tmp/out"
ooms=$(sed -n 's/^oom_kill //p' "$cg/memory.oom_control" "$cg/memory.events" 2>/dev/null | sed -n 1p)
fail=0
[ "${rc:-1}" -eq 0 ] || { echo "FAIL: probe in a ${LIMIT_MIB} MiB cgroup: exit ${rc:-?}"; cat "$tmp/err"; fail=1; }
[ "${ooms:-0}" -eq 0 ] || { echo "FAIL: $ooms OOM kills in the cgroup"; fail=1; }
[ "${peak_mib:-9999}" -le $((LIMIT_MIB / 2 + BASELINE_MIB)) ] ||
    { echo "FAIL: peak resident ${peak_mib} MiB in a ${LIMIT_MIB} MiB cgroup (half + ${BASELINE_MIB} allowed)"; fail=1; }
if [ "$rc" -eq 0 ]; then
    python3 - "$tmp/machine.json" "$LIMIT_MIB" <<'PY' || fail=1
import json, sys
p = json.load(open(sys.argv[1]))
limit = int(sys.argv[2]) << 20
assert p["cgroup_mem_max"] == limit, f"profile says cgroup limit {p['cgroup_mem_max']}, ran under {limit}"
assert p["ram_available"] <= limit, f"available {p['ram_available']} above the cgroup limit {limit}"
assert p["read_gbs"] > 0, "no bandwidth measured"
PY
fi
echo "probe in a ${LIMIT_MIB} MiB cgroup: peak resident ${peak_mib} MiB"

# The engine checks memory before loading, cgroup limit included: SmolLM2
# (94 MiB file) in a 64 MiB cgroup is refused with exit 2, not OOM-killed.
model="${FITCHECK_MODELS:-}/SmolLM2-135M-Instruct.Q4_1.gguf"
if [ -f "$model" ]; then
    small=$((64 << 20))
    if [ -f "$cg/memory.limit_in_bytes" ]; then echo $small >"$cg/memory.limit_in_bytes"; else echo $small >"$cg/memory.max"; fi
    (echo "$BASHPID" >"$cg/cgroup.procs" && exec "$bin" run "$model" --tokens 1 -n 1) >"$tmp/run_out" 2>"$tmp/run_err"
    rc=$?
    [ "$rc" -eq 2 ] || { echo "FAIL: run in a 64 MiB cgroup: exit $rc, expected 2"; cat "$tmp/run_err"; fail=1; }
    grep -q "cgroup limit included" "$tmp/run_err" ||
        { echo "FAIL: run's refusal does not mention the cgroup limit: $(cat "$tmp/run_err")"; fail=1; }
fi
exit $fail
