#!/usr/bin/env bash
# The GPU check, made for one short run on a GPU machine with no network:
# installs and builds nothing. It runs fitcheck from .gpu-bundle/ (made here
# by scripts/gpu-pack.sh and carried along; build/fitcheck when there is no
# bundle), probes the GPUs and the bus only (`probe --gpu-only`: no CPU
# measurement can fail or delay it), and judges each CUDA GPU against
# realistic targets with their sources (docs/gpu.md).
#
# Usage: scripts/gpu-check.sh [OUTDIR]   (default: gpu-check/ in the repository)
#        scripts/gpu-check.sh --judge PROFILE.json   (only judges a saved profile)
# Writes into OUTDIR, and nowhere else:
#   gpu-check.json   the profile (docs/profile.md; GPUs and bus only)
#   gpu-table.txt    fitcheck's GPU table, then the targets judged
#   gpu-stderr.txt   everything fitcheck and this script wrote to stderr
#   nvidia-smi.txt   `nvidia-smi -q` when nvidia-smi is there (driver, clocks, link)
#   gpu-error.txt    only when the check failed: why
# Exit status: 0 every CUDA GPU met every target it could be judged on,
# 1 a target was missed, 2 no CUDA GPU was measured or the check failed.
set -uo pipefail
# Judges a profile's CUDA GPUs: prints the targets, exit status as the script's.
judge() {
    python3 - "$1" <<'EOF'
import json, re, sys

# Datasheet memory bandwidth, GB/s, by the name the driver gives (NVIDIA's
# H100, H200 and A100 datasheets). Word boundaries: "H200" is not "GH200".
# First match wins, so specific rows come first. Other GPUs: the driver's
# memory clock x bus width, which the probe reports as theoretical_gbs.
DATASHEET = [
    (r"\bH200\b", 4800.0, "H200 SXM and NVL datasheet: 4.8 TB/s"),
    (r"\bH100 NVL\b", 3900.0, "H100 NVL datasheet: 3.9 TB/s"),
    (r"\bH100 PCIe\b", 2000.0, "H100 PCIe datasheet: 2.0 TB/s"),
    (r"\bH100\b.*(\bHBM3\b|\bSXM)", 3350.0, "H100 SXM datasheet: 3.35 TB/s"),  # "NVIDIA H100 80GB HBM3"
    (r"\bA100-SXM4-80GB\b", 2039.0, "A100 80GB SXM datasheet: 2039 GB/s"),
    (r"\bA100 80GB PCIe\b", 1935.0, "A100 80GB PCIe datasheet: 1935 GB/s"),
    (r"\bA100-(SXM4|PCIE)-40GB\b", 1555.0, "A100 40GB datasheet: 1555 GB/s"),
]

# Realistic fractions: what published measurements reached, each a share of
# the figure it is judged against.
# - read: ProjectPhysX's OpenCL-Benchmark "coalesced read" on a GH200 480GB
#   (96 GB HBM3, 4.0 TB/s datasheet): 3614.6 GB/s = 0.90
#   (github.com/mredenti/PowerCapping, configuration/OpenCL_benchmark.md).
# - copy (bytes read + written): a PyTorch device-to-device copy on the H200
#   machines lent to this project moved 4.3 TB/s of 4.8 = 0.90 (2026-10-28
#   and 2026-11-04, the workplace's notes on that machine).
# - pinned H2D: nvbandwidth host_to_device_memcpy_ce on an H100 VM,
#   57.06 GB/s on PCIe gen5 x16 (63.0 GB/s per direction) = 0.906
#   (github.com/NVIDIA/nvbandwidth/issues/6).
# - pinned D2H: nvbandwidth device_to_host_memcpy_sm on H100 nodes,
#   52.77 GB/s of 63.0 = 0.838 (github.com/NVIDIA/nvbandwidth/issues/24).
PUBLISHED = {"read": 0.90, "copy": 0.90, "h2d": 0.906, "d2h": 0.838}
# A target is met at this share of the published fraction: hosts differ
# (CPU, IOMMU, BIOS), and the published runs are single machines.
TOLERANCE = 0.95
# Per-lane GB/s per direction by PCIe generation: the figures of
# probe/pcie.c's pcie_gens (docs/gpu.md), to judge a link that trained to a
# lower generation under load than its capability.
LANE_GBS = {1: 0.25, 2: 0.5, 3: 0.985, 4: 1.97, 5: 3.94, 6: 7.56}
# A "link" slower than the transfers measured over it is not the real link
# (hypervisors show made-up values): no target then.
LINK_SLACK = 1.05

def datasheet(g):
    for pattern, gbs, source in DATASHEET:
        if re.search(pattern, g["name"]):
            return gbs, source
    if g["theoretical_gbs"] > 0:
        return g["theoretical_gbs"], "driver: memory clock x bus width"
    return 0.0, "unknown"

def link_figure(l):
    """GB/s per direction of the link the transfers ran on, and its words."""
    if not l["gen_max"] or not l["width_max"]:
        return 0.0, "not readable"
    gen, width = (l["gen_loaded"], l["width_loaded"]) if l["gen_loaded"] else (l["gen_max"], l["width_max"])
    gbs = LANE_GBS.get(gen, 0.0) * width
    words = f"gen{gen} x{width} {'under load' if l['gen_loaded'] else 'capability'} [{l['source']}]"
    if l["gen_loaded"] and (gen, width) != (l["gen_max"], l["width_max"]):
        words += f", capable of gen{l['gen_max']} x{l['width_max']}"
    return gbs, words

def judge(name, value, ceiling, fraction_key, what):
    """One row: the value, its share of the ceiling, the target, the verdict."""
    target = PUBLISHED[fraction_key] * TOLERANCE
    if value <= 0:
        return f"  {name:22s} not measured{'':24s} n/a", None
    if ceiling <= 0:
        return f"  {name:22s} {value:9.1f} GB/s  ({what})  n/a", None
    share = value / ceiling
    if fraction_key in ("h2d", "d2h") and share > LINK_SLACK:
        return (f"  {name:22s} {value:9.1f} GB/s  faster than the link read ({ceiling:.1f} GB/s): "
                f"not the real link, n/a"), None
    ok = share >= target
    return (f"  {name:22s} {value:9.1f} GB/s  {100 * share:5.1f}% of {ceiling:.0f} ({what}), target "
            f"{100 * target:.0f}%  {'MET' if ok else 'MISSED'}"), ok

p = json.load(open(sys.argv[1]))
gpus = [g for g in p.get("gpus", []) if g.get("api") == "cuda"]
print(f"\ntargets ({p.get('hostname', '?')}, {p.get('created', '?')})")
if not gpus:
    print(f"no CUDA GPU measured: {p.get('gpu_note') or 'no note'}")
    sys.exit(2)
verdicts = []
for i, g in enumerate(gpus):
    sheet, sheet_src = datasheet(g)
    link, link_words = link_figure(g["link"])
    print(f"#{i} {g['name']} {g['pci_bus_id']}: datasheet {sheet:.0f} GB/s ({sheet_src}); link {link_words}")
    link_what = "link" if link > 0 else f"link {link_words}"
    rows = [
        judge("read", g["read_gbs"], sheet, "read", "datasheet"),
        judge("copy (read + write)", 2 * g["copy_gbs"], sheet, "copy", "datasheet"),
        judge("pinned H2D", g["h2d_pinned_gbs"], link, "h2d", link_what),
        judge("pinned D2H", g["d2h_pinned_gbs"], link, "d2h", link_what),
    ]
    for text, ok in rows:
        print(text)
        if ok is not None:
            verdicts.append(ok)
    print(f"  {'not judged':22s} pageable H2D/D2H {g['h2d_pageable_gbs']:.1f}/{g['d2h_pageable_gbs']:.1f} GB/s, "
          f"launch {g['launch_us']:.2f} us, fp32 {g['fp32_tflops']:.1f}, fp16/bf16 mma.sync "
          f"{g['fp16_tflops']:.0f}/{g['bf16_tflops']:.0f} TFLOPS")
    if g.get("note"):
        print(f"  note: {g['note']}")
print(f"targets: {verdicts.count(True)} met, {verdicts.count(False)} missed, {4 * len(gpus) - len(verdicts)} n/a")
sys.exit(0 if all(verdicts) else 1)
EOF
}

if [ "${1:-}" = --judge ]; then
    [ $# -eq 2 ] || { echo "usage: scripts/gpu-check.sh --judge PROFILE.json" >&2; exit 2; }
    judge "$2"
    exit $?
fi
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/gpu-check}
mkdir -p "$out" || { echo "gpu-check: cannot create $out" >&2; exit 2; }
out=$(cd "$out" && pwd)
rm -f "$out"/gpu-check.json "$out"/gpu-table.txt "$out"/gpu-stderr.txt "$out"/gpu-error.txt "$out"/nvidia-smi.txt

# The probe takes seconds on an H200 (docs/gpu.md); a hang must still leave
# time to read what came back within the machine's 10 minutes.
PROBE_TIMEOUT_S=240
SMI_TIMEOUT_S=30
# The NVIDIA driver's usual folders (the probe's dlopen tries the same ones,
# probe/gpu_cuda.c): libcuda's helpers (libnvidia-ptxjitcompiler, which
# compiles the PTX kernels) are found through the library path.
DRIVER_DIRS=/usr/local/nvidia/lib64:/usr/lib/x86_64-linux-gnu:/usr/lib64:/usr/local/cuda/lib64:/usr/lib/wsl/lib
export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$DRIVER_DIRS"

fail() {
    echo "gpu-check: $*" | tee -a "$out/gpu-error.txt" >&2
    exit 2
}

if [ -x "$root/.gpu-bundle/fitcheck" ]; then
    fitcheck="$root/.gpu-bundle/fitcheck"
elif [ -x "$root/build/fitcheck" ]; then
    fitcheck="$root/build/fitcheck"
else
    fail "no .gpu-bundle/fitcheck and no build/fitcheck: run scripts/gpu-pack.sh where fitcheck builds and carry .gpu-bundle (docs/gpu.md)"
fi

if command -v nvidia-smi >/dev/null; then
    timeout "$SMI_TIMEOUT_S" nvidia-smi -q >"$out/nvidia-smi.txt" 2>&1 ||
        echo "gpu-check: nvidia-smi -q failed (status $?)" >>"$out/gpu-stderr.txt"
fi

# One probe run; prints fitcheck's status. $1: the bundle's loader (bundle or system).
probe() {
    echo "== $fitcheck probe --gpu-only (loader: $1)" >>"$out/gpu-stderr.txt"
    FITCHECK_BUNDLE_LOADER="$1" timeout "$PROBE_TIMEOUT_S" "$fitcheck" probe --gpu-only \
        --output "$out/gpu-check.json" >"$out/gpu-table.txt" 2>>"$out/gpu-stderr.txt"
}
probe bundle
rc=$?
# The bundle's own loader and glibc failed to start fitcheck (status 126-127
# or a signal) or to load the driver: once more with the machine's loader.
if [ "$fitcheck" = "$root/.gpu-bundle/fitcheck" ] && [ "$rc" -ne 124 ] &&
    { [ "$rc" -ge 126 ] || grep -qs '"gpu_note": *"[^"]*NVIDIA driver not loadable' "$out/gpu-check.json"; }; then
    echo "gpu-check: with the bundle's loader fitcheck or the driver did not load (status $rc, gpu-check.json's" \
        "gpu_note); once more with the machine's own loader" >>"$out/gpu-stderr.txt"
    probe system
    rc=$?
fi
[ "$rc" -eq 124 ] && fail "fitcheck probe --gpu-only ran past ${PROBE_TIMEOUT_S} s (gpu-stderr.txt)"
[ "$rc" -ne 0 ] && fail "fitcheck probe --gpu-only failed with status $rc: $(tail -n 1 "$out/gpu-stderr.txt")"
cat "$out/gpu-table.txt"
command -v python3 >/dev/null || fail "python3 not found: the profile is in gpu-check.json, the targets are not judged"

judge "$out/gpu-check.json" 2>>"$out/gpu-stderr.txt" | tee -a "$out/gpu-table.txt"
rc=${PIPESTATUS[0]}
case "$rc" in
0|1) exit "$rc" ;;
2) fail "$(tail -n 1 "$out/gpu-table.txt")" ;;
*) fail "judging the profile failed (status $rc): $(tail -n 1 "$out/gpu-stderr.txt")" ;;
esac
