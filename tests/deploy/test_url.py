#!/usr/bin/env python3
"""A GGUF by URL, header only, and split models: the real test models served by a
real local HTTP server (http_server.py) that honours ranges, and by the same
server misbehaving. Each bad reply: exit 2, a message naming the URL, nothing
on stdout, nothing written, bounded time."""
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, finish  # noqa: E402
import gguf_split  # noqa: E402
import http_server  # noqa: E402

BIN = os.environ["FITCHECK_BIN"]
MODELS = os.environ.get("FITCHECK_MODELS", "")
SMOL = "SmolLM2-135M-Instruct.Q4_1.gguf"
GEMMA = "gemma-3-270m-q4_k_m.gguf"
if not all(os.path.isfile(os.path.join(MODELS, m)) for m in (SMOL, GEMMA)):
    print("real models not found in FITCHECK_MODELS: skipping")
    sys.exit(77)

work = tempfile.mkdtemp(prefix="fc_url.")
home = os.path.join(work, "home")
os.mkdir(home)
ENV = dict(os.environ, HOME=home, XDG_CACHE_HOME=os.path.join(home, ".cache"))


def run(*args, env=None):
    t0 = time.time()
    p = subprocess.run([BIN, *args], capture_output=True, text=True, cwd=home, env=env or ENV, timeout=60)
    return p, time.time() - t0


def inspect_json(spec):
    p, _ = run("inspect", spec, "--json")
    assert p.returncode == 0, f"inspect {spec}: {p.stderr}"
    d = json.loads(p.stdout)
    d.pop("file")
    return d


def plan_json(spec):
    p, _ = run("plan", spec, "--json")
    assert p.returncode == 0, f"plan {spec}: {p.stderr}"
    d = json.loads(p.stdout)
    d["model"].pop("source")
    assert d.pop("file") == spec, d
    cmd = d.pop("llama_cpp")
    assert cmd.startswith(("llama-server -mu " if "://" in spec else "llama-server -m ") + spec + " "), cmd
    for dev in d.get("devices", []):
        dev.pop("free_bytes", None)   # read now, twice
        dev.pop("margin_bytes", None)
    return d


srv = http_server.Server(MODELS).start()
try:
    # 1. Both real models by URL: the same description as the local file, from the header only.
    for m in (SMOL, GEMMA):
        local = os.path.join(MODELS, m)
        before = srv.bytes_sent()
        url = f"{srv.base}/ok/{m}"
        got, want = inspect_json(url), inspect_json(local)
        sent = srv.bytes_sent() - before
        check(got == want, f"inspect {m} by URL == inspect of the local file")
        p, _ = run("inspect", "--tensors", "--json", local)
        header = min(t["offset"] for t in json.loads(p.stdout)["tensors"])
        size = os.path.getsize(local)
        check(sent <= 2 * header + (256 << 10) and sent < size // 10,
              f"{m}: {sent} bytes read over HTTP for a {header}-byte header of a {size}-byte file")
        check(plan_json(url) == plan_json(local), f"plan {m} by URL == plan of the local file")
    p, _ = run("inspect", f"{srv.base}/ok/{SMOL}")
    check(p.returncode == 0 and "read over HTTP" in p.stderr, "inspect says how much it read over HTTP: "
          + p.stderr.strip().splitlines()[-1])
    check(inspect_json(f"{srv.base}/redirect/{SMOL}?download=true") == inspect_json(os.path.join(MODELS, SMOL)),
          "a redirect (and a query string) is followed")

    # 2. Split models (gguf-split's layout), local and by URL, from any part's name.
    parts_dir = os.path.join(work, "parts")
    os.mkdir(parts_dir)
    parts = gguf_split.split(os.path.join(MODELS, SMOL), os.path.join(parts_dir, "smol"), 3)
    whole = inspect_json(os.path.join(MODELS, SMOL))
    for spec in (parts[0], parts[1]):
        d = inspect_json(spec)
        check(d["n_splits"] == 3 and d["file_bytes"] == sum(os.path.getsize(p) for p in parts),
              f"{os.path.basename(spec)}: 3 parts, file_bytes is all parts")
        same = all(d[k] == whole[k] for k in ("n_params", "weight_bytes", "n_tensors", "types", "mix", "hparams"))
        check(same, f"{os.path.basename(spec)}: tensors and hyperparameters of the whole model")
    srv.root = parts_dir
    d = inspect_json(f"{srv.base}/ok/{os.path.basename(parts[0])}")
    check(d["n_splits"] == 3 and d["weight_bytes"] == whole["weight_bytes"], "a split model by URL")
    pw, ps = plan_json(os.path.join(MODELS, SMOL)), plan_json(parts[0])
    check([x["weights_bytes"] for x in pw["devices"]] == [x["weights_bytes"] for x in ps["devices"]],
          "plan of the split model places the same weights")
    srv.root = MODELS
finally:
    pass


def bad(args, words, what, env=None, limit=20):
    """Exit 2, each word in the message, nothing on stdout, nothing written, in time."""
    p, dt = run(*args, env=env)
    msg = p.stderr.strip()
    ok = p.returncode == 2 and all(w.lower() in msg.lower() for w in words) and not p.stdout.strip()
    ok = ok and os.listdir(home) == [] and dt < limit
    check(ok, f"{what}: exit {p.returncode} in {dt:.1f} s: {msg}")


try:
    for verb in ("inspect", "plan"):
        b = srv.base
        bad([verb, f"{b}/norange/{SMOL}"], [f"{b}/norange/{SMOL}", "range"], f"{verb}: server without ranges")
        bad([verb, f"{b}/loop/{SMOL}"], ["/loop/", "redirect"], f"{verb}: redirect loop")
        bad([verb, f"{b}/truncated/{SMOL}"], ["/truncated/", "truncated"], f"{verb}: truncated body")
        bad([verb, f"{b}/shortlen/{SMOL}"], ["/shortlen/", "Content-Length"], f"{verb}: lying Content-Length")
        bad([verb, f"{b}/nosize/{SMOL}"], ["/nosize/", "size"], f"{verb}: no file size")
        bad([verb, f"{b}/zerostart/{SMOL}"], ["/zerostart/", "asked for bytes"], f"{verb}: wrong range start")
        bad([verb, f"{b}/shifting/{SMOL}"], ["/shifting/", "size changed"], f"{verb}: lying Content-Range size")
        bad([verb, f"{b}/gone/{SMOL}"], ["/gone/", "404"], f"{verb}: not found")
        bad([verb, f"{b}/slow/{SMOL}"], ["/slow/", "slow"], f"{verb}: slow server, 3 s limit",
            env=dict(ENV, FITCHECK_HTTP_TIMEOUT_S="3"), limit=10)
    norange = [e for e in srv.log if e[0] == "norange"]
    check(all(e[3] < os.path.getsize(os.path.join(MODELS, SMOL)) for e in norange),
          f"a 200 reply is cut off: bytes sent {[e[3] for e in norange]}")
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    dead = "http://127.0.0.1:%d/x.gguf" % s.getsockname()[1]
    s.close()
    bad(["inspect", dead], [dead], "nobody listening")
    bad(["inspect", "http://"], ["http://"], "an empty URL")
    bad(["plan", f"{srv.base}/ok/missing.gguf"], ["missing.gguf", "404"], "plan: a URL that is not there")

    # Split models made wrong: a missing part, a part that says it is another, a lying tensor count.
    hostile = os.path.join(work, "hostile")
    os.mkdir(hostile)
    src = os.path.join(MODELS, SMOL)
    p = gguf_split.split(src, os.path.join(hostile, "missing"), 3)
    os.remove(p[2])
    bad(["inspect", p[0]], [os.path.basename(p[2])], "split: a missing part")

    def wrong_no(i, kvs):
        return [gguf_split.kv_raw("split.no", gguf_split.U16, "<H", 0) if k == "split.no" and i == 1 else (k, r)
                for k, r in kvs]
    p = gguf_split.split(src, os.path.join(hostile, "wrongno"), 3, wrong_no)
    bad(["plan", p[0]], [os.path.basename(p[1]), "split.no"], "split: a part with the wrong split.no")

    def wrong_count(i, kvs):
        return [gguf_split.kv_raw("split.tensors.count", gguf_split.I32, "<i", 7) if k == "split.tensors.count" else (k, r)
                for k, r in kvs]
    p = gguf_split.split(src, os.path.join(hostile, "count"), 2, wrong_count)
    bad(["inspect", p[0]], ["split.tensors.count"], "split: a lying split.tensors.count")
    renamed = os.path.join(hostile, "renamed.gguf")
    os.rename(p[0], renamed)
    bad(["inspect", renamed], ["split.count"], "split: a first part not named like one")
finally:
    srv.shutdown()
    shutil.rmtree(work, ignore_errors=True)

finish()
