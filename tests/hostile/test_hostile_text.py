#!/usr/bin/env python3
"""No verb writes a control byte it did not produce itself, whatever the input
(issue 20; the rule is common/fc.h's fc_text_safe, docs/security.md).

Builds inputs whose every string is hostile — a GGUF (general.name and every
free-text key, a key name, the tokenizer's tokens, the chat template, a tensor
name), a truncated GGUF whose failing key name is hostile, config.json files,
a machine profile and llama-bench output — and drives every verb over them
through the real binary ($FITCHECK_BIN). For each run:
  - the exit status is 0 or 2 (a crash, a sanitizer report, 1 are failures);
  - stdout and stderr are valid UTF-8 holding no C0 control but tab and
    newline, no DEL, no C1 control (U+0080..U+009F: CSI, OSC, ...) and no bidi
    override/isolate or line separator; a raw 0x9B byte is not UTF-8, so it
    fails the first test.
The HTML report is checked the same way. The hostile string opens with
ESC ] 0 ; x BEL ESC [ 8 m: the window title, then concealed text, as a user
would meet it (the first finding of issue 20)."""
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gguf_craft as g  # noqa: E402

BIN = os.environ["FITCHECK_BIN"]
SRC = os.environ["FITCHECK_SRC"]

# Every way a terminal is told to do something: OSC title and OSC 52
# clipboard, SGR conceal, CSI as the 8-bit byte 0x9B (not UTF-8) and as the
# code point U+009B (UTF-8 C2 9B), cursor moves, backspace, CR, DEL, BEL, a
# bidi override and isolate, a line separator, overlong UTF-8 and a surrogate.
HOSTILE = (b"\x1b]0;x\x07\x1b[8m" b"pwn\x9b31m" b"\xc2\x9b2J" b"\x1b]52;c;SGVsbG8=\x07" b"\x1b[2A\x08\x08\r\x7f"
           b"\xe2\x80\xaeevil\xe2\x81\xa6" b"\xe2\x80\xa8" b"\xc0\xaf\xed\xa0\x80" b"\x1bP+q\x1b\\" b"\x1b[0m")
HOSTILE_STR = HOSTILE.decode("utf-8", "surrogateescape")  # for JSON writers: raw bytes come back out
# JSON cannot hold bytes that are not UTF-8: the JSON inputs get the valid part.
HOSTILE_JSON = HOSTILE.decode("utf-8", "ignore")
# For fields with a small limit (a tensor name: 63 bytes; a profile's api: 15).
HOSTILE_SHORT = b"\x1b]0;x\x07\xc2\x9b\xe2\x80\xae"
VOCAB = 512  # the smallest vocabulary `fitcheck gen` imitates

BIDI = {0x061C, 0x200E, 0x200F, 0x2028, 0x2029, *range(0x202A, 0x202F), *range(0x2066, 0x206A)}

failures, ran = [], 0


def fail(what, msg):
    failures.append(f"{what}: {msg}")


def bad_bytes(blob):
    """A description of the first unsafe character in blob, or None."""
    try:
        text = blob.decode("utf-8")
    except UnicodeDecodeError as e:
        return f"not UTF-8 at byte {e.start}: {blob[max(0, e.start - 20):e.start + 8]!r}"
    for i, ch in enumerate(text):
        c = ord(ch)
        if (c < 0x20 and ch not in "\t\n") or 0x7F <= c <= 0x9F or c in BIDI:
            return f"U+{c:04X} at character {i}: {text[max(0, i - 30):i + 10]!r}"
    return None


def drive(what, args, env=None):
    global ran
    ran += 1
    p = subprocess.run([BIN, *args], capture_output=True, timeout=120, env=env)
    problems = []
    if p.returncode not in (0, 2):
        problems.append(f"exit {p.returncode}")
    if b"Sanitizer" in p.stderr or b"runtime error" in p.stderr:
        problems.append("sanitizer report")
    for name, blob in (("stdout", p.stdout), ("stderr", p.stderr)):
        bad = bad_bytes(blob)
        if bad:
            problems.append(f"{name}: {bad}")
    if os.environ.get("FC_VERBOSE"):
        print(f"{what}: exit {p.returncode}; {p.stderr[:160]!r}")
    if problems:
        fail(what, f"{'; '.join(problems)}\n    stderr: {p.stderr[:300]!r}")
    return p


def check_file(what, path):
    global ran
    ran += 1
    if not os.path.exists(path):
        failures.append(f"{what}: {path} not written")
        return
    bad = bad_bytes(open(path, "rb").read())
    if bad:
        failures.append(f"{what}: {bad}")


def hostile_model(extra_tensor=False):
    """A complete tiny llama (it loads and generates) whose strings are all
    hostile. Weights make the greedy next token a hostile one: every embedding
    is ones, attention and FFN outputs are zero (the residual carries the ones
    through), and only the hostile tokens' output rows are non-zero."""
    n_embd, n_ff, n_layer, n_head_kv, n_head = 16, 32, 2, 1, 2
    kv_dim = n_embd // n_head * n_head_kv
    tok = dict((k, v) for k, _, v in g.tokenizer_kvs("gpt2"))
    bc = g.gpt2_byte_chars()
    # A byte-level BPE token stands for its bytes through GPT-2's byte map, so
    # this token decodes to the hostile bytes themselves.
    mapped = "".join(bc[b] for b in HOSTILE)
    base = list(tok["tokenizer.ggml.tokens"][1])
    tokens = base + [f"<pad{i}>" for i in range(VOCAB - 2 - len(base))] + [mapped, HOSTILE]
    n_vocab = len(tokens)
    types = [1] * (n_vocab - 2) + [1, 1]
    kvs = [
        ("general.architecture", g.STRING, "llama"),
        ("general.name", g.STRING, HOSTILE),
        ("general.basename", g.STRING, HOSTILE),
        ("general.description", g.STRING, HOSTILE),
        ("general.author", g.STRING, HOSTILE),
        ("general.organization", g.STRING, HOSTILE),
        ("general.license", g.STRING, HOSTILE),
        ("general.finetune", g.STRING, HOSTILE),
        ("general.size_label", g.STRING, HOSTILE),
        ("general.quantized_by", g.STRING, HOSTILE),
        ("general.tags", g.ARRAY, (g.STRING, [HOSTILE, HOSTILE])),
        (b"general.\x1b]0;key\x07\x1b[8m", g.STRING, HOSTILE),
        ("llama.block_count", g.U32, n_layer),
        ("llama.context_length", g.U32, 256),
        ("llama.embedding_length", g.U32, n_embd),
        ("llama.feed_forward_length", g.U32, n_ff),
        ("llama.attention.head_count", g.U32, n_head),
        ("llama.attention.head_count_kv", g.U32, n_head_kv),
        ("llama.attention.layer_norm_rms_epsilon", g.F32, 1e-5),
        ("llama.rope.freq_base", g.F32, 10000.0),
        ("tokenizer.ggml.model", g.STRING, "gpt2"),
        ("tokenizer.ggml.pre", g.STRING, "smollm"),  # a hostile one is refused (run: exit 2)
        ("tokenizer.ggml.tokens", g.ARRAY, (g.STRING, tokens)),
        ("tokenizer.ggml.token_type", g.ARRAY, (g.I32, types)),
        ("tokenizer.ggml.merges", g.ARRAY, tok["tokenizer.ggml.merges"]),
        ("tokenizer.ggml.bos_token_id", g.U32, 0),
        ("tokenizer.ggml.eos_token_id", g.U32, n_vocab - 3),
        ("tokenizer.chat_template", g.STRING, HOSTILE),
    ]

    def f32(values):
        return g.F32_TYPE, struct.pack(f"<{len(values)}f", *values)

    zeros = lambda *ne: f32([0.0] * g.eval_prod(ne))
    ones = lambda *ne: f32([1.0] * g.eval_prod(ne))
    out_rows = [0.0] * (n_embd * (n_vocab - 2)) + [1.0] * (2 * n_embd)
    tensors = [("token_embd.weight", [n_embd, n_vocab], *ones(n_embd, n_vocab)),
               ("output_norm.weight", [n_embd], *ones(n_embd)),
               ("output.weight", [n_embd, n_vocab], *f32(out_rows))]
    for il in range(n_layer):
        b = f"blk.{il}."
        tensors += [(b + "attn_norm.weight", [n_embd], *ones(n_embd)),
                    (b + "attn_q.weight", [n_embd, n_embd], *zeros(n_embd, n_embd)),
                    (b + "attn_k.weight", [n_embd, kv_dim], *zeros(n_embd, kv_dim)),
                    (b + "attn_v.weight", [n_embd, kv_dim], *zeros(n_embd, kv_dim)),
                    (b + "attn_output.weight", [n_embd, n_embd], *zeros(n_embd, n_embd)),
                    (b + "ffn_norm.weight", [n_embd], *ones(n_embd)),
                    (b + "ffn_gate.weight", [n_embd, n_ff], *zeros(n_embd, n_ff)),
                    (b + "ffn_up.weight", [n_embd, n_ff], *zeros(n_embd, n_ff)),
                    (b + "ffn_down.weight", [n_ff, n_embd], *zeros(n_ff, n_embd))]
    if extra_tensor:
        tensors.append((HOSTILE_SHORT, [n_embd], *ones(n_embd)))
    return g.build(kvs, tensors)


def truncated_with_hostile_key():
    """The reader fails inside a value whose key name is hostile: the error
    message names the key."""
    return g.header(0, 1) + g.gstr(b"k\x1b]0;x\x07\x1b[8m\x9b") + struct.pack("<I", g.STRING) + \
        struct.pack("<Q", 1 << 40) + b"x" * 16


def hostile_json(obj):
    """Every string in obj (keys kept) replaced by the hostile text."""
    if isinstance(obj, dict):
        return {k: hostile_json(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [hostile_json(v) for v in obj]
    if isinstance(obj, str):
        return HOSTILE_SHORT.decode()
    return obj


def write(tmp, name, blob):
    path = os.path.join(tmp, name)
    with open(path, "wb") as fp:
        fp.write(blob if isinstance(blob, bytes) else blob.encode())
    return path


def main():
    with tempfile.TemporaryDirectory(prefix="fc_hostile_text.") as tmp:
        os.environ["XDG_CACHE_HOME"] = os.path.join(tmp, "cache")  # nothing written to the user's cache
        model = write(tmp, "hostile.gguf", hostile_model())
        tensor_model = write(tmp, "hostile_tensor.gguf", hostile_model(extra_tensor=True))
        broken = write(tmp, "broken.gguf", truncated_with_hostile_key())
        # A file name is a string from a stranger too (an archive, a download).
        odd_name = write(tmp, "name\x1b[31m\u202e.gguf", hostile_model())

        cfg = json.load(open(os.path.join(SRC, "fuzz/seeds/config_json/llama.json")))
        for k in ("_name_or_path", "torch_dtype", "transformers_version", "hidden_act"):
            cfg[k] = HOSTILE_JSON
        cfg["architectures"] = [HOSTILE_JSON]
        config = write(tmp, "config.json", json.dumps(cfg))
        cfg["model_type"] = HOSTILE_JSON
        config_bad = write(tmp, "config_bad.json", json.dumps(cfg))

        prof = json.load(open(os.path.join(SRC, "fuzz/seeds/profile/gpu.json")))
        profile = write(tmp, "profile.json", json.dumps(hostile_json(prof)))
        # Only the free-text fields hostile: the profile still loads and plans.
        for k, v in list(prof.items()):
            if isinstance(v, str):
                prof[k] = HOSTILE_SHORT.decode()
        for gpu in prof.get("gpus", []):
            for k in ("name", "note", "pci_bus_id", "vendor"):
                if k in gpu:
                    gpu[k] = HOSTILE_SHORT.decode()
        profile_ok = write(tmp, "profile_ok.json", json.dumps(prof))

        bench = json.load(open(os.path.join(SRC, "fuzz/seeds/bench/llama-bench.json")))
        for row in bench:
            for k in ("cpu_info", "gpu_info", "model_filename", "build_commit", "test_time"):
                if k in row:
                    row[k] = HOSTILE_JSON
            # The planner reads the size and type off model_type: they stay, the rest is hostile.
            row["model_type"] = "llama 1B Q4_0 " + HOSTILE_JSON
        bench_file = write(tmp, "bench.json", json.dumps(bench))
        bench_lines = write(tmp, "bench.jsonl", "".join(json.dumps(r) + "\n" for r in bench))
        html = os.path.join(tmp, "report.html")

        runs = [
            ("inspect", ["inspect", model]),
            ("inspect --tensors", ["inspect", "--tensors", tensor_model]),
            ("inspect --json --tensors", ["inspect", "--json", "--tensors", tensor_model]),
            ("inspect, hostile key in an error", ["inspect", broken]),
            ("inspect, hostile file name", ["inspect", odd_name]),
            ("inspect, missing hostile file name", ["inspect", os.path.join(tmp, "no\x1b]0;x\x07such.gguf")]),
            ("plan", ["plan", model]),
            ("plan hostile tensor", ["plan", tensor_model]),
            ("plan --json", ["plan", "--json", model]),
            ("plan -o md", ["plan", model, "-o", "md"]),
            ("plan -o csv", ["plan", model, "-o", "csv"]),
            ("plan -o json", ["plan", model, "-o", "json"]),
            ("plan -o jsonl", ["plan", model, "-o", "jsonl"]),
            ("plan --ctx-sweep", ["plan", model, "--ctx-sweep"]),
            ("plan --hw all", ["plan", model, "--hw", "all"]),
            ("plan --hw hostile profile", ["plan", model, "--hw", profile_ok]),
            ("plan --hw all-hostile profile", ["plan", model, "--hw", profile]),
            ("plan config.json", ["plan", config]),
            ("plan config.json, hostile model_type", ["plan", config_bad]),
            ("plan hostile catalog name", ["plan", "llama\x1b]0;x\x07"]),
            ("probe --show hostile profile", ["probe", "--show", profile_ok]),
            ("probe --show all-hostile profile", ["probe", "--show", profile]),
            ("probe --show -o md", ["probe", "--show", profile_ok, "-o", "md"]),
            ("probe --show -o csv", ["probe", "--show", profile_ok, "-o", "csv"]),
            ("probe --show --json", ["probe", "--show", profile_ok, "--json"]),
            ("calibrate --dry-run llama-bench json", ["calibrate", "--dry-run", "--hw", profile_ok, bench_file]),
            ("calibrate --dry-run llama-bench jsonl", ["calibrate", "--dry-run", "--hw", profile_ok, bench_lines]),
            ("report", ["report", "-o", html, "--profile", profile_ok, "--runs", bench_file, model, config]),
            ("models", ["models"]),
            ("hw", ["hw"]),
            ("run", ["run", model, "-n", "4", "-p", "a", "--temp", "0"]),
            ("run --chat", ["run", model, "-n", "2", "-p", "a", "--temp", "0", "--chat"]),
            ("run --bench", ["run", model, "--bench", "-p", "4", "-n", "2", "-r", "1"]),
            ("run --bench -o csv", ["run", model, "--bench", "-p", "4", "-n", "2", "-r", "1", "-o", "csv"]),
            ("gen --like hostile", ["gen", "--like", model, "--layers", "1", "-o", os.path.join(tmp, "gen.gguf")]),
            ("unknown verb", ["\x1b]0;x\x07\x1b[8m"]),
            ("unknown option", ["plan", "--\x1b]0;x\x07"]),
        ]
        # The saved profile is read by every verb that plans for this machine.
        cache = os.path.join(tmp, "hostile_cache")
        os.makedirs(os.path.join(cache, "fitcheck"))
        shutil.copy(profile_ok, os.path.join(cache, "fitcheck", "machine.json"))
        hostile_env = dict(os.environ, XDG_CACHE_HOME=cache)
        runs += [("main job, hostile saved profile", [], hostile_env),
                 ("plan, hostile saved profile", ["plan", "llama-3.2-1b"], hostile_env),
                 ("probe --show, hostile saved profile", ["probe", "--show"], hostile_env),
                 ("run --bench, hostile saved profile", ["run", model, "--bench", "-p", "4", "-n", "2", "-r", "1"],
                  hostile_env)]
        for what, args, *env in runs:
            p = drive(what, args, *env)
            if what == "report":
                check_file("report.html", html)
            if what == "run" and p.returncode == 0 and b"\\x1b" not in p.stdout:
                # The engine should have generated the hostile token: its
                # escapes must show, so the test saw what it means to check.
                failures.append(f"run: the hostile token was not generated (stdout {p.stdout[:200]!r})")
            if what == "plan" and b"\\x1b]0;x\\x07" not in p.stdout + p.stderr:
                fail("plan: escaped name", "the hostile general.name is not shown escaped")
    print(f"{ran} runs of hostile text")
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
