#!/usr/bin/env bash
# Nothing half-written, through the real command: `fitcheck gen` killed in
# the middle of writing a large GGUF (SIGINT and SIGKILL) leaves the previous
# file as it was; after SIGINT no temporary file is left either (after SIGKILL
# one may be, under its own name, never under the target's). Two probes saving
# the same profile at once leave one complete, loadable profile.
set -u
bin="${FITCHECK_BIN:?}"
tmp=$(mktemp -d /tmp/fc_interrupt.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME="$tmp/cache"
fail=0
# The embedding alone takes seconds to write: time enough to interrupt it.
GEN_ARGS=(gen --like llama-3.2-1b --layers 2 --quant Q8_0)

interrupt_gen() { # signal
    local sig=$1 target="$tmp/model-$1.gguf"
    echo "previous complete file" >"$target"
    "$bin" "${GEN_ARGS[@]}" -o "$target" >/dev/null 2>"$tmp/err" &
    local pid=$! tmpfile="$target.tmp.$!"
    # Wait until the writer is well into the temporary file.
    for _ in $(seq 1 600); do
        [ "$(stat -c %s "$tmpfile" 2>/dev/null || echo 0)" -gt $((4 << 20)) ] && break
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.05
    done
    if ! kill -0 "$pid" 2>/dev/null; then
        echo "SKIP $sig: gen finished before it could be interrupted"; return
    fi
    kill "-$sig" "$pid"
    { wait "$pid"; } 2>/dev/null # no "Killed" notice from the shell
    local rc=$?
    if [ "$(cat "$target")" != "previous complete file" ]; then
        echo "FAIL: $sig mid-write changed $target ($(stat -c %s "$target") bytes)"; fail=1
    fi
    if [ "$sig" = INT ]; then
        [ "$rc" -eq 1 ] || { echo "FAIL: gen after SIGINT: exit $rc, expected 1"; cat "$tmp/err"; fail=1; }
        [ -e "$tmpfile" ] && { echo "FAIL: SIGINT left $tmpfile behind"; fail=1; }
    fi
    rm -f "$tmpfile"
}
interrupt_gen INT
interrupt_gen KILL

# Two probes save the same profile concurrently: the lock and the rename
# leave exactly one complete profile that loads.
prof="$tmp/machine.json"
"$bin" probe --quick --no-gpu --force -o "$prof" >/dev/null 2>"$tmp/err1" &
p1=$!
"$bin" probe --quick --no-gpu --force -o "$prof" >/dev/null 2>"$tmp/err2" &
p2=$!
wait "$p1" || { echo "FAIL: first probe"; cat "$tmp/err1"; fail=1; }
wait "$p2" || { echo "FAIL: second probe"; cat "$tmp/err2"; fail=1; }
"$bin" probe --show "$prof" >/dev/null 2>"$tmp/err" || { echo "FAIL: concurrent probes left a bad profile"; cat "$tmp/err"; fail=1; }
ls "$tmp" | grep -q '\.tmp\.' && { echo "FAIL: temporary files left: $(ls "$tmp")"; fail=1; }
[ "$fail" -eq 0 ] && echo "interrupted writers left every target intact"
exit $fail
