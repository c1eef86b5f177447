#!/usr/bin/env python3
"""Questions people bring to fitcheck, answered through `fitcheck plan --json`
(issue 15). Each case names its whole hardware (a catalog GPU with a catalog
CPU platform, or a unified-memory machine) so the answer does not depend on the
machine the test runs on. Each expectation is argued in its comment from
published numbers or llama.cpp's behaviour; speeds are asserted as ranges wide
enough for the speed model's honest error, never as exact values.

Published figures used below (llama-bench tg128 unless said):
  - RTX 4090, Llama 3 8B Q4_K_M ~127-140 t/s, Q8_0 ~90-100 t/s (llama.cpp
    discussion #15013 tables; XiongjieDai/GPU-Benchmarks-on-LLM-Inference)
  - M2 Ultra 76c, Llama 2 7B Q4_0 ~94 t/s, Q8_0 ~66 t/s (discussion #4167)
  - 2x RTX 3090, Llama 3 70B Q4_K_M ~16-17 t/s (XiongjieDai table)
  - dual-channel DDR5-6400 moves ~80-90 GB/s at best: a 40 GB 70B Q4_K_M is
    ~2 t/s on such a CPU, whatever the core count.
Quality: perplexity increase vs F16 per model family (data/quality.csv): Llama 3
(70B scoreboard) unless a case says otherwise; Mistral-7B from Artefact2's
KL-divergence gist (2024-02-27, imatrix quants) and ikawrakow's
mistral-7b-quantized-gguf; Llama 2 from llama.cpp's Llama 2 70B scoreboard;
Qwen3-30B-A3B Q4_0 from ik_llama.cpp discussion #359.
"""
import json
import os
import subprocess
import sys
import tempfile

BIN = os.environ["FITCHECK_BIN"]
FLOOR = 10.0  # PLAN_DEFAULT_MIN_TPS

QUALITY = {"F16": 0, "BF16": 0, "Q8_0": 0.03, "Q6_K": 0.47, "Q5_K_M": 1.23, "Q5_K_S": 1.89, "Q4_K_M": 4.83}


def plan(args):
    env = dict(os.environ, XDG_CACHE_HOME=CACHE)
    p = subprocess.run([BIN, "plan", *args, "--json"], capture_output=True, text=True, env=env, timeout=120)
    return p.returncode, p.stdout, p.stderr


def rec(d):
    r = d["recommendation"]
    rows = {q["quant"]: q for q in d["quantizations"]}
    return r, rows.get(r.get("quant")), rows


CASES = []


def case(args, why, rc=0):
    """rc: the exit status the question must get (2: refused, with the reason on stderr)."""
    def deco(fn):
        CASES.append((args, why, fn, rc))
        return fn
    return deco


# 1. The classic: an 8B on a 24 GB card. F16 (15 GiB) fits, but Q8_0 is the
#    same quality (+0.03%) at nearly twice the decode speed: Q8_0, all layers.
@case(["llama-3.1-8b", "--hw", "rtx-4090,cpu-ddr5-6400-2ch:64"], "8B on a 4090")
def _(d):
    r, b, _ = rec(d)
    assert r["quant"] == "Q8_0" and b["fits"] == "GPU" and "-ngl 999" in r["llama_cpp"], r
    assert 60 <= b["speed"]["tg128_tps"] <= 140, b["speed"]


# 2. 12 GB card: Q8_0 (7.95 GiB) + 0.5 GiB KV + buffers fit in 12 GB.
@case(["llama-3.1-8b", "--hw", "rtx-3060-12gb,cpu-ddr5-6400-2ch:32"], "8B on a 3060 12 GB")
def _(d):
    r, b, _ = rec(d)
    assert r["quant"] == "Q8_0" and b["fits"] == "GPU", r


# 3. 8 GB card: Q8_0 does not fit wholly; the answer is Q8_0 or Q6_K (same
#    or nearly same quality) at interactive speed, with -ngl below all when split.
@case(["llama-3.1-8b", "--hw", "rtx-3070,cpu-ddr4-3200-2ch:32"], "8B on an 8 GB card")
def _(d):
    r, b, _ = rec(d)
    assert r["quant"] in ("Q8_0", "Q6_K") and b["speed"]["tg128_tps"] >= FLOOR, r
    if b["fits"] == "split":
        assert "-ngl 999" not in r["llama_cpp"], r


# 4. 70B on one 24 GB card + DDR5: anything above ~20 GiB spills to RAM and
#    decodes at a few t/s (bandwidth / bytes); the floor picks a type that fits
#    (almost) wholly on the card, and says which better type was too slow.
@case(["llama-3.1-70b", "--hw", "rtx-4090,cpu-ddr5-6400-2ch:64"], "70B on one 4090")
def _(d):
    r, b, _ = rec(d)
    assert b["speed"]["tg128_tps"] >= FLOOR and b["file_bytes"] < 26 * 2**30, r
    assert "would be better but decodes at" in r["reason"], r


# 5. 70B on two 3090s: Q4_K_M (39.6 GiB) fits across 2x24 GB and published
#    2x3090 Q4_K_M decode is ~16-17 t/s: the answer is on both GPUs with -ts.
@case(["llama-3.1-70b", "--hw", "rtx-3090,rtx-3090,cpu-ddr4-3200-2ch:64"], "70B on two 3090s")
def _(d):
    r, b, _ = rec(d)
    assert b["fits"] == "GPU" and "-ts " in r["llama_cpp"], r
    assert QUALITY.get(r["quant"], 99) <= 4.83, r
    assert 10 <= b["speed"]["tg128_tps"] <= 25, b["speed"]


# 6. Two 24 GB cards are not one 48 GB pool: Q8_0 (69.8 GiB) is never "GPU".
@case(["llama-3.1-70b", "--hw", "rtx-4090,rtx-4090,cpu-ddr5-6400-2ch:64"], "VRAM per card")
def _(d):
    _, _, rows = rec(d)
    assert rows["Q8_0"]["fits"] != "GPU", rows["Q8_0"]


# 7. A 70B on a 96 GB DDR5 desktop: it fits, but ~90 GB/s cannot decode 40 GB
#    of weights at 10 t/s. No recommendation, and the reason names the fastest.
@case(["llama-3.1-70b", "--hw", "cpu-ddr5-6400-2ch:96"], "70B on a CPU")
def _(d):
    r, _, rows = rec(d)
    assert "quant" not in r and "nothing decodes at 10" in r["reason"], r
    assert all((q["speed"] or {}).get("tg128_tps", 0) < FLOOR for q in rows.values()), "a row reaches the floor"


# 8. The same question with the floor off (--min-tps 0): best quality that fits.
@case(["llama-3.1-70b", "--hw", "cpu-ddr5-6400-2ch:96", "--min-tps", "0"], "70B on a CPU, no floor")
def _(d):
    r, b, _ = rec(d)
    assert r["quant"] == "Q8_0" and b["fits"] == "CPU", r


# 9. MoE on a 12 GB card with a 30 t/s floor (the case): Q2_K fits the
#    card alone (+68.7% perplexity), but with experts of some layers in RAM a
#    better type still decodes above 30 t/s (3B active parameters): the choice
#    is the better quality with --n-cpu-moe.
@case(["qwen3-30b-a3b", "--hw", "rtx-3060-12gb,cpu-ddr5-6400-2ch:64", "--min-tps", "30"], "MoE experts in RAM")
def _(d):
    r, b, _ = rec(d)
    assert r["quant"] != "Q2_K" and b["fits"] == "GPU+experts in RAM", r
    assert "--n-cpu-moe" in r["llama_cpp"] or "exps=CPU" in r["llama_cpp"], r


# 10. The same MoE on a CPU: 3B active parameters read per token make even a
#     dual-channel DDR5 box interactive (published CPU-only Qwen3-30B-A3B runs
#     are 15-30 t/s): a recommendation on the CPU.
@case(["qwen3-30b-a3b", "--hw", "cpu-ddr5-6400-2ch:64"], "MoE on a CPU")
def _(d):
    r, b, _ = rec(d)
    assert b["fits"] == "CPU" and b["speed"]["tg128_tps"] >= FLOOR and "-ngl 0" in r["llama_cpp"], r


# 11. gpt-oss is released in MXFP4: that is the answer, not a 20.7 GiB Q8_0.
@case(["gpt-oss-20b", "--hw", "rtx-4090,cpu-ddr5-6400-2ch:64"], "gpt-oss-20b native format")
def _(d):
    r, b, rows = rec(d)
    assert r["quant"] == "MXFP4_MOE" and b["native"] and b["fits"] == "GPU", r
    assert "re-quantized" in rows["Q8_0"]["why"], rows["Q8_0"]


# 12. gpt-oss-120b (59 GiB) on a 24 GB card + 128 GB RAM: MXFP4 with experts in RAM.
@case(["gpt-oss-120b", "--hw", "rtx-4090,cpu-ddr5-6400-2ch:128"], "gpt-oss-120b, experts in RAM")
def _(d):
    r, b, _ = rec(d)
    assert r["quant"] == "MXFP4_MOE" and b["fits"] == "GPU+experts in RAM", r


# 13. The contradiction the issue saw: a placement that does not fit has no speed.
@case(["gpt-oss-120b", "--hw", "rtx-4090,cpu-ddr5-6400-2ch:32", "--ngl", "all"], "no speed without a fit")
def _(d):
    if d["verdict"] == "does not fit":
        assert d["speed"] is None and "does not fit" in d["speed_note"], d["speed_note"]
    else:
        assert d["speed"] is not None


# 14. An 80 GB H100 holds gpt-oss-120b (59 GiB + KV) wholly.
@case(["gpt-oss-120b", "--hw", "h100-sxm,amd-epyc-9004:384"], "gpt-oss-120b on an H100")
def _(d):
    r, b, _ = rec(d)
    assert r["quant"] == "MXFP4_MOE" and b["fits"] == "GPU", r


# 15. A 405B over four H100s: split evenly with -ts, on the GPUs.
@case(["llama-3.1-405b", "--hw", "h100-sxm,h100-sxm,h100-sxm,h100-sxm,amd-epyc-9004:768"], "405B on 4 H100s")
def _(d):
    r, b, _ = rec(d)
    assert b["fits"] == "GPU" and "-ts " in r["llama_cpp"], r


# 16. Apple M2 Ultra 192 GB: a 70B fits in unified memory; published M2 Ultra
#     decode for 70B Q4 is ~12-14 t/s, Q8_0 ~7-8: the floor lands in between.
@case(["llama-3.1-70b", "--hw", "apple-m2-ultra:192"], "70B on an M2 Ultra")
def _(d):
    r, b, _ = rec(d)
    assert b["fits"] == "GPU" and r["quant"] != "Q8_0" and b["speed"]["tg128_tps"] >= FLOOR, r


# 17. An 8 GB M1: the GPU may use about 2/3 of RAM; an 8B Q8_0 (8 GiB) does not fit.
@case(["llama-3.1-8b", "--hw", "apple-m1:8"], "8B on an 8 GB M1")
def _(d):
    _, _, rows = rec(d)
    assert rows["Q8_0"]["fits"] != "GPU", rows["Q8_0"]


# 18. Long context: 128k tokens of f16 KV for Llama 3.1 8B is 16 GiB.
@case(["llama-3.1-8b", "--hw", "rtx-4090,cpu-ddr5-6400-2ch:64", "--ctx", "131072"], "8B at 128k context")
def _(d):
    assert d["settings"]["kv_bytes"] == 32 * 131072 * 8 * 128 * 2 * 2, d["settings"]


# 19. ... and a q8_0 KV cache halves it (34/32 bytes per element), so Q8_0
#     weights fit on the card again: the command carries -ctk/-ctv q8_0.
@case(["llama-3.1-8b", "--hw", "rtx-4090,cpu-ddr5-6400-2ch:64", "--ctx", "131072", "--kv", "q8_0"], "q8_0 KV cache")
def _(d):
    r, b, _ = rec(d)
    assert b["fits"] == "GPU" and "-ctk q8_0 -ctv q8_0" in r["llama_cpp"], r
    assert d["settings"]["kv_bytes"] == 32 * 131072 * 8 * 128 * 2 * 34 // 32, d["settings"]


# 20. The context beyond the training context is said, not hidden.
@case(["llama-3.1-8b", "--hw", "rtx-4090,cpu-ddr5-6400-2ch:64", "--ctx", "262144", "--kv", "q4_0"], "beyond training ctx")
def _(d):
    assert any("trained on" in n for n in d["notes"]), d["notes"]


# 21. Parallel sequences and a bigger ubatch reach the command.
@case(["llama-3.1-8b", "--hw", "rtx-4090,cpu-ddr5-6400-2ch:64", "--parallel", "4", "--ubatch", "1024"], "server flags")
def _(d):
    r, _, _ = rec(d)
    assert "-np 4" in r["llama_cpp"] and "-ub 1024" in r["llama_cpp"], r


# 22. A 7B on Intel's 12 GB B580: Q8_0 fits.
@case(["mistral-7b", "--hw", "arc-b580,cpu-ddr4-3200-2ch:32"], "7B on an Arc B580")
def _(d):
    r, b, _ = rec(d)
    assert r["quant"] == "Q8_0" and b["fits"] == "GPU", r


# 23. DeepSeek-V3 (671B MoE, 37B active) on a 768 GB 12-channel EPYC: fits in
#     RAM at Q8_0 (~665 GiB); published CPU-only runs are ~6-15 t/s.
@case(["deepseek-v3", "--hw", "amd-epyc-9005:768", "--min-tps", "0"], "DeepSeek-V3 on an EPYC")
def _(d):
    r, b, _ = rec(d)
    assert b["fits"] == "CPU" and r["quant"] == "Q8_0", r


# 24. Qwen3 publishes one figure of its own (Qwen3-30B-A3B Q4_0: PPL 9.3017 vs
#     bf16 9.0656, +2.60%, ik_llama.cpp discussion #359); every other type is
#     borrowed and scaled down: Llama 3 loses +12.8% at Q4_0, so Qwen3's are
#     about a fifth of Llama 3's. F16/BF16 are the reference, never borrowed.
@case(["qwen3-30b-a3b", "--hw", "cpu-ddr5-6400-2ch:64"], "borrowed quality")
def _(d):
    rows = {q["quant"]: q for q in d["quantizations"]}
    assert rows["Q4_0"]["ppl_increase_pct"] == 2.60 and not rows["Q4_0"]["quality_borrowed"], rows["Q4_0"]
    lent = [q for k, q in rows.items() if k not in ("F16", "BF16", "Q4_0")]
    assert all(q["quality_borrowed"] and q["quality_scale"] < 1 for q in lent), "Qwen3 borrowed figures not marked"
    assert "Llama-3" in d["recommendation"]["quality_note"], d["recommendation"]


# 25. ... and a Llama 3 model's are its own.
@case(["llama-3.1-8b", "--hw", "rtx-4090,cpu-ddr5-6400-2ch:64"], "own quality")
def _(d):
    assert not any(q["quality_borrowed"] for q in d["quantizations"])


# 26. Every row of every answer says why.
@case(["llama-3.1-70b", "--hw", "rtx-4090,cpu-ddr5-6400-2ch:64"], "every row has a reason")
def _(d):
    assert all(q["why"] for q in d["quantizations"]), [q["quant"] for q in d["quantizations"] if not q["why"]]


# 27. A runner-up is named when one exists.
@case(["llama-3.1-8b", "--hw", "rtx-4090,cpu-ddr5-6400-2ch:64"], "runner-up")
def _(d):
    r, _, rows = rec(d)
    assert r["runner_up"] and "runner-up" in rows[r["runner_up"]]["why"], r


# 28. Mistral's own figures change the answer. Mistral-Small-24B on 16 GB of
#     DDR4 at 16k context, no floor: Q4_K_M (13.3 GiB + 2.5 GiB of KV) does not
#     fit, Q4_K_S and IQ4_NL (12.5-12.6 GiB) do. On Llama 3 Q4_K_S is the better
#     (+6.15% vs +6.90%); on Mistral-7B with an imatrix IQ4_NL is (Artefact2:
#     ln PPL ratio 0.0074 vs 0.0081, i.e. +0.74% vs +0.81%): IQ4_NL.
@case(["mistral-small-24b", "--hw", "cpu-ddr4-3200-2ch:16", "--ctx", "16384", "--min-tps", "0"], "Mistral's own figures")
def _(d):
    r, b, rows = rec(d)
    assert rows["Q4_K_M"]["fits"] == "does not fit" and rows["Q4_K_S"]["fits"] == "CPU", rows["Q4_K_M"]
    assert r["quant"] == "IQ4_NL" and b["quality_from"] == "Mistral" and not b["quality_borrowed"], r


# 29. ... and its label. Mistral-7B on a B580 stays Q8_0: Q6_K is not published
#     for Mistral, so its figure is Llama 3's +0.47% scaled to Mistral (~1/6):
#     an estimate, which never makes a type count as lossless (the 0.1% rule
#     needs a measured figure). Q4_K_M is Mistral's own (+0.59%).
@case(["mistral-7b", "--hw", "arc-b580,cpu-ddr4-3200-2ch:32"], "Mistral labels")
def _(d):
    r, _, rows = rec(d)
    assert r["quant"] == "Q8_0", r
    assert rows["Q4_K_M"]["ppl_increase_pct"] == 0.59 and rows["Q4_K_M"]["quality_from"] == "Mistral", rows["Q4_K_M"]
    q6 = rows["Q6_K"]
    assert q6["quality_borrowed"] and q6["quality_from"] == "Llama-3" and q6["quality_scale"] < 0.5, q6
    assert rows["Q5_K_S"]["ppl_increase_pct"] > q6["ppl_increase_pct"] > rows["Q8_0"]["ppl_increase_pct"], rows


# 30. Llama 2 has its own table (llama.cpp's Llama 2 70B scoreboard: Q4_K_M
#     +1.20%, Q6_K +0.16%), not Llama 3's (+4.83%, +0.47%).
@case(["llama-2-70b", "--hw", "rtx-3090,rtx-3090,cpu-ddr4-3200-2ch:64"], "Llama 2's own figures")
def _(d):
    _, _, rows = rec(d)
    for q, pct in (("Q4_K_M", 1.20), ("Q6_K", 0.16)):
        assert rows[q]["ppl_increase_pct"] == pct and rows[q]["quality_from"] == "Llama-2", rows[q]
        assert not rows[q]["quality_borrowed"], rows[q]


# 31. A requested placement that pages (issue 15): Llama 3.1 70B Q4_K_M (39.6 GiB)
#     on 32 GB of DDR5 with --no-repack keeps 1.6 GiB resident and maps the
#     weights, so it runs ("fits, pages from disk"), but ~9.2 GiB of the mapped
#     weights are re-read from storage for every token. At the documented 3.5 GB/s
#     (no disk measured for a catalog platform) that alone is >= 2.6 s a token:
#     decode must be <= 3.5e9 / paged bytes, and slower than the same placement
#     on 64 GB, where everything stays in RAM. The note says so, with the speed.
@case(["llama-3.1-70b", "--quant", "Q4_K_M", "--hw", "cpu-ddr5-6400-2ch:32", "--no-repack"], "paged: disk bounds decode")
def _(d):
    assert d["verdict"] == "fits, pages from disk", d["verdict"]
    sp = d["speed"]
    assert sp["storage_assumed"] and sp["storage_gbs"] == 3.5, sp
    assert 8 * 2**30 < sp["paged_bytes_per_token"] < 10 * 2**30, sp
    assert sp["tg128_tps"] <= sp["storage_gbs"] * 1e9 / sp["paged_bytes_per_token"], sp
    assert sp["tg128_at_depth_tps"] <= sp["tg128_tps"], sp
    rc, out, err = plan(["llama-3.1-70b", "--quant", "Q4_K_M", "--hw", "cpu-ddr5-6400-2ch:64", "--no-repack"])
    ram = json.loads(out)
    assert rc == 0 and ram["verdict"] == "fits" and ram["speed"]["paged_bytes_per_token"] == 0, ram["verdict"]
    assert sp["tg128_tps"] < 0.5 * ram["speed"]["tg128_tps"], (sp, ram["speed"])
    assert any("read again from storage" in n and "assumed" in n for n in d["notes"]), d["notes"]


# 32. A Mac cannot drive a CUDA card (Apple silicon has no eGPU support, and
#     NVIDIA ships no macOS driver since CUDA 10.2): refused, naming both.
@case(["llama-3.1-8b", "--hw", "apple-m2-ultra:64,rtx-4090"], "Mac with a CUDA card", rc=2)
def _(err):
    assert "apple-m2-ultra" in err and "rtx-4090" in err, err


# 33. --cpu-moe with gpt-oss-120b: the experts (most of the 59 GiB file) go to
#     RAM, the rest to the card. The host holds at most the file plus its
#     buffers (the issue saw 114 GiB on the host for a 59 GiB file): the two
#     devices together hold about the file, not twice it.
@case(["gpt-oss-120b", "--hw", "rtx-4090,cpu-ddr5-6400-2ch:128", "--cpu-moe"], "--cpu-moe host bytes")
def _(d):
    host = [x for x in d["devices"] if x["device"] == "cpu-ddr5-6400-2ch"][0]
    file_b = d["model"]["file_bytes"]
    assert d["verdict"] == "fits" and host["weights_bytes"] < file_b, (host, file_b)
    assert sum(x["weights_bytes"] for x in d["devices"]) < 1.1 * file_b, d["devices"]


# 34. A machine without a GPU is never told to use fewer --ngl: a 70B Q4_K_M
#     (41 GiB with its KV) on 32 GB of RAM does not fit, and the advice, in
#     the JSON as on the terminal, names only what can change it here.
@case(["llama-3.1-70b", "--quant", "Q4_K_M", "--hw", "cpu-ddr5-6400-2ch:32"], "advice without a GPU")
def _(d):
    assert d["verdict"] == "does not fit" and "--quant" in d["verdict_advice"], d["verdict_advice"]
    assert "ngl" not in d["verdict_advice"], d["verdict_advice"]


# 35. llama.cpp allocates a GPU compute buffer even at -ngl 0 (its load log:
#     ~1.1 GiB ROCm0 compute buffer for Qwen3-14B Q8_0 at 4096, from a build
#     that reserved every token's logits): the card's row is not zero. Its
#     biggest part is the copy of output.weight (788 MiB), which today's
#     llama-server (one logits row, PR #23861) still makes: 0.7-1.5 GiB.
@case(["qwen3-14b", "--quant", "Q8_0", "--hw", "rx-7900-xtx,cpu-ddr5-6400-2ch:64", "--ngl", "0"], "GPU buffer at -ngl 0")
def _(d):
    gpu = d["devices"][0]
    assert gpu["weights_bytes"] == 0 and 0.7 * 2**30 < gpu["compute_bytes"] < 1.5 * 2**30, gpu


# 36. Metal maps the whole file into the GPU buffer (llama.cpp's load log for
#     gpt-oss-20b: 11536 MiB Metal, 587 MiB CPU): the GPU row counts ~11.5 GiB
#     of weights, within 2% of the log.
@case(["gpt-oss-20b", "--hw", "apple-m2-max:64"], "Metal maps the file")
def _(d):
    gpu = d["devices"][0]
    assert abs(gpu["weights_bytes"] / 2**20 - 11536) < 0.02 * 11536, gpu


# 37. --hw all honours the floor: every device ranked before the first one
#     below the floor decodes at or above it, and none below it comes first.
@case(["llama-3.1-8b", "--hw", "all", "--min-tps", "50"], "--hw all honours --min-tps")
def _(d):
    rows = d["hardware"]
    assert d["min_tps"] == 50 and rows, d.keys()
    flags = [x["below_floor"] for x in rows if x["speed"]]
    assert flags == sorted(flags), "a device below the floor ranked above one that reaches it"
    assert all(x["speed"]["tg128_tps"] >= 50 for x in rows if x["speed"] and not x["below_floor"]), rows[:3]
    assert any(not f for f in flags) and any(flags), flags



# 38. A data-center CUDA card, a kind no corpus result was fitted on, gets its prefill caveat; a GeForce card
#     of the fitted kind does not (planner/plan.c, docs/speed-model.md).
@case(["llama-3.1-8b", "--hw", "a100-80gb-sxm"], "data-center CUDA caveat")
def _(d):
    said = [n for n in d["notes"] if "CUDA cores" in n]
    assert len(said) == 1 and "a100-80gb-sxm" in said[0] and "6%" in said[0], d["notes"]


@case(["llama-3.1-8b", "--hw", "rtx-4090,cpu-ddr5-6400-2ch:64"], "no caveat on a fitted kind of card")
def _(d):
    assert not any("CUDA cores" in n for n in d["notes"]), d["notes"]


@case(["llama-3.1-8b", "--hw", "all"], "--hw all marks the data-center CUDA prefill")
def _(d):
    flag = {x["device"]: x["prefill_unvalidated"] for x in d["hardware"]}
    assert flag["a100-80gb-sxm"] and flag["h100-sxm"], flag
    assert not flag["rtx-4090"] and not flag["l40s"] and not flag["apple-m2-ultra"], flag

def main():
    passed = failed = 0
    for args, why, check, want_rc in CASES:
        rc, out, err = plan(args)
        try:
            assert rc == want_rc, f"exit {rc} (want {want_rc}): {err.strip()}"
            check(json.loads(out) if want_rc == 0 else err)
            passed += 1
        except Exception as e:  # one line per failed question
            failed += 1
            print(f"FAIL: {why} ({' '.join(args)}): {type(e).__name__}: {e}")
    print(f"scenarios: {passed} passed, {failed} failed")
    return 1 if failed or passed < 25 else 0


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as CACHE:
        sys.exit(main())
