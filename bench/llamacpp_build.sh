#!/usr/bin/env bash
# Builds llama.cpp for the benches that compare against it, once, cached
# outside the repository (~/.cache/fitcheck/llama.cpp/build/bin), from the
# llama.cpp tree vendored in the llama-cpp-python source distribution on PyPI.
# Prints the bin folder (the sources are linked as src/ beside it). CPU only,
# with the RPC backend (rpc_vs_llamacpp.sh).
#
# The instruction sets are named, not -march=native: on a CPU with AMX
# (Sapphire Rapids and later) GGML_NATIVE compiles ggml's AMX kernels, and
# their repacked mul_mat crashes on this VM (llama-bench SIGSEGV with its
# default --repack 1; docs/engine.md), while the AVX-512 repacked kernels,
# which users of most x86 machines run, work. Machines without AVX-512 get
# AVX2.
#
# Usage: bench/llamacpp_build.sh    (LLAMA_CACHE=DIR to build elsewhere)
set -euo pipefail
cache=${LLAMA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fitcheck/llama.cpp}
bin=$cache/build/bin
targets=(llama-bench ggml-rpc-server llama-cli llama-mtmd-cli)
have() { for t in "${targets[@]}"; do [ -x "$bin/$t" ] || return 1; done; }
if ! have; then
    echo "llamacpp_build: building llama.cpp (CPU, RPC) into $cache: several minutes" >&2
    mkdir -p "$cache"
    cd "$cache"
    ls llama_cpp_python-*.tar.gz >/dev/null 2>&1 ||
        pip download --no-deps --no-binary :all: llama-cpp-python -d . >/dev/null
    # Globs, not `ls | sed`: before the first extraction ls fails, and under
    # pipefail that failure ended the script silently.
    srcs=(llama_cpp_python-*/vendor/llama.cpp)
    if [ ! -d "${srcs[0]}" ]; then
        tars=(llama_cpp_python-*.tar.gz)
        tar xzf "${tars[0]}"
        srcs=(llama_cpp_python-*/vendor/llama.cpp)
    fi
    src=${srcs[0]}
    ln -sfn "$PWD/$src" src # the headers, for bench/llama_greedy.c (moe_vs_llamacpp.sh)
    isa=(-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON)
    for flag in avx512f:AVX512 avx512_vnni:AVX512_VNNI avx512_vbmi:AVX512_VBMI avx512_bf16:AVX512_BF16; do
        if grep -qw "${flag%%:*}" /proc/cpuinfo; then isa+=(-DGGML_${flag#*:}=ON); fi
    done
    cmake -S "$src" -B build "${isa[@]}" -DGGML_RPC=ON -DLLAMA_CURL=OFF -DCMAKE_BUILD_TYPE=Release >/dev/null
    nice -n 10 cmake --build build --target "${targets[@]}" -j"$(nproc)" >/dev/null
fi
echo "$bin"
