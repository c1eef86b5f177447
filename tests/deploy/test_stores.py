#!/usr/bin/env python3
"""Models already on disk: each store's real layout (ollama's manifests and
blobs, LM Studio's folders, the Hugging Face hub cache, llama.cpp's cache,
--models-dir) built in a temporary HOME around the real SmolLM2 and Gemma 3
files; `models --local` lists each with a verdict, `plan ollama:NAME:TAG` and
a cached file's path plan like the file itself; broken stores: exit 2 or an
error row, nothing written."""
import functools
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, finish  # noqa: E402

BIN = os.environ["FITCHECK_BIN"]
MODELS = os.environ.get("FITCHECK_MODELS", "")
SMOL = os.path.join(MODELS, "SmolLM2-135M-Instruct.Q4_1.gguf")
GEMMA = os.path.join(MODELS, "gemma-3-270m-q4_k_m.gguf")
if not (os.path.isfile(SMOL) and os.path.isfile(GEMMA)):
    print("real models not found in FITCHECK_MODELS: skipping")
    sys.exit(77)

work = tempfile.mkdtemp(prefix="fc_stores.")
home = os.path.join(work, "home")
ENV = {k: v for k, v in os.environ.items() if k not in ("OLLAMA_MODELS", "HF_HOME", "HF_HUB_CACHE", "LLAMA_CACHE", "XDG_CACHE_HOME")}
ENV["HOME"] = home


def run(*args, env=None):
    return subprocess.run([BIN, *args], capture_output=True, text=True, cwd=home, env=env or ENV, timeout=120)


def link(src, dst):
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    if not os.path.lexists(dst):
        os.symlink(src, dst)


@functools.lru_cache(maxsize=None)
def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while b := f.read(1 << 20):
            h.update(b)
    return h.hexdigest()


def ollama_store(root, name, tag, model, manifest=None):
    """ollama's layout: manifests/registry.ollama.ai/library/NAME/TAG -> blobs/sha256-HEX."""
    hexd = sha256(model)
    link(model, os.path.join(root, "blobs", "sha256-" + hexd))
    m = manifest or {
        "schemaVersion": 2, "mediaType": "application/vnd.docker.distribution.manifest.v2+json",
        "config": {"mediaType": "application/vnd.docker.container.image.v1+json", "digest": "sha256:" + "0" * 64, "size": 2},
        "layers": [{"mediaType": "application/vnd.ollama.image.model", "digest": "sha256:" + hexd,
                    "size": os.path.getsize(model)},
                   {"mediaType": "application/vnd.ollama.image.template", "digest": "sha256:" + "1" * 64, "size": 5}]}
    p = os.path.join(root, "manifests", "registry.ollama.ai", "library", name, tag)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, "w") as f:
        f.write(m if isinstance(m, str) else json.dumps(m))


try:
    os.makedirs(home)
    ollama_store(os.path.join(home, ".ollama", "models"), "smollm2", "135m", SMOL)
    link(GEMMA, os.path.join(home, ".lmstudio", "models", "lmstudio-community", "gemma-3-270m-GGUF", "gemma-3-270m-q4_k_m.gguf"))
    link(SMOL, os.path.join(home, ".cache", "huggingface", "hub", "models--HuggingFaceTB--SmolLM2-135M-GGUF", "snapshots",
                            "0123abcd", "SmolLM2-135M-Instruct.Q4_1.gguf"))
    link(GEMMA, os.path.join(home, ".cache", "llama.cpp", "ggml-org_gemma-3-270m-GGUF_gemma-3-270m-q4_k_m.gguf"))
    extra = os.path.join(work, "mine")
    link(SMOL, os.path.join(extra, "sub", "smol-copy.gguf"))
    before = sorted(os.listdir(home))
    p = run("models", "--local", "--models-dir", extra, "--json")
    check(p.returncode == 0, f"models --local: exit {p.returncode} {p.stderr.strip()}")
    rows = json.loads(p.stdout) if p.returncode == 0 else []
    got = {(r["store"], r["name"]) for r in rows}
    want = {("ollama", "smollm2:135m"), ("lmstudio", "lmstudio-community/gemma-3-270m-GGUF/gemma-3-270m-q4_k_m.gguf"),
            ("hf-cache", "HuggingFaceTB/SmolLM2-135M-GGUF SmolLM2-135M-Instruct.Q4_1.gguf"),
            ("llama.cpp", "ggml-org_gemma-3-270m-GGUF_gemma-3-270m-q4_k_m.gguf")}
    check(want <= got, f"every store found: {sorted(got)}")
    check(all(r["verdict"] == "fits" and r["bytes"] > 0 for r in rows), "each with a verdict: fits")
    check(("dir", "sub/smol-copy.gguf") in got and len(rows) == 5, f"--models-dir searched: {len(rows)} rows")
    # a --models-dir that is one of the stores adds nothing
    p = run("models", "--local", "--models-dir", os.path.join(home, ".lmstudio", "models"), "--json")
    check(p.returncode == 0 and len(json.loads(p.stdout)) == 4, "a store named again with --models-dir is listed once")
    p = run("models", "--local")
    check(p.returncode == 0 and "smollm2:135m" in p.stdout and "ollama:smollm2:135m" in p.stdout, "the table names the spec")

    def plan(spec):
        p = run("plan", spec, "--json")
        assert p.returncode == 0, p.stderr
        d = json.loads(p.stdout)
        return [x["weights_bytes"] for x in d["devices"]], d["model"]["source"]
    w_ollama, src = plan("ollama:smollm2:135m")
    check(w_ollama == plan(SMOL)[0] and src == "ollama:smollm2:135m", "plan ollama:smollm2:135m == plan of the file")
    # llama.cpp is given the blob the manifest names, not a made-up file name
    d = json.loads(run("plan", "ollama:smollm2:135m", "--json").stdout)
    blob = os.path.join(home, ".ollama", "models", "blobs", "sha256-" + sha256(SMOL))
    check(d["file"] == blob and d["llama_cpp"].startswith(f"llama-server -m {blob} "),
          f"plan ollama:NAME:TAG runs the blob: {d['llama_cpp'][:120]}")
    p = run("plan", "ollama:smollm2:135m", "--hw", "cpu-ddr5-6400-2ch:64")  # a catalog CPU: speed, so a command
    check(p.returncode == 0 and f"-m {blob} " in p.stdout, "the text plan prints the blob path")
    hf = [r["spec"] for r in rows if r["store"] == "hf-cache"][0]
    check(plan(hf)[0] == plan(SMOL)[0], "plan of a cached file's path")
    check(sorted(os.listdir(home)) == before, "nothing written into HOME")

    def bad(args, words, what):
        p = run(*args)
        ok = p.returncode == 2 and all(w in p.stderr for w in words) and not p.stdout.strip()
        check(ok, f"{what}: exit {p.returncode}: {p.stderr.strip()}")
    bad(["plan", "ollama:nosuch:1b"], ["ollama:nosuch:1b", "not in the ollama store"], "an ollama model that is not there")
    bad(["plan", "ollama:../../etc:x"], ["not a model name"], "a path in an ollama name")
    bad(["models", "--local", "--models-dir", os.path.join(work, "none")], ["not a directory"], "--models-dir that is not there")
    bad(["models", "--models-dir", extra], ["--local"], "--models-dir without --local")
    # broken ollama stores: a manifest that is not JSON, a missing blob, a lying size
    root = os.path.join(work, "ollama2")
    ollama_store(root, "broken", "latest", SMOL, manifest="{not json")
    m = json.load(open(os.path.join(home, ".ollama/models/manifests/registry.ollama.ai/library/smollm2/135m")))
    m["layers"][0]["size"] += 1
    ollama_store(root, "liar", "latest", SMOL, manifest=m)
    m2 = json.loads(json.dumps(m))
    m2["layers"][0]["digest"] = "sha256:" + "a" * 64
    ollama_store(root, "noblob", "latest", SMOL, manifest=m2)
    env2 = dict(ENV, OLLAMA_MODELS=root)
    for name, word in (("broken", "not JSON"), ("liar", "the manifest says"), ("noblob", "missing")):
        p = run("plan", f"ollama:{name}", env=env2)
        check(p.returncode == 2 and word in p.stderr and name in p.stderr and not p.stdout,
              f"ollama:{name}: exit {p.returncode}: {p.stderr.strip()}")
    p = run("models", "--local", "--json", env=env2)
    rows = json.loads(p.stdout) if p.returncode == 0 else []
    errs = {r["name"]: r["error"] for r in rows if r["store"] == "ollama"}
    check(p.returncode == 0 and len(errs) == 3 and all(errs.values()), f"broken store entries listed with their errors: {errs}")
finally:
    shutil.rmtree(work, ignore_errors=True)

finish()
