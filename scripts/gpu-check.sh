#!/usr/bin/env bash
# The one prepared check for a machine with an NVIDIA GPU: builds fitcheck
# (scripts/setup.sh apt-gets what is missing; nvcc is used when found),
# runs the full probe (a few seconds of CPU measurements first), and prints per GPU a short
# table: VRAM total/free, read and copy bandwidth, pinned and pageable H2D and
# D2H, launch latency, fp16/bf16 tensor throughput, the PCIe link, and the
# targets: read >= 81% of the datasheet bandwidth, pinned transfers >= 90% of
# the link's theoretical per-direction bandwidth.
# Usage: scripts/gpu-check.sh [OUT.json]   (default: gpu-check.json)
# Exit status: 0 when every GPU met both targets, 1 otherwise or on failure.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-gpu-check.json}"

# nvcc compiles the kernels to PTX at build time when it is on the PATH
[ -d /usr/local/cuda/bin ] && export PATH="$PATH:/usr/local/cuda/bin"
scripts/setup.sh

./build/fitcheck probe --output "$out" >/dev/null
python3 - "$out" <<'EOF'
import json, sys

# Datasheet memory bandwidth (GB/s) by name, where the driver's clock x width
# is known to differ from the marketing figure; otherwise that product is used.
DATASHEET_GBS = {"H200": 4800.0, "H100 SXM": 3350.0, "H100 PCIe": 2000.0, "A100-SXM4-80GB": 2039.0}
READ_TARGET, PINNED_TARGET = 0.81, 0.90

p = json.load(open(sys.argv[1]))
print(f"machine {p.get('hostname', '?')}: {p.get('gpu_note') or 'GPU probe ran'}")
ok = True
gpus = [g for g in p.get("gpus", []) if g.get("api") == "cuda"]
if not gpus:
    print("no CUDA GPU measured")
    sys.exit(1)
for i, g in enumerate(gpus):
    sheet = next((v for k, v in DATASHEET_GBS.items() if k in g["name"]), g["theoretical_gbs"])
    link = g["link"]
    gen, width = (link["gen_loaded"], link["width_loaded"]) if link["gen_loaded"] else (link["gen_max"], link["width_max"])
    lane = {1: 0.25, 2: 0.5, 3: 0.985, 4: 1.97, 5: 3.94, 6: 7.56}.get(gen, 0.0)
    link_gbs = lane * width
    gib = 1024 ** 3
    rows = [
        ("GPU", f"{g['name']} {g['pci_bus_id']} sm_{g['cc_major']}{g['cc_minor']}, {g['compute_units']} SMs, NUMA node {g['numa_node']}"),
        ("VRAM total / free", f"{g['vram_total'] / gib:.1f} / {g['vram_free'] / gib:.1f} GiB"),
        ("read", f"{g['read_gbs']:.0f} GB/s = {100 * g['read_gbs'] / sheet:.0f}% of datasheet {sheet:.0f} (target {READ_TARGET:.0%})" if sheet else f"{g['read_gbs']:.0f} GB/s"),
        ("device copy", f"{g['copy_gbs']:.0f} GB/s (bytes counted once)"),
        ("H2D pinned / pageable", f"{g['h2d_pinned_gbs']:.1f} / {g['h2d_pageable_gbs']:.1f} GB/s"),
        ("D2H pinned / pageable", f"{g['d2h_pinned_gbs']:.1f} / {g['d2h_pageable_gbs']:.1f} GB/s"),
        ("PCIe link", f"gen{link['gen_max']} x{link['width_max']} capable, idle gen{link['gen_cur']} x{link['width_cur']}, "
                      f"loaded gen{link['gen_loaded']} x{link['width_loaded']} [{link['source']}]: {link_gbs:.1f} GB/s per direction"),
        ("launch latency", f"{g['launch_us']:.2f} us"),
        ("fp32 FMA", f"{g['fp32_tflops']:.1f} TFLOPS"),
        ("fp16 / bf16 mma.sync", f"{g['fp16_tflops']:.0f} / {g['bf16_tflops']:.0f} TFLOPS"),
    ]
    if g.get("note"):
        rows.append(("note", g["note"]))
    print(f"\n#{i}")
    for k, v in rows:
        print(f"  {k:24s} {v}")
    read_ok = sheet > 0 and g["read_gbs"] >= READ_TARGET * sheet
    pinned = min(g["h2d_pinned_gbs"], g["d2h_pinned_gbs"])
    pinned_ok = link_gbs > 0 and pinned >= PINNED_TARGET * link_gbs
    print(f"  {'targets':24s} read {'MET' if read_ok else 'MISSED'}, pinned "
          f"{'MET' if pinned_ok else 'MISSED'} ({100 * pinned / link_gbs if link_gbs else 0:.0f}% of link)")
    ok = ok and read_ok and pinned_ok
sys.exit(0 if ok else 1)
EOF
