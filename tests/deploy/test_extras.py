#!/usr/bin/env python3
"""What loads next to the model (plan --mmproj, --lora, --draft) and Apple's GPU
wired limit, on real files: the real SmolLM2 and Gemma 3 models, a vision
projector and LoRA adapters written by `fitcheck gen` with the shapes llama.cpp's
converters write (SmolVLM-256M's mmproj; PEFT LoRAs on q/k/v/o/MLP), which
llama.cpp itself loads (docs/planner-memory.md compares its logs). Bad inputs:
exit 2, a message naming the file, nothing on stdout, nothing written."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, finish  # noqa: E402
import gguf_split  # noqa: E402

BIN = os.environ["FITCHECK_BIN"]
MODELS = os.environ.get("FITCHECK_MODELS", "")
SMOL = os.path.join(MODELS, "SmolLM2-135M-Instruct.Q4_1.gguf")
GEMMA = os.path.join(MODELS, "gemma-3-270m-q4_k_m.gguf")
if not all(os.path.isfile(m) for m in (SMOL, GEMMA)):
    print("real models not found in FITCHECK_MODELS: skipping")
    sys.exit(77)
MIB, GIB = 1 << 20, 1 << 30

work = tempfile.mkdtemp(prefix="fc_extras.")
files = os.path.join(work, "files")
home = os.path.join(work, "home")
os.mkdir(files)
os.mkdir(home)
ENV = dict(os.environ, HOME=home, XDG_CACHE_HOME=os.path.join(home, ".cache"))


def run(*args):
    return subprocess.run([BIN, *args], capture_output=True, text=True, cwd=home, env=ENV, timeout=300)


def gen(*args):
    p = run("gen", *args)
    assert p.returncode == 0, p.stderr
    shutil.rmtree(os.path.join(home, ".cache"), ignore_errors=True)


def plan(*args):
    p = run("plan", *args, "--json")
    assert p.returncode == 0, f"plan {args}: {p.stderr}"
    shutil.rmtree(os.path.join(home, ".cache"), ignore_errors=True)
    return json.loads(p.stdout)


def tensor_bytes(path):
    return sum(len(t[3]) for t in gguf_split.read(path)[1])


def bad(args, words, what):
    p = run(*args)
    msg = p.stderr.strip()
    ok = p.returncode == 2 and all(w.lower() in msg.lower() for w in words) and not p.stdout.strip()
    check(ok and os.listdir(home) == [], f"{what}: exit {p.returncode}: {msg}")


try:
    mmproj = os.path.join(files, "mmproj-SmolVLM-256M-Instruct-f16.gguf")
    lora = os.path.join(files, "lora-smol.gguf")
    lora_1b = os.path.join(files, "lora-llama-3.2-1b.gguf")
    lora_gemma = os.path.join(files, "lora-gemma.gguf")
    gen("--mmproj", "smolvlm-256m", "-o", mmproj)
    gen("--lora-for", SMOL, "--rank", "8", "-o", lora)
    gen("--lora-for", "llama-3.2-1b", "-o", lora_1b)
    gen("--lora-for", GEMMA, "-o", lora_gemma)

    # --mmproj: weights are the file's tensors; one 512x512 image's compute is what
    # llama.cpp's reserve_compute_meta printed for this projector: 21.00 MiB with
    # flash attention, 60.00 MiB without (ours 66: docs/planner-memory.md).
    base = plan(SMOL, "--hw", "rtx-4090")
    d = plan(SMOL, "--hw", "rtx-4090", "--mmproj", mmproj)
    mm = d["extras"]["mmproj"]
    check(mm["weight_bytes"] == tensor_bytes(mmproj), f"mmproj weights = its tensors: {mm['weight_bytes']}")
    check(abs(mm["weight_bytes"] / MIB - 181.22) < 0.005, "mmproj weights = llama.cpp's 'model size: 181.22 MiB'")
    check(mm["compute_bytes"] == 21 * MIB and mm["positions"] == 1024, f"one image, FA on: {mm['compute_bytes']}")
    check(mm["device"] == "rtx-4090" and mm["offload"], "the projector goes to the first GPU")
    g, g0 = d["devices"][0], base["devices"][0]
    check(g["mmproj_bytes"] == mm["weight_bytes"] + mm["compute_bytes"], "the GPU carries weights + compute")
    check(g["total_bytes"] - g0["total_bytes"] == g["mmproj_bytes"], "and its total grows by exactly that")
    check(d["devices"][1]["total_bytes"] == base["devices"][1]["total_bytes"], "the host's does not")
    check(f"--mmproj {mmproj}" in d["llama_cpp"], f"command: {d['llama_cpp']}")
    off = plan(SMOL, "--hw", "rtx-4090", "--mmproj", mmproj, "--fa", "off")
    c = off["extras"]["mmproj"]["compute_bytes"]
    check(60 * MIB <= c <= 66 * MIB, f"one image, FA off: llama.cpp's 60 MiB (48 of scores), never less: {c / MIB}")
    cpu = plan(SMOL, "--hw", "rtx-4090", "--mmproj", mmproj, "--no-mmproj-offload")
    check(cpu["devices"][1]["mmproj_bytes"] == g["mmproj_bytes"] and cpu["devices"][0]["mmproj_bytes"] == 0,
          "--no-mmproj-offload: on the host")
    check("--no-mmproj-offload" in cpu["llama_cpp"], "and the command says so")
    text = run("plan", SMOL, "--hw", "rtx-4090", "--mmproj", mmproj).stdout
    check("one 512x512 image (1024 positions) 21.0 MiB" in text and "--mmproj" in text, "text shows the projector")

    # --lora: pairs go where the layers they adapt are.
    lb = tensor_bytes(lora)
    d = plan(SMOL, "--hw", "rtx-4090", "--lora", lora)
    check(d["extras"]["lora"][0]["bytes"] == lb and d["extras"]["lora"][0]["rank"] == 8, f"LoRA bytes {lb}")
    check(d["devices"][0]["lora_bytes"] == lb and d["devices"][1]["lora_bytes"] == 0, "all layers on the GPU")
    h = plan(SMOL, "--hw", "rtx-4090", "--lora", lora, "--ngl", "0")
    check(h["devices"][1]["lora_bytes"] == lb and h["devices"][0]["lora_bytes"] == 0, "-ngl 0: on the host")
    s = plan(SMOL, "--hw", "rtx-4090", "--lora", lora, "--ngl", "16")
    per_layer = lb // 30  # SmolLM2: 30 layers, each adapted alike
    check(s["devices"][0]["lora_bytes"] == 15 * per_layer and s["devices"][1]["lora_bytes"] == 15 * per_layer,
          f"-ngl 16 (15 layers + output): split by layer {s['devices'][0]['lora_bytes']}")
    two = plan(SMOL, "--hw", "rtx-4090", "--lora", lora, "--lora", lora)
    check(two["devices"][0]["lora_bytes"] == 2 * lb, "two adapters")
    check(f"--lora {lora} --lora {lora}" in two["llama_cpp"], "both in the command")

    # --draft: the draft's memory on its devices, the speed-up table.
    d = plan(SMOL, "--hw", "rtx-4090", "--draft", SMOL)
    g = d["devices"][0]
    check(g["draft_bytes"] >= g0["weights_bytes"] + g0["kv_bytes"], f"the draft's weights and KV on the GPU: {g['draft_bytes']}")
    check(g["total_bytes"] - g0["total_bytes"] == g["draft_bytes"], "its total grows by the draft")
    sp = d["speculative"]
    check(len(sp["table"]) == 25, "5 acceptance rates x 5 draft lengths")
    ok = True
    for row in sp["table"]:
        a, k = row["acceptance"], row["n_draft"]
        tokens = (1 - a ** (k + 1)) / (1 - a)
        ok &= abs(row["tps"] - tokens / (k / sp["draft_tps"] + row["verify_s"])) < 1e-6 * row["tps"]
        ok &= row["verify_s"] >= 1 / sp["target_tps"]
        ok &= row["speedup"] < 1  # a draft as slow as the target never helps: E <= k+1, cost >= (k+1) t
    check(ok, "each cell is Leviathan et al.'s E / (k t_draft + t_verify), and an equal draft never speeds up")
    dn = plan(GEMMA, "--hw", "rtx-4090", "--draft", GEMMA, "--ngld", "0")
    check(dn["devices"][0]["draft_bytes"] < dn["devices"][1]["draft_bytes"], "--ngld 0: the draft on the host")
    check("-md " + GEMMA + " -ngld 0" in dn["llama_cpp"], f"command: {dn['llama_cpp']}")
    text = run("plan", SMOL, "--hw", "rtx-4090", "--draft", SMOL).stdout
    check("speculative decoding" in text and "Leviathan" in text, "text shows the table")

    # Apple: plans against the GPU's default share; the sysctl that makes it fit.
    a = plan("llama-3.1-70b", "--quant", "Q6_K", "--hw", "apple-m4-max-40c:64", "--ctx", "8192")
    gpu = a["devices"][0]
    n = gpu["wired_limit_mb"]
    check(gpu["verdict"] == "does not fit" and gpu["free_bytes"] == 48 * GIB, "64 GB M4 Max: 48 GiB for the GPU")
    check(n is not None and n * MIB >= gpu["total_bytes"] + GIB and n * MIB <= 64 * GIB - 4 * GIB - a["devices"][1]["anon_bytes"],
          f"wired limit {n} MiB: the GPU's total + 1 GiB, within RAM less macOS's 4 GiB")
    check(any(f"sudo sysctl iogpu.wired_limit_mb={n} " in x for x in a["notes"]), "the exact command in the notes")
    fits = plan("llama-3.1-8b", "--hw", "apple-m4-max-40c:64")
    check(fits["devices"][0]["wired_limit_mb"] is None, "a model that fits needs no sysctl")
    never = plan("llama-3.1-70b", "--quant", "F16", "--hw", "apple-m4-max-40c:64")
    check(never["devices"][0]["wired_limit_mb"] is None and not any("sysctl" in x for x in never["notes"]),
          "nor one no limit can fit")

    # Bad inputs.
    def truncated(src, name):
        path = os.path.join(files, name)
        with open(src, "rb") as f, open(path, "wb") as o:
            o.write(f.read(os.path.getsize(src) // 2))
        return path

    bad(["plan", SMOL, "--mmproj", SMOL], ["not a vision projector", "clip"], "a model given as --mmproj")
    bad(["plan", SMOL, "--mmproj", truncated(mmproj, "mm-half.gguf")], ["mm-half.gguf", "past the end"],
        "a truncated projector")
    bad(["plan", SMOL, "--mmproj", os.path.join(files, "none.gguf")], ["none.gguf"], "a projector that is not there")
    bad(["plan", SMOL, "--lora", lora_1b], ["lora-llama-3.2-1b.gguf", "another base model"], "a LoRA of other shapes")
    bad(["plan", SMOL, "--lora", lora_gemma], ["lora-gemma.gguf", "gemma3"], "a LoRA for another architecture")
    bad(["plan", SMOL, "--lora", mmproj], ["not a LoRA adapter"], "a projector given as --lora")
    bad(["plan", SMOL, "--lora", truncated(lora, "lora-half.gguf")], ["lora-half.gguf", "past the end"],
        "a truncated LoRA")
    bad(["plan", GEMMA, "--draft", SMOL], ["vocabulary", "49152", "262144"], "a draft with another vocabulary")
    bad(["plan", SMOL, "--draft", truncated(SMOL, "smol-half.gguf")], ["smol-half.gguf"], "a truncated draft")
    bad(["plan", SMOL, "--no-mmproj-offload"], ["--mmproj"], "--no-mmproj-offload alone")
    bad(["plan", SMOL, "--ngld", "x", "--draft", SMOL], ["--ngld"], "a bad --ngld")
    bad(["gen", "--mmproj", "nope", "-o", os.path.join(home, "x.gguf")], ["nope"], "gen: an unknown projector")
finally:
    shutil.rmtree(work, ignore_errors=True)

finish()
