#!/usr/bin/env bash
# fitcheck plan across hosts: a catalog cluster plans (memory per host, both
# splits, the commands), bad specs and links are exit 2 with a message that
# names the problem, and --json carries the same figures.
set -u
FC=${FITCHECK_BIN:-build/fitcheck}
fail=0
out=$("$FC" plan llama-3.1-70b --hw 'a=rtx-4090;b=apple-m2-ultra:192;c=rtx-3090' --link 10gbe 2>&1)
rc=$?
for want in "on 3 hosts over 10gbe" "llama.cpp's default split" "fastest split that fits" "dominates" \
            "ggml-rpc-server -H" "llama-server --rpc b:50052,c:50052" "per host:" \
            "each host added" "a            does not fit" "+ b" "pays: the model fits only with it"; do
    grep -qF "$want" <<<"$out" || { echo "FAIL: '$want' missing (rc $rc)"; fail=1; }
done
[ $rc -eq 0 ] || { echo "FAIL: exit $rc"; fail=1; }
# a host that fits the model alone (a's CPU), one that does not help (b), one that does (c):
# c is compared with a, the fastest that fits on fewer hosts
out=$("$FC" plan llama-3.1-70b --hw 'a=cpu-ddr5-6400-2ch:64;b=rtx-4090;c=rtx-4090' --link 10gbe 2>&1)
grep -q '^  + b  *does not fit' <<<"$out" && grep -q '^  + c .* pays: decode +[0-9]*% against the fastest with fewer hosts; pays above' <<<"$out" \
    || { echo "FAIL: each host added against the fastest that fits: $out"; fail=1; }
"$FC" plan llama-3.1-70b --hw 'a=rtx-4090;b=rtx-3090' --link 1gbit:0.3ms --tensor-split 1,2 --pp 64 --tg 16 --json >/tmp/fc-cl-$$.json || fail=1
python3 - /tmp/fc-cl-$$.json <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
r = d["requested"]
ok = d["n_prompt"] == 64 and d["n_gen"] == 16 and abs(d["link"]["rtt_us"] - 300) < 1e-6 and r["tg_tps"] > 0
ok &= len(r["tensor_split"]) == 2 and r["decode"]["round_trips"] == 1 and "fastest_split" in d or "default_split" in d
# each host added: one row per host; the last is the default split's speed
s = d["hosts_scaling"]
ok &= [x["hosts"] for x in s] == [1, 2] and s[1]["added"] == "b" and "pays" in s[1] and "pays" not in s[0]
ok &= s[1]["fits"] and abs(s[1]["tg_tps"] - d["default_split"]["tg_tps"]) < 1e-6
print("ok   json" if ok else "FAIL json")
sys.exit(0 if ok else 1)
PY
rm -f /tmp/fc-cl-$$.json
# the model too big for the one GPU of the hosts: no split of every layer fits, the message says
# how to keep layers on the main host, and with -ngl the command runs that split (not -ngl 999)
out=$("$FC" plan llama-3.1-70b --hw 'a=cpu-ddr5-6400-2ch:128;b=rtx-4090' 2>&1)
grep -qF -- "-ngl N keeps the other layers in the main host's RAM" <<<"$out" || { echo "FAIL: no -ngl hint: $out"; fail=1; }
out=$("$FC" plan llama-3.1-70b --hw 'a=cpu-ddr5-6400-2ch:128;b=rtx-4090' -ngl 40 2>&1)
grep -q '^  on a  *llama-server --rpc b:50052 .* -ngl 40 .*-ts 40$' <<<"$out" && grep -q '^as asked' <<<"$out" \
    || { echo "FAIL: -ngl 40 not in the command: $out"; fail=1; }
# --bench on several hosts: llama-bench --rpc's tests, in its formats, on the split its flags give (llama.cpp's
# default here: the plan's default_split figures), its backends as it names them with RPC; deeper is slower
plan_json=$("$FC" plan llama-3.1-70b --hw 'a=rtx-4090;b=rtx-3090' --link 10gbe --json)
bench_json=$("$FC" plan llama-3.1-70b --hw 'a=rtx-4090;b=rtx-3090' --link 10gbe --bench pp512,tg128,tg128@d8192,pp512+tg128 -o json)
python3 - "$plan_json" "$bench_json" <<'PY' || { echo "FAIL: --bench on two hosts"; fail=1; }
import json, sys
d, b = json.loads(sys.argv[1])["default_split"], json.loads(sys.argv[2])
assert [x["backends"] for x in b] == ["CUDA,RPC"] * 4, b
assert abs(b[0]["avg_ts"] - d["pp_tps"]) < 1e-3 and abs(b[1]["avg_ts"] - d["tg_tps"]) < 1e-3, (b, d)
assert b[2]["n_depth"] == 8192 and b[2]["avg_ts"] < b[1]["avg_ts"], b
# -pg: all its tokens over both phases' time, between the two
assert b[1]["avg_ts"] < b[3]["avg_ts"] < b[0]["avg_ts"], b
PY
# -ts as asked: the requested split's figures, and llama-bench's tensor_split field
ts_plan=$("$FC" plan llama-3.1-70b --hw 'a=rtx-4090;b=rtx-3090' --tensor-split 40,41 --json)
ts_bench=$("$FC" plan llama-3.1-70b --hw 'a=rtx-4090;b=rtx-3090' --tensor-split 40,41 --bench tg128 -o json)
python3 -c 'import json,sys; d, b = json.loads(sys.argv[1])["requested"], json.loads(sys.argv[2])[0]; assert b["tensor_split"] == "40.00/41.00" and abs(b["avg_ts"] - d["tg_tps"]) < 1e-3, (b, d)' "$ts_plan" "$ts_bench" ||
    { echo "FAIL: --bench with -ts on two hosts"; fail=1; }
out=$("$FC" plan llama-3.1-70b --hw 'a=cpu-ddr5-6400-2ch:128;b=rtx-4090;c=rtx-4090' --bench tg128 2>&1)
grep -q "| RPC        |  -1 |           tg128 |" <<<"$out" || { echo "FAIL: a main host without a GPU runs RPC alone: $out"; fail=1; }
for args in "--bench tg128 --pp 64|--pp/--tg set the tests of a cluster's plan" "-o json|-o FORMAT and --ctx-sweep are not made for several hosts"; do
    msg=$("$FC" plan llama-3.1-8b --hw 'a=rtx-4090;b=rtx-3090' ${args%%|*} 2>&1)
    rc=$?
    { [ $rc -eq 2 ] && grep -qF -- "${args#*|}" <<<"$msg"; } || { echo "FAIL: ${args%%|*} on two hosts: rc $rc, $msg"; fail=1; }
done
# --backend on several hosts: every host's GPUs run it (Vulkan decodes these CUDA cards at another rate);
# a GPU that cannot run it, the CPU backend and --min-tps (no recommendation here) are refused by name
cuda=$("$FC" plan llama-3.1-8b --hw 'a=rtx-4090;b=rtx-3090' --json) && vk=$("$FC" plan llama-3.1-8b --hw 'a=rtx-4090;b=rtx-3090' --backend vulkan --json) ||
    { echo "FAIL: --backend vulkan on two hosts"; fail=1; }
python3 -c 'import json,sys; a, b = (json.loads(x)["default_split"]["tg_tps"] for x in sys.argv[1:]); sys.exit(abs(a - b) < 1e-9)' "$cuda" "$vk" ||
    { echo "FAIL: --backend vulkan did not change the cluster's speed"; fail=1; }
for args in "--backend cuda|host b: --backend CUDA: llama.cpp cannot run CUDA on the Apple M2 Ultra; it runs Metal or Vulkan there" \
            "--backend cpu|--backend cpu: on several hosts each rpc-server serves its GPUs" \
            "--min-tps 20|--min-tps sets the floor of one machine's recommendation"; do
    msg=$("$FC" plan llama-3.1-8b --hw 'a=rtx-4090;b=apple-m2-ultra:192' ${args%%|*} 2>&1)
    rc=$?
    { [ $rc -eq 2 ] && grep -qF -- "${args#*|}" <<<"$msg" && ! grep -q "or --backend cpu" <<<"$msg"; } ||
        { echo "FAIL: ${args%%|*} on two hosts: rc $rc, $msg"; fail=1; }
done
while IFS='|' read -r hw link why; do
    msg=$("$FC" plan llama-3.1-8b --hw "$hw" ${link:+--link "$link"} 2>&1)
    rc=$?
    if [ $rc -eq 2 ] && grep -qF -- "$why" <<<"$msg"; then echo "ok   $hw $link: $msg"
    else echo "FAIL $hw $link: rc $rc, $msg"; fail=1; fi
done <<'EOF2'
a=rtx-4090|nonsense|a cluster needs at least two hosts
a=rtx-4090;a=rtx-3090||named twice
a=rtx-4090;b=no-such-gpu||host b
a=rtx-4090;b=rtx-3090|11gbe|--link '11gbe'
a=rtx-4090;b=rtx-3090|/nonexistent.json|nonexistent
rtx-4090|10gbe|--link needs --hw with several hosts
EOF2
# cli/ only parses and renders: the cluster's plan comes from plan_make (planner/cluster_plan.c)
if [ -n "${FITCHECK_SRC:-}" ] && grep -nE 'plan_cluster_(resolve|split|eval|llama_cmd|rpc_cmd|make)' \
        "$FITCHECK_SRC"/cli/*.c; then
    echo "FAIL: cli/ computes a cluster plan itself (above); it belongs in planner/"; fail=1
fi
exit $fail
