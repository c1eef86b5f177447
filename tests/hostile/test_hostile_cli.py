#!/usr/bin/env python3
"""Hostile input through the real `fitcheck` binary ($FITCHECK_BIN).

Every case must end with exit status 2, nothing on stdout, and a message on
stderr naming what is wrong (the needle) and where (a byte offset, a key, a
flag). Under build-asan the binary is sanitized, so a crash, a leak or
undefined behaviour also fails the case. The reader's unit tests
(tests/model/test_gguf.c) cover the parser itself; these check the whole
path a user's file takes: GGUF files, config.json files, machine profiles
and absurd flags. Cases whose verb is not built yet are skipped."""
import os
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gguf_craft as g  # noqa: E402

BIN = os.environ["FITCHECK_BIN"]
MODELS = os.environ.get("FITCHECK_MODELS", "")
# Truncation points through a real model's header; each is one process start.
REAL_TRUNCATIONS = 40
failures, skipped, ran = [], [], 0


def run(args):
    p = subprocess.run([BIN, *args], capture_output=True, text=True, errors="replace", timeout=60)
    return p.returncode, p.stdout, p.stderr


def expect_input_error(what, args, needles=()):
    """Exit 2, empty stdout, a message containing every needle."""
    global ran
    rc, out, err = run(args)
    if rc == 1 and "not implemented yet" in err:
        skipped.append(what)
        return
    ran += 1
    problems = []
    if rc != 2:
        problems.append(f"exit {rc}, expected 2")
    if out:
        problems.append(f"stdout not empty: {out[:120]!r}")
    if not err.strip():
        problems.append("no message on stderr")
    for n in needles:
        if n not in err:
            problems.append(f"message lacks {n!r}")
    if problems:
        failures.append(f"{what}: {'; '.join(problems)}\n    stderr: {err.strip()[:400]}")


def write_file(tmp, name, blob):
    path = os.path.join(tmp, name)
    with open(path, "wb") as fp:
        fp.write(blob)
    return path


def hostile_ggufs():
    """(description, file bytes, needles[, needles for run]). Each mirrors an
    attack on the parser or on what is built from it; needles name the what
    and the where."""
    h = g.header
    u64 = lambda v: struct.pack("<Q", v)
    u32 = lambda v: struct.pack("<I", v)
    kvs = g.tiny_llama_kvs
    f32 = lambda *ne: (g.F32_TYPE, b"\0" * (4 * g.eval_prod(ne)))
    return [
        ("2^63 tensors", h(1 << 63, 0) + b"\0" * 64, ["tensor count", "byte offset"]),
        ("2^62 metadata keys", h(0, 1 << 62) + b"\0" * 64, ["metadata count", "byte offset"]),
        ("key length 2^63", h(0, 1) + u64(1 << 63) + b"k" * 64, ["string length", "byte offset"]),
        ("string value length 2^63", h(0, 1) + g.gstr("k") + u32(g.STRING) + u64(1 << 63) + b"x" * 64,
         ["string length", "in key k"]),
        ("array length 2^63", h(0, 1) + g.gstr("k") + u32(g.ARRAY) + u32(g.U8) + u64(1 << 63) + b"\0" * 64,
         ["array count", "in key k"]),
        ("array of 2^61 u64 (size overflow)", h(0, 1) + g.gstr("k") + u32(g.ARRAY) + u32(g.U64) + u64(1 << 61),
         ["array count", "in key k"]),
        ("nesting bomb", h(0, 1) + g.gstr("k") + u32(g.ARRAY) + (u32(g.ARRAY) + u64(1)) * 64, ["nested", "in key k"]),
        ("element count overflow",
         g.header(1, 0) + g.tensor_info("w", [1 << 32, 1 << 32, 1 << 32], g.F32_TYPE, 0) + b"\0" * 256,
         ["overflow", "tensor w"]),
        ("tensor offset past the end",
         g.header(1, 0) + g.tensor_info("w", [8], g.F32_TYPE, 1 << 40) + b"\0" * 256, ["past the end", "tensor w"]),
        ("tensor offset 2^64-32",
         g.header(1, 0) + g.tensor_info("w", [8], g.F32_TYPE, (1 << 64) - 32) + b"\0" * 256, ["tensor w"]),
        ("unknown tensor type", g.header(1, 0) + g.tensor_info("w", [8], 77, 0) + b"\0" * 256,
         ["unknown tensor type id 77", "tensor w"]),
        ("NaN epsilon", g.build(kvs(eps=float("nan")), []), ["layer_norm_rms_epsilon", "finite"]),
        ("Inf epsilon", g.build(kvs(eps=float("inf")), []), ["layer_norm_rms_epsilon", "finite"]),
        ("Inf rope base", g.build([k if k[0] != "llama.rope.freq_base" else (k[0], g.F32, float("inf"))
                                   for k in kvs()], []), ["llama.rope.freq_base"]),
        ("zero heads", g.build(kvs(n_head=0), []), ["head_count"]),
        ("zero layers", g.build(kvs(n_layer=0), []), ["block_count"]),
        ("2^32-1 layers", g.build([k if k[0] != "llama.block_count" else (k[0], g.U32, 0xFFFFFFFF)
                                   for k in kvs()], []), ["block_count"]),
        ("negative embedding", g.build([k if k[0] != "llama.embedding_length" else (k[0], g.I32, -64)
                                        for k in kvs()], []), ["embedding_length"]),
        ("head_count as a string", g.build([k if k[0] != "llama.attention.head_count" else (k[0], g.STRING, "4")
                                            for k in kvs()], []), ["head_count"]),
        # fuzz/regressions/gguf/layer-past-n_layer-uaf.gguf: read freed memory building the message.
        # The engine (run) checks for the tensors it needs first: a missing one is named instead.
        ("tensor in layer past n_layer", g.build(kvs(), [("blk.7.attn_q.weight", [16, 16], *f32(16, 16))]),
         ["blk.7.attn_q.weight", "layer 7"], ["token_embd.weight is missing"]),
    ]


# Absurd flags: (what, verb and flags after MODEL is substituted, needles).
# Each names the flag in its message; none may be clamped silently.
FLAG_CASES = [
    ("plan --ctx -1", ["plan", "MODEL", "--ctx", "-1"], ["--ctx", "-1"]),
    ("plan --ctx 99999999999", ["plan", "MODEL", "--ctx", "99999999999"], ["--ctx"]),
    ("plan --ctx 2^64", ["plan", "MODEL", "--ctx", "18446744073709551616"], ["--ctx"]),
    ("plan --ctx 4k", ["plan", "MODEL", "--ctx", "4k"], ["--ctx"]),
    ("plan unknown quant", ["plan", "MODEL", "--quant", "Q9_9"], ["--quant", "Q9_9"]),
    ("plan --ngl -5", ["plan", "MODEL", "--ngl", "-5"], ["--ngl"]),
    ("plan --parallel 0", ["plan", "MODEL", "--parallel", "0"], ["--parallel"]),
    ("plan --ubatch 0", ["plan", "MODEL", "--ubatch", "0"], ["--ubatch"]),
    ("plan --tensor-split junk", ["plan", "MODEL", "--tensor-split", "a,b"], ["--tensor-split"]),
    ("plan --min-tps nan", ["plan", "MODEL", "--min-tps", "nan"], ["--min-tps"]),
    ("plan --min-tps inf", ["plan", "MODEL", "--min-tps", "inf"], ["--min-tps"]),
    ("plan --kv q3", ["plan", "MODEL", "--kv", "q3"], ["--kv"]),
    ("plan --hw capacity -5", ["plan", "MODEL", "--hw", "rtx-4090:-5"], ["rtx-4090", "-5"]),
    ("plan unknown model", ["plan", "no-such-model-anywhere"], ["no-such-model-anywhere"]),
    ("probe -t 0", ["probe", "-t", "0"], ["threads", "0"]),
    ("probe -t -1", ["probe", "-t", "-1"], ["threads", "-1"]),
    ("gen --layers -5", ["gen", "--like", "MODEL", "-o", "TMP/gen.gguf", "--layers", "-5"], ["--layers", "-5"]),
    ("gen unknown quant", ["gen", "--like", "MODEL", "-o", "TMP/gen.gguf", "--quant", "Q9_9"], ["Q9_9"]),
    ("report --ctx -1", ["report", "--ctx", "-1"], ["--ctx"]),
    ("run -t 0", ["run", "MODEL", "-t", "0"], ["0"]),
    ("run -n -5", ["run", "MODEL", "-n", "-5"], ["-5"]),
    ("run -c 99999999999", ["run", "MODEL", "-p", "hi", "-c", "99999999999"], ["99999999999"]),
]

REQUIRED_CFG = '"model_type":"llama","hidden_size":2048,"num_hidden_layers":2,"num_attention_heads":8,' \
               '"vocab_size":100,"intermediate_size":10'
# config.json of the wrong shape: (what, text, needles naming the key).
CONFIG_CASES = [
    ("config: an array", "[1,2,3]", ["object"]),
    ("config: string where a number goes", '{"model_type":"llama","hidden_size":"big","num_hidden_layers":2}',
     ["hidden_size"]),
    ("config: -1 layers", "{" + REQUIRED_CFG.replace('"num_hidden_layers":2', '"num_hidden_layers":-1') + "}",
     ["num_hidden_layers"]),
    ("config: zero heads", "{" + REQUIRED_CFG.replace('"num_attention_heads":8', '"num_attention_heads":0') + "}",
     ["num_attention_heads"]),
    ("config: 2^32 embedding", "{" + REQUIRED_CFG.replace('"hidden_size":2048', '"hidden_size":4294967296') + "}",
     ["hidden_size"]),
    ("config: Inf rope_theta", "{" + REQUIRED_CFG + ',"rope_theta":1e999}', ["1e999"]),
    ("config: duplicate key", "{" + REQUIRED_CFG + ',"hidden_size":10}', ["hidden_size"]),
    ("config: array nesting bomb", "[" * 100000 + "]" * 100000, ["depth"]),
    ("config: object nesting bomb", '{"a":' * 5000 + "1" + "}" * 5000, ["depth"]),
    ("config: truncated", "{" + REQUIRED_CFG[:40], ["line 1"]),
    ("config: binary", "\x00\x01\x02GGUF", []),
]

REQUIRED_PROFILE = '"schema_version":1,"n_cores":2,"ram_total":1000000000,"read_gbs":10'
# Machine profiles of the wrong shape (plan --hw FILE.json): needles name the field.
PROFILE_CASES = [
    ("profile: an array", "[]", ["top level"]),
    ("profile: no n_cores", '{"schema_version":1}', ["n_cores"]),
    ("profile: future schema", '{"schema_version":99}', ["schema version 99"]),
    ("profile: n_cores a string", '{"schema_version":1,"n_cores":"two","ram_total":1,"read_gbs":1}', ["n_cores"]),
    ("profile: caches an object", "{" + REQUIRED_PROFILE + ',"caches":{}}', ["caches"]),
    ("profile: 100000 GPUs", "{" + REQUIRED_PROFILE + ',"gpus":[' + ",".join(['{"name":"x"}'] * 100000) + "]}",
     ["gpus"]),
    ("profile: negative RAM", "{" + REQUIRED_PROFILE.replace("1000000000", "-1") + "}", ["ram_total"]),
    ("profile: RAM 1e300", "{" + REQUIRED_PROFILE.replace("1000000000", "1e300") + "}", ["ram_total"]),
    ("profile: negative bandwidth", "{" + REQUIRED_PROFILE.replace('"read_gbs":10', '"read_gbs":-5') + "}",
     ["read_gbs"]),
    ("profile: negative VRAM", "{" + REQUIRED_PROFILE + ',"gpus":[{"name":"x","vram_total":-1}]}',
     ["gpus[0].vram_total"]),
    ("profile: nesting bomb", "[" * 100000 + "]" * 100000, ["depth"]),
]


def json_cases(tmp, model):
    for i, (what, text, needles) in enumerate(CONFIG_CASES):
        path = write_file(tmp, f"config{i}.json", text.encode())
        expect_input_error(what, ["plan", path], needles + [f"config{i}.json"])
    for i, (what, text, needles) in enumerate(PROFILE_CASES):
        path = write_file(tmp, f"profile{i}.json", text.encode())
        expect_input_error(what, ["plan", model, "--hw", path], needles + [f"profile{i}.json"])


def flag_cases(tmp, model):
    for what, args, needles in FLAG_CASES:
        args = [a.replace("MODEL", model).replace("TMP", tmp) for a in args]
        expect_input_error(what, args, needles)


def truncations(tmp, blob, name, points):
    path = os.path.join(tmp, name)
    for cut in points:
        with open(path, "wb") as fp:
            fp.write(blob[:cut])
        expect_input_error(f"{name} truncated at {cut}", ["inspect", path], [path])


def main():
    with tempfile.TemporaryDirectory(prefix="fc_hostile_") as tmp:
        # A flag check that regressed must not write into the user's cache.
        os.environ["XDG_CACHE_HOME"] = tmp
        for i, (what, blob, needles, *run_needles) in enumerate(hostile_ggufs()):
            path = write_file(tmp, f"hostile{i}.gguf", blob)
            # Every verb that reads a GGUF: the reader, then what each builds on it.
            expect_input_error(what, ["inspect", "--json", path], needles)
            expect_input_error(what + " (plan)", ["plan", path], needles)
            expect_input_error(what + " (run)", ["run", path, "-p", "hi", "-n", "1"],
                               run_needles[0] if run_needles else needles)

        model = write_file(tmp, "model.gguf", g.tiny_llama())
        flag_cases(tmp, model)
        json_cases(tmp, model)

        # A small complete model cut at every byte of its fixed header, every
        # fourth byte of its metadata and tensor infos (no field is shorter,
        # so every field is cut), and twice in its data.
        tiny = g.tiny_llama()
        header_end = len(tiny) - 4 * (16 * 8 + 16 + 2 * (16 + 256))
        cuts = list(range(0, 32)) + list(range(33, header_end, 4)) + [header_end + 100, len(tiny) - 1]
        truncations(tmp, tiny, "tiny.gguf", cuts)
        real = os.path.join(MODELS, "SmolLM2-135M-Instruct.Q4_1.gguf")
        if MODELS and os.path.exists(real):
            with open(real, "rb") as fp:
                head = fp.read(4 << 20)  # the whole header (vocabulary included) is under 4 MiB
            size = os.path.getsize(real)
            step = len(head) // REAL_TRUNCATIONS
            truncations(tmp, head, "smollm2.gguf", [7 + step * k for k in range(REAL_TRUNCATIONS)])
            # Past the header: the tensor data no longer fits in the file.
            with open(real, "rb") as src, open(os.path.join(tmp, "smollm2-data.gguf"), "wb") as dst:
                dst.write(src.read(size // 2))
            expect_input_error("real model cut in its data", ["inspect", os.path.join(tmp, "smollm2-data.gguf")],
                               ["past the end"])
        else:
            skipped.append("real model truncations (FITCHECK_MODELS not set)")

    for f in failures:
        print("FAIL:", f)
    print(f"{ran} hostile cases, {len(failures)} failed, {len(skipped)} skipped"
          + (f" ({', '.join(sorted(set(s.split(' (')[0] for s in skipped))[:8])})" if skipped else ""))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
