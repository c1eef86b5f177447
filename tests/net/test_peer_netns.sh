#!/usr/bin/env bash
# A real serve / probe --peer exchange over a veth pair between two network
# namespaces, shaped with tc tbf to 100 Mbit/s each way. TCP goodput over
# Ethernet framing is at most 1448/1514 of the shaped rate (MSS with
# timestamps over the frame tbf counts: 1500 MTU + 14 header), 95.6 Mbit/s:
# the measured figure must land within [0.85, 1.02] of that, the round trip
# under 5 ms (an unshaped veth's is tens of microseconds), and the link must
# be saved in the profile. Needs root and `ip netns` (CI runs as root).
set -u
FC=${FITCHECK_BIN:-build/fitcheck}
if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null || ! command -v tc >/dev/null; then
    echo "SKIP: needs root, ip and tc (network namespaces)"; exit 77
fi
ns=fcT$$ hv=fcTh$$ nv=fcTn$$
tmp=$(mktemp -d)
cleanup() {
    [ -n "${sp:-}" ] && kill "$sp" 2>/dev/null
    ip netns del "$ns" 2>/dev/null
    ip link del "$hv" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
if ! ip netns add "$ns" 2>"$tmp/err"; then
    echo "SKIP: network namespaces unavailable: $(cat "$tmp/err")"; exit 77
fi
net=10.$((RANDOM % 200 + 20)).$((RANDOM % 250)).
set -e
ip link add "$hv" type veth peer name "$nv"
ip link set "$nv" netns "$ns"
ip addr add "${net}1/24" dev "$hv"
ip link set "$hv" up
ip -n "$ns" addr add "${net}2/24" dev "$nv"
ip -n "$ns" link set "$nv" up
ip -n "$ns" link set lo up
tc qdisc add dev "$hv" root tbf rate 100mbit burst 32kb latency 50ms
tc -n "$ns" qdisc add dev "$nv" root tbf rate 100mbit burst 32kb latency 50ms
set +e
ip netns exec "$ns" "$FC" serve --bind "${net}2" --port 50152 >"$tmp/serve.out" 2>&1 &
sp=$!
for _ in $(seq 50); do grep -q listening "$tmp/serve.out" && break; sleep 0.1; done
fail=0
"$FC" probe --peer "${net}2:50152" -o "$tmp/prof.json" >"$tmp/probe.out" 2>&1 || { echo "FAIL: probe --peer"; cat "$tmp/probe.out"; fail=1; }
cat "$tmp/probe.out"
python3 - "$tmp/prof.json" "${net}2:50152" <<'PY' || fail=1
import json, sys
p = json.load(open(sys.argv[1]))
links = [l for l in p.get("net_links", []) if l["peer"] == sys.argv[2]]
if not links:
    print("FAIL: no link saved"); sys.exit(1)
l = links[0]
expect = 100e6 / 8 * 1448 / 1514 / 1e9
bad = 0
for k in ("up_gbs", "down_gbs"):
    r = l[k] / expect
    ok = 0.85 <= r <= 1.02
    print(("ok  " if ok else "FAIL") + f" {k} {l[k]*8e3:.1f} Mbit/s = {r:.3f} of the 95.6 Mbit/s goodput 100 Mbit/s allows")
    bad += not ok
ok = 0 < l["rtt_median_us"] < 5000 and l["rtt_p99_us"] >= l["rtt_median_us"] and l["n_pings"] >= 100
print(("ok  " if ok else "FAIL") + f" round trip {l['rtt_median_us']:.0f} us median, {l['rtt_p99_us']:.0f} us p99")
sys.exit(1 if bad or not ok else 0)
PY
# a dead peer: a clear error, exit status 2 (bad input), no hang; a bad address likewise
timeout 20 "$FC" probe --peer "${net}2:50999" -o "$tmp/prof.json" >"$tmp/dead.out" 2>&1
rc=$?
if [ $rc -eq 2 ] && grep -q 'connecting' "$tmp/dead.out"; then echo "ok   dead port: $(cat "$tmp/dead.out")"; else echo "FAIL dead port: rc $rc $(cat "$tmp/dead.out")"; fail=1; fi
for bad in 'host name!' "${net}2:0" "${net}2:65536" '[::1'; do
    "$FC" probe --peer "$bad" -o "$tmp/prof.json" >"$tmp/bad.out" 2>&1
    rc=$?
    if [ $rc -eq 2 ] && grep -q 'peer address' "$tmp/bad.out"; then echo "ok   --peer '$bad' refused"; else echo "FAIL --peer '$bad': rc $rc $(cat "$tmp/bad.out")"; fail=1; fi
done
kill -TERM "$sp"; wait "$sp"; rc=$?; sp=
if [ $rc -eq 0 ]; then echo "ok   serve stopped cleanly on SIGTERM"; else echo "FAIL serve exit $rc"; fail=1; fi
exit $fail
