#!/usr/bin/env bash
# Predicted vs measured for llama.cpp's RPC backend over shaped links, on this
# one machine: two ggml-rpc-server processes, each in its own network
# namespace joined to the main one by a veth pair shaped with tc tbf (this
# kernel has no netem: bench/delay_relay.c adds the round trip), llama-bench
# --rpc on two models made with `fitcheck gen` (dense: llama-3.2-1b's shapes,
# 4 layers; MoE: qwen3-30b-a3b's, 2 layers), for three link settings. Per link:
#   - fitcheck probe --peer across the same link (through a relay adding
#     the same delay, one that spins), compared with the shaping: goodput
#     against the 1448/1514 of the tbf rate TCP can carry, round trip against
#     the bare veth's plus the delay;
#   - per model: llama-bench -ngl 99 -ts 1/1 -p PP -n TG -r 2 vs `fitcheck
#     plan --hw 'm=P;a=P;b=P' --link P --tensor-split 1,1 --pp PP --tg TG`, P the profile
#     holding the measured link;
#   - once per model (fastest link): the RPC buffers llama-bench -v prints vs
#     the planner's per-device memory;
#   - whether each host pays: the model on the main host alone (llama-bench
#     without --rpc), on one rpc-server and on two, against the plan's
#     per-host-count speeds (its "hosts_scaling" rows: 1, 2, 3 hosts).
# Needs root (ip netns, tc) and llama.cpp built with GGML_RPC=ON
# (LLAMA_BIN, default bench/llamacpp_build.sh's, built once). CPU is scarce:
# runs are short, and serialized with other benches under /tmp/fitcheck-bench.lock.
# Usage: bench/rpc_vs_llamacpp.sh [PP TG]   (default 64 16; REPEAT=N cycles through the
# links N times, and the summary takes medians: other agents' load moves compute by +-50%;
# CALIBRATE=0 predicts with the shipped CPU constants instead of this machine's own)
set -euo pipefail
cd "$(dirname "$0")/.."
PP=${1:-64} TG=${2:-16}
FC=${FC:-$PWD/build/fitcheck}
LLAMA_BIN=${LLAMA_BIN:-$(bench/llamacpp_build.sh)}
RPC=$LLAMA_BIN/ggml-rpc-server
[ -x "$RPC" ] || RPC=$LLAMA_BIN/rpc-server
for x in "$FC" "$RPC" "$LLAMA_BIN/llama-bench"; do [ -x "$x" ] || { echo "missing $x" >&2; exit 2; }; done
[ "$(id -u)" = 0 ] || { echo "needs root (network namespaces)" >&2; exit 2; }
work=${WORK:-$(mktemp -d /tmp/fc-rpc-bench.XXXX)}
mkdir -p "$work"
RELAY=$work/delay_relay
cc -O2 -pthread bench/delay_relay.c -o "$RELAY"
# the relays run SCHED_FIFO: on a loaded machine their wakeups would otherwise wait for a core
FIFO=(); chrt -f 20 true 2>/dev/null && FIFO=(chrt -f 20)
THREADS=1   # one thread each: two spinning threads collapse on a shared, loaded 2-core machine
# link settings: name, tbf rate, round trip to add (ms; 0 = the veth's own)
LINKS=("10gbit 0" "1gbit 0.3" "100mbit 2")   # fastest first: rpc-server -c fills its cache there
[ -n "${RPC_LINKS:-}" ] && IFS=, read -r -a LINKS <<<"$RPC_LINKS"  # e.g. RPC_LINKS="1gbit 0.3"

# This VM's idle vCPUs halt at once (haltpoll's guest_halt_poll_ns 0) and
# each wakeup then waits on the hypervisor: 30-50 us per hop, part of every
# round trip and more of it the longer a process waited (0.3 ms shaped read
# 338-372 us, 2 ms read 2107-2123 over a 9 us veth). For the run the idle
# loop polls 2 ms before it halts, as a host with deep C-states off would;
# restored on exit.
HALTPOLL=/sys/module/haltpoll/parameters
haltpoll_was=()
if [ -w $HALTPOLL/guest_halt_poll_ns ]; then
    haltpoll_was=("$(cat $HALTPOLL/guest_halt_poll_ns)" "$(cat $HALTPOLL/guest_halt_poll_allow_shrink)")
    echo N >$HALTPOLL/guest_halt_poll_allow_shrink
    echo 2000000 >$HALTPOLL/guest_halt_poll_ns
fi

pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    for n in a b; do ip netns del fcr-$n 2>/dev/null || true; ip link del fcr-h$n 2>/dev/null || true; done
    if [ ${#haltpoll_was[@]} = 2 ]; then
        echo "${haltpoll_was[0]}" >$HALTPOLL/guest_halt_poll_ns
        echo "${haltpoll_was[1]}" >$HALTPOLL/guest_halt_poll_allow_shrink
    fi
}
trap cleanup EXIT

echo "== models and this machine's profile ($work)"
[ -f "$work/dense.gguf" ] || "$FC" gen --like llama-3.2-1b --layers 4 --quant Q4_0 -o "$work/dense.gguf" | tail -1
[ -f "$work/moe.gguf" ] || "$FC" gen --like qwen3-30b-a3b --layers 2 --quant Q4_0 -o "$work/moe.gguf" | tail -1
# probed now, under the load the runs will see (other agents' load moves compute by +-50%)
flock /tmp/fitcheck-bench.lock "$FC" probe --no-gpu --force -o "$work/machine.json" >/dev/null
# every host here is this machine running one thread (rpc-server -t 1, llama-bench -t 1):
# its profile as one core sees it (one-thread read bandwidth and SGEMM)
python3 - "$work/machine.json" "$work/machine-1t.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
p.update(n_cores=1, n_threads=1, read_gbs=p["read_1t_gbs"] or p["read_gbs"], sgemm_gflops_all=p["sgemm_gflops_1t"],
         scaling=[], hostname=p["hostname"] + " (1 thread)")
json.dump(p, open(sys.argv[2], "w"), indent=1)
PY

# This machine's CPU basis, as a user would set it on a new machine: the main
# host alone (llama-bench without --rpc, both models) calibrates the CPU
# constants (fitcheck calibrate), which every plan below then uses
# (XDG_CACHE_HOME=$work/xdg). The shipped CPU constants come from another CPU
# and miss this one's compute by up to 2x; the RPC rows, every link setting
# and host count, stay out of sample: only the single-host runs are fitted.
export XDG_CACHE_HOME=$work/xdg
mkdir -p "$XDG_CACHE_HOME"
alone() { # MODEL [OUT [ARGS]]: llama-bench on the main host alone, no --rpc, into OUT-MODEL.json (bench0)
    flock /tmp/fitcheck-bench.lock "$LLAMA_BIN/llama-bench" -m "$work/$1.gguf" "${@:3}" \
        -p "$PP" -n "$TG" -r 2 -t $THREADS -o json >"$work/${2:-bench0}-$1.json" 2>/dev/null
}
# With --repack 0 runs beside the default ones: an rpc-server's CPU computes
# from plain buffers (planner/speed.c), and the pairs tell the calibration
# how much of this CPU's time is its kernels', which the default runs alone
# leave open (they fit as well with decode bound by memory).
if [ "${CALIBRATE:-1}" = 1 ]; then
    for m in dense moe; do
        alone "$m"
        alone "$m" plain0 --repack 0
    done
    "$FC" calibrate "$work"/bench0-{dense,moe}.json "$work"/plain0-{dense,moe}.json --hw "$work/machine-1t.json" | tail -3
fi

echo "== namespaces"
i=0
for n in a b; do
    i=$((i + 1))
    ip netns add fcr-$n
    ip link add fcr-h$n type veth peer name fcr-${n}0
    ip link set fcr-${n}0 netns fcr-$n
    ip addr add 10.77.$i.1/24 dev fcr-h$n
    ip link set fcr-h$n up
    ip -n fcr-$n addr add 10.77.$i.2/24 dev fcr-${n}0
    ip -n fcr-$n link set fcr-${n}0 up
    ip -n fcr-$n link set lo up
    # rpc-server -c caches tensors > 10 MiB: later loads skip the slow links
    ip netns exec fcr-$n env LLAMA_CACHE="$work/cache-$n" "$RPC" -H 10.77.$i.2 -p 50052 -t $THREADS -c \
        >"$work/rpc-$n.log" 2>&1 &
    pids+=($!)
    ip netns exec fcr-$n "$FC" serve --bind 10.77.$i.2 --port 50152 >"$work/serve-$n.log" 2>&1 &
    pids+=($!)
done
sleep 1

shape() { # rate, one-way delay ms
    local burst
    case $1 in 100mbit) burst=32kb ;; 1gbit) burst=256kb ;; *) burst=2mb ;; esac
    for n in a b; do
        tc qdisc replace dev fcr-h$n root tbf rate "$1" burst $burst latency 100ms
        tc -n fcr-$n qdisc replace dev fcr-${n}0 root tbf rate "$1" burst $burst latency 100ms
    done
}

relays=()
relay_up() { # one-way ms: relays on port +1 in each namespace, or none
    for p in "${relays[@]}"; do kill "$p" 2>/dev/null || true; done
    relays=()
    rm -f "$work"/relay-?.log
    local i=0
    for n in a b; do
        i=$((i + 1))
        # the link probe's relay spins (delay_relay.c: no wakeups of its own
        # in the round trip); the rpc-servers' sleep, two spinning would take both cores
        for port in 50052 50152; do
            spin=(); [ $port = 50152 ] && spin=(--spin)
            ip netns exec fcr-$n "${FIFO[@]}" "$RELAY" 10.77.$i.2:$((port + 1)) 10.77.$i.2:$port "$1" "${spin[@]}" \
                >>"$work/relay-$n.log" 2>&1 &
            relays+=($!)
            pids+=($!)
        done
    done
    # wait for all four to listen
    for _ in $(seq 100); do
        [ "$(cat "$work"/relay-?.log 2>/dev/null | grep -c "^relay .* $1 ms")" -ge 4 ] && break
        sleep 0.2
    done
}

results=$work/results.tsv
: >"$results"
first=1
REPEAT=${REPEAT:-1}
for cycle in $(seq "$REPEAT"); do
for L in "${LINKS[@]}"; do
    set -- $L
    rate=$1 rtt=$2
    shape "$rate"
    off=0
    prof=$work/link-$rate.json
    base=$work/link-$rate-relay0.json
    cp "$work/machine-1t.json" "$prof"
    cp "$work/machine-1t.json" "$base"
    # The shaped round trip is the bare veth's (read in the same minute, no
    # relay) plus the delay the relay adds; the relay at 0 ms shows its own cost.
    flock /tmp/fitcheck-bench.lock "$FC" probe --peer 10.77.1.2:50152 -o "$base" >/dev/null
    if [ "$rtt" != 0 ]; then
        relay_up 0
        flock /tmp/fitcheck-bench.lock "$FC" probe --peer 10.77.1.2:$((50152 + 1)) -o "$base" >/dev/null
        relay_up "$(python3 -c "print($rtt/2)")"
        off=1
    fi
    ra=10.77.1.2:$((50052 + off)) rb=10.77.2.2:$((50052 + off))
    flock /tmp/fitcheck-bench.lock "$FC" probe --peer 10.77.1.2:$((50152 + off)) -o "$prof" | head -2
    python3 - "$prof" "$rate" "$rtt" "$base" >>"$results" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
l = p["net_links"][-1]
rate = {"100mbit": 100e6, "1gbit": 1e9, "10gbit": 10e9}[sys.argv[2]]
good = rate / 8 * 1448 / 1514 / 1e9
rtt = float(sys.argv[3])
line = (f"probe\t{sys.argv[2]}+{rtt}ms\tup {l['up_gbs']/good:.3f} down {l['down_gbs']/good:.3f} of {good*8e3:.0f} Mbit/s goodput;"
        f" rtt {l['rtt_median_us']:.0f} us median ({l['rtt_p99_us']:.0f} p99) vs {rtt*1000:.0f} us added")
b = {x["peer"].rsplit(":", 1)[1]: x["rtt_median_us"] for x in json.load(open(sys.argv[4]))["net_links"]}
shaped = b["50152"] + rtt * 1000
line += f"; shaped {shaped:.0f} us (veth {b['50152']:.0f} + {rtt * 1000:.0f}): {l['rtt_median_us'] / shaped:.3f}"
if "50153" in b:
    # the spinning relay's own two socket hops, the same at every delay: part of the link as built
    line += f"; the relay at 0 ms reads {b['50153']:.0f} us, + {rtt * 1000:.0f}: {l['rtt_median_us'] / (b['50153'] + rtt * 1000):.3f}"
print(line)
PY
    tail -1 "$results"
    for m in dense moe; do
        hw="m=$prof;a=$prof;b=$prof"
        # llama-bench's pp test runs with a context of PP (its buffers are printed first)
        "$FC" plan "$work/$m.gguf" --hw "$hw" --link "$prof" --tensor-split 1,1 --pp "$PP" --tg "$TG" --ctx "$PP" --json \
            >"$work/plan-$m-$rate.json"
        v=
        [ $first = 1 ] && v=-v
        flock /tmp/fitcheck-bench.lock "$LLAMA_BIN/llama-bench" -m "$work/$m.gguf" --rpc "$ra,$rb" -ngl 99 -ts 1/1 \
            -p "$PP" -n "$TG" -r 2 -t $THREADS -o json $v >"$work/bench-$m-$rate.json" 2>"$work/bench-$m-$rate.err"
        python3 - "$work/plan-$m-$rate.json" "$work/bench-$m-$rate.json" "$work/bench-$m-$rate.err" "$m" "$rate+${rtt}ms" "$ra,$rb" \
            >>"$results" <<'PY'
import json, re, sys
plan = json.load(open(sys.argv[1]))["requested"]
bench = json.load(open(sys.argv[2]))
for b in bench:
    kind = "pp" if b["n_prompt"] else "tg"
    pred = plan["pp_tps" if kind == "pp" else "tg_tps"]
    part = plan["prefill" if kind == "pp" else "decode"]
    n = b["n_prompt"] or b["n_gen"]
    print(f"speed\t{sys.argv[4]}\t{sys.argv[5]}\t{kind}{n}\tmeasured {b['avg_ts']:.2f}\tpredicted {pred:.2f}\t"
          f"ratio {pred/b['avg_ts']:.3f}\tnet {part['net_s']*1e3:.2f} ms of {(part['net_s']+part['compute_s'])*1e3:.2f}")
# the buffers llama.cpp prints (-v) per RPC device, against the plan's
err = open(sys.argv[3], errors="replace").read()
devs = [d for d in plan["devices"] if d["device"] != "CPU"]
for i, d in enumerate(devs):
    got = {}
    for kind, key in (("model", "weights"), ("KV", "kv"), ("compute", "compute")):
        ep = re.escape(sys.argv[6].split(",")[i])  # device names repeat per server: RPC0[host:port]
        m = re.findall(rf"RPC\d+\[{ep}\][^\n]*?{kind} buffer size\s*=\s*([0-9.]+) MiB", err)
        if m:
            got[key] = float(m[0])
    if got:
        for key, v in got.items():
            p = d[key] / 1048576
            print(f"memory\t{sys.argv[4]}\tRPC{i} {key}\tllama.cpp {v:.1f} MiB\tplanned {p:.1f} MiB\tdiff {p - v:+.1f} MiB ({(p - v) / v * 100 if v else 0:+.1f}%)")
PY
        grep -P "\t$m\t$rate" "$results" | tail -2
        # does each host pay: one rpc-server (hosts m, a) here; the main host alone once (the calibration's runs)
        flock /tmp/fitcheck-bench.lock "$LLAMA_BIN/llama-bench" -m "$work/$m.gguf" --rpc "$ra" -ngl 99 \
            -p "$PP" -n "$TG" -r 2 -t $THREADS -o json >"$work/bench1-$m-$rate.json" 2>/dev/null
        [ -s "$work/bench0-$m.json" ] || alone "$m"
        python3 - "$work/plan-$m-$rate.json" "$work/bench0-$m.json" "$work/bench1-$m-$rate.json" \
            "$work/bench-$m-$rate.json" "$m" "$rate+${rtt}ms" >>"$results" <<'PY'
import json, sys
plan = json.load(open(sys.argv[1]))
rows = {h["hosts"]: h for h in plan.get("hosts_scaling", [])}
for n, path in ((1, sys.argv[2]), (2, sys.argv[3]), (3, sys.argv[4])):
    for b in json.load(open(path)):
        kind = "pp" if b["n_prompt"] else "tg"
        pred = rows.get(n, {}).get(kind + "_tps", 0)
        print(f"hosts\t{sys.argv[5]}\t{sys.argv[6]}\t{kind}\t{n}\tmeasured {b['avg_ts']:.2f}\tpredicted {pred:.2f}")
PY
        echo "load $(cut -d' ' -f1-3 /proc/loadavg)" >>"$work/load.log"
    done
    first=0
done
done
echo
echo "== results (also in $results)"
cat "$results"
python3 - "$results" <<'PY'
import re, statistics, sys
from collections import defaultdict
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
# medians over the cycles, per model, link and test
runs = defaultdict(list)
for r in rows:
    if r[0] == "speed":
        runs[(r[1], r[2], r[3])].append((float(r[4].split()[1]), float(r[5].split()[1])))
med = {k: (statistics.median(m for m, _ in v), statistics.median(p for _, p in v), len(v)) for k, v in runs.items()}
print("\nmedians: model link test measured predicted ratio (runs)")
for (m, l, t), (meas, pred, n) in sorted(med.items()):
    print(f"  {m:6s} {l:14s} {t:5s} {meas:8.2f} {pred:8.2f} {pred/meas:6.3f} ({n})")
# The network's share alone: time per token (decode) or per prompt (prefill)
# on each slower link less the same on the fastest one, measured and predicted.
# Compute cancels out as far as the load on the machine stayed the same.
for (m, l, t), (meas, pred, n) in sorted(med.items()):
    b = med.get((m, "10gbit+0ms", t))
    if not b or l.startswith("10gbit"):
        continue
    k = int(re.sub("[a-z]", "", t)) if t.startswith("pp") else 1
    dm, dp = k / meas - k / b[0], k / pred - k / b[1]
    print(f"network {m:6s} {l:14s} {t:5s} adds {dm*1e3:8.2f} ms measured, {dp*1e3:8.2f} predicted")
probes, relayed = defaultdict(list), defaultdict(list)
for r in rows:
    if r[0] == "probe":
        probes[r[1]].append(float(re.search(r"\): ([0-9.]+)", r[2]).group(1)))
        m = re.search(r"reads [0-9]+ us, \+ [0-9]+: ([0-9.]+)", r[2])
        if m:
            relayed[r[1]].append(float(m.group(1)))
for l, v in sorted(probes.items()):
    line = f"probe {l:14s} round trip / shaped (veth + delay): {statistics.median(v):.3f} ({len(v)})"
    if relayed[l]:
        line += f"; / (relay at 0 ms + delay): {statistics.median(relayed[l]):.3f}"
    print(line)
for kind in ("pp", "tg"):
    errs = [abs(p / m - 1) for (_, _, t), (m, p, _) in med.items() if t.startswith(kind)]
    if errs:
        print(f"{kind}: median |predicted/measured - 1| = {statistics.median(errs)*100:.1f}% over {len(errs)} model x link settings")
# Does each host pay: 1 host (main alone), 2 (one rpc-server), 3 (two), medians over the cycles.
hosts = defaultdict(list)
for r in rows:
    if r[0] == "hosts":
        hosts[(r[1], r[2], r[3], int(r[4]))].append((float(r[5].split()[1]), float(r[6].split()[1])))
hm = {k: (statistics.median(m for m, _ in v), statistics.median(p for _, p in v)) for k, v in hosts.items()}
same = total = wrong = 0
rel = defaultdict(list)
print("\neach host added: model link test hosts measured predicted (and against the main host alone)")
for (m, l, t, n), (meas, pred) in sorted(hm.items()):
    one = hm.get((m, l, t, 1))
    prev = hm.get((m, l, t, n - 1))
    line = f"  {m:6s} {l:14s} {t} {n} {meas:8.2f} {pred:8.2f}"
    if one and n > 1:
        line += f"   x{meas / one[0]:.2f} measured, x{pred / one[1]:.2f} predicted"
        rel[t].append(abs((pred / one[1]) / (meas / one[0]) - 1))
    if prev:
        mp, pp = meas > prev[0], pred > prev[1]
        total += 1
        same += mp == pp
        wrong += pp and not mp
        line += f"   host {n}: {'pays' if mp else 'costs'} measured, {'pays' if pp else 'costs'} predicted"
    print(line)
for t, e in sorted(rel.items()):
    print(f"{t}: median |predicted/measured - 1| of the speed relative to the main host alone = "
          f"{statistics.median(e)*100:.1f}% over {len(e)} (the machine's load cancels)")
if total:
    print(f"crossover: predicted and measured on the same side (pays / costs) for {same} of {total} hosts added")
    # The side that matters to a user: a host the plan says pays but which costs
    # is hardware bought for nothing; the other miss only leaves speed unused.
    print(f"crossover on the wrong side (predicted pays, measured costs): {wrong} of {total}")
PY
