#!/usr/bin/env python3
"""Ground truth for tests/engine_text/test_tokenizer.c (run by hand, not by the tests).

Builds reference tokenizers from the GGUF files' own vocabularies with
independent implementations and prints the ids of the test strings:
  - SmolLM2 (byte-level BPE): HuggingFace `tokenizers` BPE from the GGUF's
    tokens + merges, pre-tokenizer Digits(individual) + ByteLevel (the
    "smollm" pre-tokenizer), control tokens as added special tokens;
  - Gemma 3 (SentencePiece): a `sentencepiece` ModelProto (type BPE, byte
    fallback, no dummy prefix) from the GGUF's pieces, scores and types.
    llama.cpp matches user-defined tokens (e.g. "\\n\\n", "  ") in the raw text
    before SentencePiece runs; that split is reproduced here, longest first.

  pip install gguf tokenizers sentencepiece protobuf
  python3 tests/engine_text/make_token_ids.py $FITCHECK_MODELS
"""
import sys
import gguf

STRINGS = [
    "Hello world!",
    "The quick brown fox jumps over the lazy dog.",
    "It's 2024: numbers 1234567 and 3.14159",
    "  leading and   multiple   spaces\tand\ttabs\n\nnew lines\n",
    "caf\u00e9 na\u00efve \u00fcber \u65e5\u672c\u8a9e \u0440\u0443\u0441\u0441\u043a\u0438\u0439",
    "emoji \U0001F600\U0001F680 and \u2603!",
    "<|im_start|>user\nHi<|im_end|>",
    "<start_of_turn>user\nHi<end_of_turn>",
]


def fields(path):
    r = gguf.GGUFReader(path)
    f = r.fields
    strs = lambda k: [bytes(f[k].parts[i]).decode("utf-8") for i in f[k].data]
    nums = lambda k: [f[k].parts[i][0].item() for i in f[k].data]
    return f, strs, nums


def smollm(path):
    from tokenizers import Tokenizer, models, pre_tokenizers, decoders, AddedToken
    f, strs, nums = fields(path)
    toks, types = strs("tokenizer.ggml.tokens"), nums("tokenizer.ggml.token_type")
    merges = [tuple(m.split(" ", 1)) for m in strs("tokenizer.ggml.merges")]
    tk = Tokenizer(models.BPE({t: i for i, t in enumerate(toks)}, merges))
    tk.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.Digits(individual_digits=True),
                                                pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)])
    tk.decoder = decoders.ByteLevel()
    tk.add_special_tokens([AddedToken(t, special=True, normalized=False) for t, ty in zip(toks, types) if ty == 3])
    return lambda s: tk.encode(s, add_special_tokens=False).ids


def gemma(path):
    import sentencepiece as spm
    from sentencepiece import sentencepiece_model_pb2 as pb
    f, strs, nums = fields(path)
    toks, types, scores = strs("tokenizer.ggml.tokens"), nums("tokenizer.ggml.token_type"), nums("tokenizer.ggml.scores")
    m = pb.ModelProto()
    m.trainer_spec.model_type = pb.TrainerSpec.BPE
    m.trainer_spec.byte_fallback = True
    m.trainer_spec.unk_id, m.trainer_spec.bos_id, m.trainer_spec.eos_id, m.trainer_spec.pad_id = 3, 2, 1, 0
    m.normalizer_spec.add_dummy_prefix = False
    m.normalizer_spec.remove_extra_whitespaces = False
    m.normalizer_spec.escape_whitespaces = True
    m.normalizer_spec.name = "identity"
    kind = {1: pb.ModelProto.SentencePiece.NORMAL, 2: pb.ModelProto.SentencePiece.UNKNOWN,
            3: pb.ModelProto.SentencePiece.CONTROL, 4: pb.ModelProto.SentencePiece.USER_DEFINED,
            5: pb.ModelProto.SentencePiece.UNUSED, 6: pb.ModelProto.SentencePiece.BYTE}
    # sentencepiece wants user-defined pieces escaped ("  " -> "▁▁"); they are split off below anyway.
    for t, ty, sc in zip(toks, types, scores):
        p = m.pieces.add()
        p.piece, p.score, p.type = (t.replace(" ", "\u2581") if ty == 4 else t), sc, kind[ty]
    sp = spm.SentencePieceProcessor(model_proto=m.SerializeToString())
    special = sorted([(t, i) for i, (t, ty) in enumerate(zip(toks, types)) if ty in (3, 4)], key=lambda x: -len(x[0]))

    def encode(s):
        out, i, start = [], 0, 0
        while i < len(s):
            hit = next(((t, tid) for t, tid in special if s.startswith(t, i)), None)
            if not hit:
                i += 1
                continue
            if i > start:
                out += sp.encode(s[start:i])
            out.append(hit[1])
            i += len(hit[0])
            start = i
        return out + (sp.encode(s[start:]) if start < len(s) else [])
    return encode


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else "/tmp/fcmodels"
    for name, var, mk in (("SmolLM2-135M-Instruct.Q4_1.gguf", "smollm_ids", smollm),
                          ("gemma-3-270m-q4_k_m.gguf", "gemma_ids", gemma)):
        enc = mk(f"{d}/{name}")
        print(f"/* {name} */\nstatic const known_ids {var}[] = {{")
        for s in STRINGS:
            ids = enc(s)
            print(f"    {{{json(s)}, {len(ids)}, {{{', '.join(map(str, ids))}}}}},")
        print("};")


def json(s):
    """A C string literal: UTF-8 kept as is (the test source is UTF-8), control characters escaped."""
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t") + '"'


main()
