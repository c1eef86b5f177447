#!/usr/bin/env bash
# Packs fitcheck for the GPU machine: one git-ignored folder that runs with
# nothing installed there (no network, no apt, no build), carried next to the
# working tree (docs/gpu.md has the one-line command).
#
#   .gpu-bundle/fitcheck    the command: a shell wrapper that starts bin/fitcheck
#                           with the bundle's own loader and libraries
#   .gpu-bundle/bin/        the fitcheck executable
#   .gpu-bundle/runtime/    this machine's glibc (loader included), libstdc++ and
#                           libgcc_s: every library the driver's own libraries
#                           may also need, so that no process ever mixes two glibcs
#   .gpu-bundle/lib/        the rest of what fitcheck loads (ldd): OpenBLAS with
#                           libgfortran/libquadmath, hwloc, libpci with libudev and
#                           zlib, jansson
#   .gpu-bundle/MANIFEST    every file with its size and the package it came from
#
# Not packed: libcuda.so.1 and the rest of the NVIDIA driver (they must be the
# target's own, matching its kernel module) and libOpenCL/PoCL (the check
# measures CUDA devices; an OpenCL ICD found there is used as it is).
# pci.ids is not needed: GPU names come from the driver, NVMe names from sysfs.
#
# Usage: scripts/gpu-pack.sh [--bin FITCHECK] [--out DIR] [--max-mib N]
#   --bin  pack this executable instead of building build/fitcheck (the test
#          suite passes its own build: no ninja inside ninja)
#   --out  where the bundle goes (default .gpu-bundle); replaced whole
#   --max-mib  the most the bundle may take (default 60; 0: no limit, for a
#          sanitized build that is tested here and never travels)
set -euo pipefail
cd "$(dirname "$0")/.."

# The device machine takes the working tree and the carried folders together
# up to 64 MiB (/work/.library/device/README.md); the tree is about 2 MiB.
BUNDLE_MAX_MIB=60
# glibc's libraries by soname: all of them travel together with the loader,
# because a driver library that needs one of them (libcuda needs libdl,
# libpthread and librt) must not load the target's copy next to ours.
GLIBC_SONAMES=(ld-linux-x86-64.so.2 libc.so.6 libm.so.6 libmvec.so.1 libdl.so.2 libpthread.so.0 librt.so.1
               libresolv.so.2 libutil.so.1 libanl.so.1 libnsl.so.1 libnss_files.so.2 libnss_dns.so.2
               libnss_compat.so.2)
# The compiler runtime: driver helper libraries may be C++; the target's own
# libstdc++ could need a newer glibc than ours.
CC_RUNTIME_SONAMES=(libstdc++.so.6 libgcc_s.so.1)

bin="" out=".gpu-bundle" max_mib=$BUNDLE_MAX_MIB
while [ $# -gt 0 ]; do
    case "$1" in
    --bin) bin="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --max-mib) max_mib="$2"; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "gpu-pack: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
if [ -z "$bin" ]; then
    if [ ! -f build/build.ninja ]; then
        meson setup build >/dev/null
    fi
    ninja -C build fitcheck >/dev/null
    bin=build/fitcheck
fi
[ -x "$bin" ] || { echo "gpu-pack: $bin is not an executable" >&2; exit 2; }
[ "$(uname -m)" = x86_64 ] || { echo "gpu-pack: the GPU machine is x86-64; this is $(uname -m)" >&2; exit 2; }

# What the loader resolves for fitcheck: "name => /path (addr)" lines, and
# the loader's own line "/lib64/ld-linux-x86-64.so.2 (addr)".
deps=$(ldd "$bin") || { echo "gpu-pack: ldd $bin failed" >&2; exit 2; }
if grep -q "not found" <<<"$deps"; then
    echo "gpu-pack: $bin has unresolved libraries:" >&2
    grep "not found" <<<"$deps" >&2
    exit 2
fi
libc=$(awk '$1 == "libc.so.6" {print $3}' <<<"$deps")
[ -n "$libc" ] || { echo "gpu-pack: $bin does not load libc.so.6" >&2; exit 2; }
libdir=$(dirname "$(readlink -f "$libc")")

rm -rf "$out"
mkdir -p "$out/bin" "$out/runtime" "$out/lib" "$out/hwloc-plugins"

declare -A origin # packed name -> the file it was copied from
pack() { # pack SRC DEST
    origin[$2]=$(readlink -f "$1")
    cp -L "$1" "$out/$2"
}
is_runtime() {
    local n
    for n in "${GLIBC_SONAMES[@]}" "${CC_RUNTIME_SONAMES[@]}"; do [ "$1" = "$n" ] && return 0; done
    return 1
}
# ldd's libraries under their sonames (symbolic links followed)
while read -r name arrow path _; do
    [ "$arrow" = "=>" ] && [ -f "$path" ] || continue
    is_runtime "$name" && continue
    pack "$path" "lib/$name"
done <<<"$deps"
for name in "${GLIBC_SONAMES[@]}"; do
    pack "$libdir/$name" "runtime/$name"
done
for name in "${CC_RUNTIME_SONAMES[@]}"; do
    # awk reads to the end (no 'exit'): closing the pipe early would SIGPIPE ldconfig, which pipefail makes fatal
    path=$(/sbin/ldconfig -p | awk -v n="$name" '!found && $1 == n && /x86-64/ {print $NF; found = 1}')
    [ -n "$path" ] || { echo "gpu-pack: $name not found by ldconfig" >&2; exit 2; }
    pack "$path" "runtime/$name"
done

# The wrapper: the bundle's loader runs fitcheck, its library path is the
# bundle first, then whatever the caller put on LD_LIBRARY_PATH (the GPU
# check adds the driver's folders there). FITCHECK_BUNDLE_LOADER=system uses
# the machine's own loader and C runtime instead, with only lib/ from the
# bundle: the fallback when the driver's libraries will not load with ours.
# HWLOC_PLUGINS_PATH: an empty folder, so that the target's hwloc plugins
# (built for another hwloc) are never loaded into this one.
cat >"$out/fitcheck" <<'EOF'
#!/bin/sh
# fitcheck from the bundle made by scripts/gpu-pack.sh.
here=$(cd "$(dirname "$0")" && pwd)
export HWLOC_PLUGINS_PATH="$here/hwloc-plugins"
if [ "${FITCHECK_BUNDLE_LOADER:-bundle}" = system ]; then
    LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec "$here/bin/fitcheck" "$@"
fi
exec "$here/runtime/ld-linux-x86-64.so.2" \
    --library-path "$here/runtime:$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
    --argv0 fitcheck "$here/bin/fitcheck" "$@"
EOF
chmod +x "$out/fitcheck"
pack "$bin" bin/fitcheck

# MANIFEST: size, name, and where each file came from
{
    echo "# fitcheck GPU bundle, packed $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(. /etc/os-release && echo "$PRETTY_NAME"),"
    # sed reads to the end: head would close the pipe early, and under pipefail
    # the writer's SIGPIPE (141) would fail the assignment below and the script
    echo "# $(ldd --version | sed -n 1p)"
    echo "# bytes  file  copied from  (package)"
    for f in $(printf '%s\n' "${!origin[@]}" | sort); do
        if [ "$f" = bin/fitcheck ]; then
            pkg="fitcheck $(git describe --always --dirty 2>/dev/null || echo '?')"
        else
            # usrmerge: dpkg may know the file under /lib rather than /usr/lib
            pkg=$( (dpkg -S "${origin[$f]}" "${origin[$f]#/usr}" 2>/dev/null || true) | sed -n 1p | cut -d: -f1)
        fi
        echo "$(stat -c %s "$out/$f")  $f  ${origin[$f]}  (${pkg:-?})"
    done
} >"$out/MANIFEST"

mib=$(du -sm "$out" | cut -f1)
if [ "$max_mib" -gt 0 ] && [ "$mib" -gt "$max_mib" ]; then
    echo "gpu-pack: $out is $mib MiB, over the $max_mib MiB that can travel" >&2
    exit 2
fi
echo "gpu-pack: $out ($mib MiB, $(find "$out" -type f | wc -l) files)"
