#!/usr/bin/env python3
"""Hostile input through the real `fitcheck` binary ($FITCHECK_BIN).

Every case must end with exit status 2, nothing on stdout, and a message on
stderr naming what is wrong (the needle) and where (a byte offset, a key, a
flag). Under build-asan the binary is sanitized, so a crash, a leak or
undefined behaviour also fails the case. The reader's unit tests
(tests/model/test_gguf.c) cover the parser itself; these check the whole
path a user's file takes. Cases whose verb is not built yet are skipped."""
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
REAL_TRUNCATIONS = 60
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


def gguf_file(tmp, name, blob):
    path = os.path.join(tmp, name)
    with open(path, "wb") as fp:
        fp.write(blob)
    return path


def hostile_ggufs():
    """(description, file bytes, needles). Each mirrors an attack on the parser
    or on what is built from it; needles name the what and the where."""
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
        ("tensor in layer past n_layer", g.build(kvs(), [("blk.7.attn_q.weight", [16, 16], *f32(16, 16))]),
         ["blk.7.attn_q.weight", "layer 7"]),
    ]


def truncations(tmp, blob, name, points):
    path = os.path.join(tmp, name)
    for cut in points:
        with open(path, "wb") as fp:
            fp.write(blob[:cut])
        expect_input_error(f"{name} truncated at {cut}", ["inspect", path], [path])


def main():
    with tempfile.TemporaryDirectory(prefix="fc_hostile_") as tmp:
        for i, (what, blob, needles) in enumerate(hostile_ggufs()):
            path = gguf_file(tmp, f"hostile{i}.gguf", blob)
            expect_input_error(what, ["inspect", path], needles)
            expect_input_error(what + " (--json)", ["inspect", "--json", path], needles)

        # A small complete model cut at every byte of its fixed header, every
        # third byte of its metadata and tensor infos (each field is at least
        # 4 bytes, so every field is cut), and twice in its data.
        tiny = g.tiny_llama()
        header_end = len(tiny) - 4 * (16 * 8 + 16 + 2 * (16 + 256))
        cuts = list(range(0, 32)) + list(range(32, header_end, 3)) + [header_end + 100, len(tiny) - 1]
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
