#!/usr/bin/env bash
# fitcheck probe against likwid-bench on the same thread count, five times.
# Prints, per run, fitcheck's all-core DRAM read / copy / triad and likwid's
# load / copy_mem / stream_mem (the same a = b + s*c as STREAM's and our triad)
# plus triad_mem (likwid's 4-stream a = b*c + d, for reference) and
# non-temporal write against likwid's store_mem, the ratios,
# and at the end the median ratio and the run-to-run spread of each figure.
# Targets (issue 3): read >= 1.00x likwid load; copy and triad within 3%;
# each figure within 3% across the runs.
#
# Usage: bench/probe_vs_likwid.sh [RUNS] [THREADS]   (defaults: 5, all cores)
# Holds /tmp/fitcheck-bench.lock throughout so no other benchmark overlaps.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
bin=${FITCHECK_BIN:-build/fitcheck}
command -v likwid-bench >/dev/null || { echo "likwid-bench not found: scripts/setup.sh --bench installs it" >&2; exit 1; }
[ -x "$bin" ] || { echo "$bin not built (scripts/setup.sh)" >&2; exit 1; }
threads=${2:-$(lscpu -p=CORE 2>/dev/null | grep -v '^#' | sort -u | wc -l)}
# likwid's working set: 1 GB over all arrays, far beyond any last-level cache here.
size=1GB
isa=avx
grep -qw avx512f /proc/cpuinfo && isa=avx512

exec 9>/tmp/fitcheck-bench.lock
flock 9

tmp=$(mktemp -d /tmp/fc-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

likwid() { # kernel -> GB/s (likwid prints MByte/s, 1e6 bytes)
    local out
    if ! out=$(likwid-bench -t "$1" -w "S0:$size:$threads" 2>&1); then
        echo "likwid-bench -t $1 failed:" >&2
        echo "$out" | tail -5 >&2
        exit 1
    fi
    echo "$out" | awk '/^MByte\/s:/ {printf "%.2f\n", $2 / 1000}'
}

printf "%d run(s), %d thread(s), likwid kernels *_%s, fitcheck %s\n" "$runs" "$threads" "$isa" "$("$bin" --version)"
printf "%-4s %23s   %23s   %8s %15s   %s\n" run "fitcheck read/copy/triad" "likwid load/copy/stream" triad_mem "write/store_mem" \
    "ratios read copy triad write"
for r in $(seq 1 "$runs"); do
    "$bin" probe --no-gpu --force -t "$threads" -o "$tmp/p$r.json" >/dev/null
    read -r fr fc ft fw < <(python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))
print(p["read_gbs"], p["copy_gbs"], p["triad_gbs"], p["write_gbs"])' "$tmp/p$r.json")
    lr=$(likwid "load_$isa")
    lc=$(likwid "copy_mem_$isa")
    ls=$(likwid "stream_mem_$isa")
    lt=$(likwid "triad_mem_$isa")
    lw=$(likwid "store_mem_$isa")
    echo "$r $fr $fc $ft $fw $lr $lc $ls $lw" >>"$tmp/all"
    awk -v r="$r" -v fr="$fr" -v fc="$fc" -v ft="$ft" -v fw="$fw" -v lr="$lr" -v lc="$lc" -v ls="$ls" -v lt="$lt" \
        -v lw="$lw" 'BEGIN {
        printf "%-4s %7.1f %7.1f %7.1f   %7.1f %7.1f %7.1f   %8.1f %7.1f/%-7.1f   %.3f %.3f %.3f %.3f\n",
               r, fr, fc, ft, lr, lc, ls, lt, fw, lw, fr / lr, fc / lc, ft / ls, fw / lw }'
done
python3 - "$tmp/all" <<'PY'
import statistics, sys
rows = [list(map(float, l.split()[1:])) for l in open(sys.argv[1])]
cols = list(zip(*rows))
names = ["fitcheck read", "fitcheck copy", "fitcheck triad", "fitcheck write",
         "likwid load", "likwid copy", "likwid stream", "likwid store"]
print("\nmedian ratio fitcheck/likwid: read %.3f (target >= 1.00), copy %.3f, triad %.3f (targets 0.97..1.03), "
      "write %.3f" % tuple(statistics.median(a / b for a, b in zip(cols[i], cols[i + 4])) for i in range(4)))
print("run-to-run spread (max-min)/median, target <= 3%:")
for name, c in zip(names, cols):
    print("  %-15s %5.1f%%  (median %.1f GB/s)" % (name, 100 * (max(c) - min(c)) / statistics.median(c), statistics.median(c)))
PY
