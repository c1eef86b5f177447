#!/usr/bin/env bash
# Sets up a fresh Debian machine for fitcheck: installs the Debian packages
# that are missing (apt-get), configures meson in build/ and compiles.
# Usage: scripts/setup.sh [--test|--bench]   (--test adds what the test suite needs,
#        --bench the reference tools bench/ compares against)
set -euo pipefail
cd "$(dirname "$0")/.."

pkgs=(gcc pkg-config meson ninja-build python3 python3-pip
      libhwloc-dev libpci-dev libopenblas-dev libjansson-dev libcurl4-openssl-dev
      ocl-icd-libopencl1 pocl-opencl-icd clinfo)
if [ "${1:-}" = "--test" ]; then
    # iproute2: ip netns, tc (tests/net); chromium: tests/reports/test_browser.sh
    # renders the HTML report headless.
    pkgs+=(clang libclang-rt-14-dev iproute2 chromium)
fi
if [ "${1:-}" = "--bench" ]; then
    pkgs+=(likwid)
fi

missing=()
for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "setup: installing ${missing[*]}" >&2
    sudo_cmd=()
    [ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
    "${sudo_cmd[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

opts=()
[ "${CI:-}" = "true" ] && opts+=(-Dwerror=true)
if [ ! -f build/build.ninja ]; then
    meson setup build "${opts[@]}" >/dev/null
elif [ ${#opts[@]} -gt 0 ]; then
    meson configure build "${opts[@]}" >/dev/null
fi
ninja -C build >/dev/null
