"""Builds GGUF files byte by byte, so every field can be made hostile.

Used by the hostile CLI tests (tests/hostile/) and to regenerate the fuzz seed
corpus (`python3 tests/hostile/gguf_craft.py fuzz/seeds/gguf` and
`... fuzz/seeds/tokenizer tokenizer`).
Layout from ggml's gguf.cpp: magic, version, n_tensors, n_kv, then key/values,
tensor infos, padding to the alignment, tensor data."""
import struct
import sys

U8, I8, U16, I16, U32, I32, F32, BOOL, STRING, ARRAY, U64, I64, F64 = range(13)
SCALAR_FMT = {U8: "<B", I8: "<b", U16: "<H", I16: "<h", U32: "<I", I32: "<i",
              F32: "<f", BOOL: "<?", U64: "<Q", I64: "<q", F64: "<d"}
F32_TYPE, Q8_0_TYPE = 0, 8


def gstr(s):
    b = s.encode() if isinstance(s, str) else s
    return struct.pack("<Q", len(b)) + b


def value(vtype, v):
    """Encodes one value; arrays are (element type, [elements])."""
    if vtype == STRING:
        return gstr(v)
    if vtype == ARRAY:
        etype, items = v
        return struct.pack("<IQ", etype, len(items)) + b"".join(value(etype, x) for x in items)
    return struct.pack(SCALAR_FMT[vtype], v)


def kv(key, vtype, v):
    return gstr(key) + struct.pack("<I", vtype) + value(vtype, v)


def tensor_info(name, ne, ttype, offset):
    return gstr(name) + struct.pack("<I", len(ne)) + b"".join(struct.pack("<Q", n) for n in ne) + \
        struct.pack("<IQ", ttype, offset)


def header(n_tensors, n_kv, version=3):
    return b"GGUF" + struct.pack("<IQQ", version, n_tensors, n_kv)


def build(kvs, tensors, version=3, alignment=32):
    """kvs: [(key, vtype, value)]; tensors: [(name, ne, type, data bytes)].
    Offsets are laid out aligned, as a well-formed writer would."""
    infos, data, off = [], b"", 0
    for name, ne, ttype, blob in tensors:
        infos.append(tensor_info(name, ne, ttype, off))
        pad = (-len(blob)) % alignment
        data += blob + b"\0" * pad
        off += len(blob) + pad
    out = header(len(tensors), len(kvs), version) + b"".join(kv(*k) for k in kvs) + b"".join(infos)
    out += b"\0" * ((-len(out)) % alignment)
    return out + data


def tiny_llama_kvs(n_layer=2, n_embd=16, n_head=2, n_head_kv=1, eps=1e-5, n_vocab=8):
    return [
        ("general.architecture", STRING, "llama"),
        ("general.name", STRING, "tiny"),
        ("llama.block_count", U32, n_layer),
        ("llama.context_length", U32, 256),
        ("llama.embedding_length", U32, n_embd),
        ("llama.feed_forward_length", U32, 2 * n_embd),
        ("llama.attention.head_count", U32, n_head),
        ("llama.attention.head_count_kv", U32, n_head_kv),
        ("llama.attention.layer_norm_rms_epsilon", F32, eps),
        ("llama.rope.freq_base", F32, 10000.0),
        ("tokenizer.ggml.model", STRING, "gpt2"),
        ("tokenizer.ggml.tokens", ARRAY, (STRING, ["<s>", "</s>", "a", "b", "c", " ", "ab", "bc"][:n_vocab])),
    ]


def tiny_llama(**hp):
    """A complete small llama model: token embedding, output norm and one
    attention/FFN weight per layer, f32 so any reader can use it."""
    n_embd, n_layer = hp.get("n_embd", 16), hp.get("n_layer", 2)
    n_vocab = hp.get("n_vocab", 8)
    f32 = lambda *ne: (F32_TYPE, b"\0" * (4 * eval_prod(ne)))
    tensors = [("token_embd.weight", [n_embd, n_vocab], *f32(n_embd, n_vocab)),
               ("output_norm.weight", [n_embd], *f32(n_embd))]
    for il in range(n_layer):
        tensors.append((f"blk.{il}.attn_norm.weight", [n_embd], *f32(n_embd)))
        tensors.append((f"blk.{il}.attn_q.weight", [n_embd, n_embd], *f32(n_embd, n_embd)))
    return build(tiny_llama_kvs(**hp), tensors)


def eval_prod(ne):
    p = 1
    for n in ne:
        p *= n
    return p


def all_value_types():
    """Every value type, nested arrays and a v2 header: the reader's full grammar."""
    kvs = [(f"t.{t}", t, v) for t, v in
           [(U8, 200), (I8, -5), (U16, 60000), (I16, -300), (U32, 4000000000), (I32, -7),
            (F32, 1.5), (BOOL, True), (U64, 1 << 40), (I64, -(1 << 40)), (F64, 2.25), (STRING, "hello")]]
    kvs.append(("t.arr_i32", ARRAY, (I32, [1, -2, 3])))
    kvs.append(("t.arr_nested", ARRAY, (ARRAY, [(U8, [1, 2]), (U8, [3])])))
    kvs.append(("t.arr_str", ARRAY, (STRING, ["x", "", "yz"])))
    return build(kvs, [("w", [32, 2], Q8_0_TYPE, b"\1" * 68)], version=2)


def gpt2_byte_chars():
    """GPT-2's byte -> printable character map (byte-level BPE vocabularies)."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAD)) + list(range(0xAE, 0x100))
    cs, n = bs[:], 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return {b: chr(c) for b, c in zip(bs, cs)}


def tokenizer_kvs(kind):
    """A small but complete tokenizer: SentencePiece ("llama") with byte
    fallback and scores, or byte-level BPE ("gpt2") with ranked merges."""
    if kind == "llama":
        words = ["\u2581the", "\u2581a", "he", "ll", "o", "\u2581", "t", "h", "e", "l"]
        tokens = ["<unk>", "<s>", "</s>"] + [f"<0x{b:02X}>" for b in range(256)] + words
        types = [2, 3, 3] + [6] * 256 + [1] * len(words)
        scores = [0.0] * 259 + [-float(i) for i in range(len(words))]
        return [("tokenizer.ggml.model", STRING, "llama"), ("tokenizer.ggml.tokens", ARRAY, (STRING, tokens)),
                ("tokenizer.ggml.scores", ARRAY, (F32, scores)), ("tokenizer.ggml.token_type", ARRAY, (I32, types)),
                ("tokenizer.ggml.bos_token_id", U32, 1), ("tokenizer.ggml.eos_token_id", U32, 2),
                ("tokenizer.ggml.unknown_token_id", U32, 0)]
    bc = gpt2_byte_chars()
    sp = bc[ord(" ")]
    merges = [f"{sp} t", "h e", f"{sp}t he", "l l", "e ll", "o o"]
    tokens = [bc[b] for b in range(256)] + [m.replace(" ", "") for m in merges] + ["<|endoftext|>", "<|im_start|>"]
    types = [1] * (len(tokens) - 2) + [3, 3]
    return [("tokenizer.ggml.model", STRING, "gpt2"), ("tokenizer.ggml.pre", STRING, "smollm"),
            ("tokenizer.ggml.tokens", ARRAY, (STRING, tokens)), ("tokenizer.ggml.token_type", ARRAY, (I32, types)),
            ("tokenizer.ggml.merges", ARRAY, (STRING, merges)),
            ("tokenizer.ggml.bos_token_id", U32, len(tokens) - 2), ("tokenizer.ggml.eos_token_id", U32, len(tokens) - 2)]


def write_seeds(folder, target="gguf"):
    if target == "gguf":
        seeds = {"empty.gguf": build([], []), "all_types.gguf": all_value_types(), "tiny_llama.gguf": tiny_llama()}
    else:
        # fuzz_tokenizer input: u16 text length, the text, then the GGUF.
        text = "Hello the world, <|im_start|>héllo 12345 \u2581\xff".encode()
        seeds = {f"{k}.bin": struct.pack("<H", len(text)) + text + build(tokenizer_kvs(k), [])
                 for k in ("llama", "gpt2")}
    for name, blob in seeds.items():
        with open(f"{folder}/{name}", "wb") as fp:
            fp.write(blob)


if __name__ == "__main__":
    write_seeds(sys.argv[1], *sys.argv[2:])
