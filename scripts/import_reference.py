#!/usr/bin/env python3
"""Maintainer tool: turn the curated reference tables (models.csv, hardware.csv)
into fitcheck's own data files (data/models/*.json, data/hardware.json).

Run by hand when the tables change; the build never runs it and never reads
the reference folder. Every data file keeps the row's source and confidence.

usage: scripts/import_reference.py MODELS.csv HARDWARE.csv OUTDIR
"""
import csv
import json
import os
import re
import sys


def num(s):
    s = (s or "").strip()
    if not s or s.lower() == "none":
        return None
    try:
        v = float(s)
    except ValueError:
        return None
    return int(v) if v.is_integer() and "." not in s else v


def catalog_name(model):
    n = model.lower().replace("_", "-")
    n = re.sub(r"-(2501|v0\.3|mini-4k)$", lambda m: {"-2501": "", "-v0.3": "", "-mini-4k": "-mini"}[m.group(0)], n)
    return n


def swa_layers(row, n_layer):
    """Per-layer attention kind, as HF's layer_types would list it."""
    pat = row["sliding_pattern"]
    if row["sliding_window"] in ("", "none"):
        return None
    if pat.startswith("5 local : 1 global"):
        return ["full_attention" if (i + 1) % 6 == 0 else "sliding_attention" for i in range(n_layer)]
    if pat.startswith("alternating"):
        return ["sliding_attention" if i % 2 == 0 else "full_attention" for i in range(n_layer)]
    if pat.startswith("all layers"):
        return []  # Phi-3: config.json has the window but no per-layer list
    raise SystemExit("unknown sliding pattern: " + pat)


def model_config(row):
    mt = row["model_type"].split()[0]
    if mt == "gemma3":
        mt = "gemma3_text"  # the text model of the multimodal checkpoint
    L = num(row["num_hidden_layers"])
    cfg = {
        "architectures": [row["architecture"].split()[0]],
        "model_type": mt,
        "hidden_size": num(row["hidden_size"]),
        "num_hidden_layers": L,
        "num_attention_heads": num(row["num_attention_heads"]),
        "num_key_value_heads": num(row["num_key_value_heads"]),
        "intermediate_size": num(row["intermediate_size"]),
        "vocab_size": num(row["vocab_size"]),
        "max_position_embeddings": num(row["max_position_embeddings"]),
        "rope_theta": float(row["rope_theta"]),
        "tie_word_embeddings": row["tie_word_embeddings"] == "True",
    }
    if row["head_dim_explicit"] == "True" or mt.startswith("gemma"):
        cfg["head_dim"] = num(row["head_dim"])
    if row["attention_bias"] == "True":
        cfg["attention_bias"] = True
    if mt == "gemma3_text" and cfg["vocab_size"] == 262208:
        # llama.cpp's converter sizes token_embd from the tokenizer (262144 rows)
        cfg["vocab_size"] = 262144
    lt = swa_layers(row, L)
    if lt is not None:
        cfg["sliding_window"] = num(row["sliding_window"])
    if lt:
        cfg["layer_types"] = lt
    ne = num(row["num_experts"])
    if ne:
        cfg["num_experts" if mt != "mixtral" else "num_local_experts"] = ne
        cfg["num_experts_per_tok"] = num(row["experts_per_token"])
        if mt != "mixtral":
            cfg["moe_intermediate_size"] = num(row["moe_intermediate_size"])
    if num(row["shared_experts"]):
        cfg["n_shared_experts"] = num(row["shared_experts"])
    if num(row["first_dense_layers"]):
        cfg["first_k_dense_replace"] = num(row["first_dense_layers"])
    for k in ("q_lora_rank", "kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim"):
        if num(row[k]):
            cfg[k] = num(row[k])
    if mt == "deepseek_v3":
        cfg["n_routed_experts"] = cfg.pop("num_experts")
    cfg["_fitcheck"] = {
        "name": catalog_name(row["model"]),
        "display": row["model"],
        "hf_repo": row["hf_repo"],
        "params_reference": num(row["params_computed"]),
        "active_params_reference": num(row["active_params_computed"]),
        "notes": row["notes"],
        "confidence": row["confidence"],
        "source": row["source"],
    }
    return cfg


def hardware_entry(row):
    def nums(s):
        return [num(x) for x in s.split("|") if num(x) is not None]
    share = []
    for part in (row["gpu_default_mem_share"] or "").split("|"):
        m = re.fullmatch(r"\s*(\d+):([0-9.]+)\s*", part)
        if m:
            share.append({"memory_gb": int(m.group(1)), "share": float(m.group(2))})
    e = {
        "id": row["id"], "vendor": row["vendor"], "name": row["name"], "category": row["category"],
        "memory_gb": nums(row["memory_gb_options"]), "memory_type": row["memory_type"],
        "bandwidth_gbs": num(row["mem_bandwidth_gbs"]),
        "fp16_tensor_tflops": num(row["fp16_tensor_tflops_dense"]),
        "bf16_fp32acc_tflops": num(row["bf16_or_fp16_fp32acc_tflops_dense"]),
        "fp32_tflops": num(row["fp32_tflops"]), "int8_tops": num(row["int8_tops_dense"]),
        "host_interface": row["host_interface"], "tdp_w": num(row["tdp_w"]),
        "launch_year": num(row["launch_year"]), "gpu_cores": num(row["gpu_cores"]),
        "gpu_mem_share": share, "gpu_mem_share_note": row["gpu_default_mem_share"],
        "unverified_fields": row["unverified_fields"], "notes": row["notes"],
        "source": row["source"], "confidence": row["confidence"],
    }
    return {k: v for k, v in e.items() if v not in (None, "", [])}


def main():
    models_csv, hw_csv, out = sys.argv[1:4]
    os.makedirs(os.path.join(out, "models"), exist_ok=True)
    for row in csv.DictReader(open(models_csv)):
        cfg = model_config(row)
        path = os.path.join(out, "models", cfg["_fitcheck"]["name"] + ".json")
        with open(path, "w") as f:
            json.dump(cfg, f, indent=1)
            f.write("\n")
    hw = [hardware_entry(r) for r in csv.DictReader(open(hw_csv))]
    with open(os.path.join(out, "hardware.json"), "w") as f:
        json.dump({"schema": 1, "devices": hw}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
