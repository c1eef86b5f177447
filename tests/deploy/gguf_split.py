"""Splits a real GGUF file the way llama.cpp's gguf-split does (--split-max-tensors),
so the split-model path is tested on real models without building llama.cpp.

Format (llama.cpp tools/gguf-split/gguf-split.cpp, init_ctx_out): every part is a
complete GGUF v3 file with split.no (u16, 0-based), split.count (u16) and
split.tensors.count (i32); the first part also carries all the input's metadata.
Parts are named PREFIX-%05d-of-%05d.gguf (llama_split_path), numbered from 1.

Usage as a module: split(src, prefix, n_parts, edit=None) -> [paths]
edit(i, kvs) may change part i's metadata list (hostile variants)."""
import struct

U8, I8, U16, I16, U32, I32, F32, BOOL, STRING, ARRAY, U64, I64, F64 = range(13)
SIZE = {U8: 1, I8: 1, U16: 2, I16: 2, U32: 4, I32: 4, F32: 4, BOOL: 1, U64: 8, I64: 8, F64: 8}
# ggml type id -> (block elements, block bytes), for the types the test models use
BLOCK = {0: (1, 4), 1: (1, 2), 2: (32, 18), 3: (32, 20), 6: (32, 22), 7: (32, 24), 8: (32, 34),
         10: (256, 84), 11: (256, 110), 12: (256, 144), 13: (256, 176), 14: (256, 210), 30: (1, 2)}


class Reader:
    def __init__(self, data):
        self.d, self.p = data, 0

    def take(self, n):
        b = self.d[self.p:self.p + n]
        self.p += n
        return b

    def u32(self):
        return struct.unpack("<I", self.take(4))[0]

    def u64(self):
        return struct.unpack("<Q", self.take(8))[0]

    def skip_value(self, t):
        if t == STRING:
            self.take(self.u64())
        elif t == ARRAY:
            et, n = self.u32(), self.u64()
            if et in SIZE:
                self.take(SIZE[et] * n)
            else:
                for _ in range(n):
                    self.skip_value(et)
        else:
            self.take(SIZE[t])


def read(path):
    """-> (kvs as [(key, raw bytes of key+type+value)], tensors as [(name, ne, type, data bytes)], alignment)"""
    with open(path, "rb") as f:
        data = f.read()
    r = Reader(data)
    assert r.take(4) == b"GGUF"
    r.u32()
    n_tensors, n_kv = r.u64(), r.u64()
    kvs, alignment = [], 32
    for _ in range(n_kv):
        start = r.p
        key = r.take(r.u64()).decode()
        t = r.u32()
        vstart = r.p
        r.skip_value(t)
        if key == "general.alignment":
            alignment = struct.unpack("<I", data[vstart:vstart + 4])[0]
        kvs.append((key, data[start:r.p]))
    infos = []
    for _ in range(n_tensors):
        name = r.take(r.u64()).decode()
        nd = r.u32()
        ne = [r.u64() for _ in range(nd)]
        infos.append((name, ne, r.u32(), r.u64()))
    base = r.p + (-r.p) % alignment
    tensors = []
    for name, ne, t, off in infos:
        blck, bb = BLOCK[t]
        n = 1
        for x in ne:
            n *= x
        nbytes = n // blck * bb
        tensors.append((name, ne, t, data[base + off:base + off + nbytes]))
    return kvs, tensors, alignment


def gstr(s):
    b = s.encode()
    return struct.pack("<Q", len(b)) + b


def kv_raw(key, vtype, fmt, v):
    return (key, gstr(key) + struct.pack("<I", vtype) + struct.pack(fmt, v))


def write(path, kvs, tensors, alignment):
    infos, blobs, off = [], [], 0
    for name, ne, t, blob in tensors:
        infos.append(gstr(name) + struct.pack("<I", len(ne)) + b"".join(struct.pack("<Q", x) for x in ne) +
                     struct.pack("<IQ", t, off))
        pad = (-len(blob)) % alignment
        blobs.append(blob + b"\0" * pad)
        off += len(blob) + pad
    head = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(kvs)) + b"".join(raw for _, raw in kvs) + b"".join(infos)
    head += b"\0" * ((-len(head)) % alignment)
    with open(path, "wb") as f:
        f.write(head)
        for b in blobs:
            f.write(b)


def split(src, prefix, n_parts, edit=None):
    kvs, tensors, alignment = read(src)
    per = -(-len(tensors) // n_parts)
    paths = []
    for i in range(n_parts):
        part_kvs = [kv for kv in kvs if not kv[0].startswith("split.")] if i == 0 else []
        part_kvs += [kv_raw("split.no", U16, "<H", i), kv_raw("split.count", U16, "<H", n_parts),
                     kv_raw("split.tensors.count", I32, "<i", len(tensors))]
        if edit:
            part_kvs = edit(i, part_kvs)
        path = "%s-%05d-of-%05d.gguf" % (prefix, i + 1, n_parts)
        write(path, part_kvs, tensors[i * per:(i + 1) * per], alignment)
        paths.append(path)
    return paths
