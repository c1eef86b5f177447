#!/usr/bin/env bash
# The GPU machine's run, rehearsed here: scripts/gpu-pack.sh packs this
# build, the bundle and scripts/gpu-check.sh alone are copied into an empty
# folder (no build tree, no source), and the check runs under `env -i` (no
# LD_LIBRARY_PATH, a bare PATH). Without a GPU it must say so, exit 2 and
# leave its files in OUTDIR and nowhere else; every library fitcheck loads
# must come from the bundle; a libcuda that does not load sends it to the
# machine's own loader; and the targets are judged against the right figures
# (a made-up profile with CUDA GPUs, built from the real one).
set -euo pipefail
# grep without -q reads to the end: -q stops at the first match, and under
# pipefail the writer's SIGPIPE then fails the pipeline (a flaky test once)
if /sbin/ldconfig -p | grep 'libcuda\.so\.1' >/dev/null || [ -e /usr/local/nvidia/lib64/libcuda.so.1 ]; then
    echo "an NVIDIA driver is installed: the no-GPU run cannot be shown here: skipped"
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
repo="$tmp/repo" out="$tmp/out"
mkdir -p "$repo/scripts"
# a sanitized build (scripts/sanitize.sh) is larger than what travels: no limit then
max_mib=60
ldd "$FITCHECK_BIN" | grep libasan >/dev/null && max_mib=0
"$FITCHECK_SRC/scripts/gpu-pack.sh" --bin "$FITCHECK_BIN" --out "$repo/.gpu-bundle" --max-mib "$max_mib"
cp "$FITCHECK_SRC/scripts/gpu-check.sh" "$repo/scripts/"
clean=(env -i PATH=/usr/bin:/bin HOME="$tmp")

# 1. every library of the fitcheck process comes from the bundle (the
# wrapper's shell is the same process before its exec: lines from the
# bundle's loader on)
"${clean[@]}" LD_DEBUG=libs "$repo/.gpu-bundle/fitcheck" --version 2>"$tmp/ld.txt" >/dev/null
awk '/calling init: .*\/runtime\/ld-linux/ {on = 1} on && /calling init:/ {print $NF}' "$tmp/ld.txt" >"$tmp/libs.txt"
[ "$(wc -l <"$tmp/libs.txt")" -ge 8 ] || { echo "too few libraries traced:"; cat "$tmp/ld.txt"; exit 1; }
if grep -v "^$repo/.gpu-bundle/" "$tmp/libs.txt"; then
    echo "loaded from outside the bundle (above)"
    exit 1
fi

# 2. the check on a machine without a GPU
find "$repo" | sort >"$tmp/before.txt"
set +e
(cd "$tmp" && "${clean[@]}" "$repo/scripts/gpu-check.sh" "$out" >"$tmp/stdout.txt" 2>"$tmp/stderr.txt")
rc=$?
set -e
[ "$rc" -eq 2 ] || { echo "gpu-check exit $rc, wanted 2"; cat "$tmp/stdout.txt" "$tmp/stderr.txt"; exit 1; }
find "$repo" | sort | diff "$tmp/before.txt" - || { echo "gpu-check wrote outside OUTDIR"; exit 1; }
grep -F "no CUDA GPU measured: no NVIDIA driver (libcuda.so.1 not found)" "$out/gpu-table.txt"
grep -F "no CUDA GPU measured" "$out/gpu-error.txt"
grep -F "probe --gpu-only (loader: bundle)" "$out/gpu-stderr.txt"
grep -F "no CUDA GPU measured" "$tmp/stderr.txt"
python3 - "$out/gpu-check.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
assert p["gpu_note"] == "no NVIDIA driver (libcuda.so.1 not found)", p["gpu_note"]
assert p["hostname"] and p["created"], "header missing"
# --gpu-only measured no CPU figure
assert p["read_gbs"] == 0 and p["n_cores"] == 0, (p["read_gbs"], p["n_cores"])
assert all(g["api"] != "cuda" for g in p["gpus"])
PY

# 3. a libcuda.so.1 that is there but does not load: named with the loader's
# reason, and the check tries the machine's own loader once more
printf 'not a library' >"$tmp/libcuda.so.1"
set +e
(cd "$tmp" && "${clean[@]}" LD_LIBRARY_PATH="$tmp" "$repo/scripts/gpu-check.sh" "$out" >/dev/null 2>&1)
rc=$?
set -e
[ "$rc" -eq 2 ] || { echo "broken libcuda: exit $rc, wanted 2"; exit 1; }
grep -F "probe --gpu-only (loader: system)" "$out/gpu-stderr.txt"
grep -F "NVIDIA driver not loadable: $tmp/libcuda.so.1" "$out/gpu-table.txt"

# 4. the targets, on CUDA GPUs made up from the real profile
python3 - "$out/gpu-check.json" "$tmp/cuda.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
base = p["gpus"][0]
def gpu(name, read, h2d, d2h, link):
    g = dict(base, name=name, api="cuda", pci_bus_id="0000:18:00.0", theoretical_gbs=1000.0, read_gbs=read,
             copy_gbs=read / 2, h2d_pinned_gbs=h2d, d2h_pinned_gbs=d2h, note="")
    g["link"] = dict(base["link"], gen_max=link[0], width_max=link[1], gen_loaded=link[0], width_loaded=link[1],
                     source="sysfs")
    return g
p["gpus"] = [
    gpu("NVIDIA H200", 4300.0, 56.0, 52.0, (5, 16)),            # 4.8 TB/s datasheet, gen5 x16: all met
    gpu("NVIDIA GH200 480GB", 950.0, 56.0, 52.0, (0, 0)),       # not "H200": the driver's 1000 GB/s; link unknown
    gpu("NVIDIA H100 80GB HBM3", 2000.0, 56.0, 52.0, (1, 1)),   # H100 SXM 3.35 TB/s: read and copy missed; a made-up link
]
json.dump(p, open(sys.argv[2], "w"))
PY
set +e
"$repo/scripts/gpu-check.sh" --judge "$tmp/cuda.json" >"$tmp/judge.txt"
rc=$?
set -e
cat "$tmp/judge.txt"
[ "$rc" -eq 1 ] || { echo "judge exit $rc, wanted 1 (targets missed)"; exit 1; }
grep -F "#0 NVIDIA H200 0000:18:00.0: datasheet 4800 GB/s" "$tmp/judge.txt"
grep -F "#1 NVIDIA GH200 480GB 0000:18:00.0: datasheet 1000 GB/s (driver" "$tmp/judge.txt"
grep -F "#2 NVIDIA H100 80GB HBM3 0000:18:00.0: datasheet 3350 GB/s" "$tmp/judge.txt"
grep -E "pinned D2H .*82\.5% of 63 \(link\), target 80%  MET" "$tmp/judge.txt"
grep -F "(link not readable)  n/a" "$tmp/judge.txt"
grep -F "not the real link, n/a" "$tmp/judge.txt"
grep -E "^  read .*59\.7% of 3350 .*MISSED" "$tmp/judge.txt"
grep -Fx "targets: 6 met, 2 missed, 4 n/a" "$tmp/judge.txt"
echo "bundle: ok"
