#!/usr/bin/env bash
# fitcheck probe's contract: exit statuses, where the profile goes, --show.
set -u
bin="${FITCHECK_BIN:?}"
dir=$(mktemp -d /tmp/fc-probe-cli.XXXXXX)
trap 'rm -rf "$dir"' EXIT
export XDG_CACHE_HOME="$dir/cache"
fail=0
t() { # expected-status description command...
    local want=$1 what=$2; shift 2
    "$@" >"$dir/out" 2>"$dir/err"
    local got=$?
    if [ "$got" -ne "$want" ]; then
        echo "FAIL: $what: exit $got, expected $want"; cat "$dir/err"; fail=1
    fi
}
t 0 "--help" "$bin" probe --help
grep -q -- "--quick" "$dir/out" || { echo "FAIL: --help does not describe --quick"; fail=1; }
t 2 "unknown flag" "$bin" probe --bogus
t 2 "threads zero" "$bin" probe -t 0
t 2 "threads not a number" "$bin" probe --threads many
t 2 "stray argument" "$bin" probe extra
t 2 "models dir missing" "$bin" probe --no-gpu --models-dir "$dir/nowhere"
t 2 "--show of a missing file" "$bin" probe --show "$dir/none.json"
echo '{"schema_version": 1, "n_cores": "x"}' >"$dir/bad.json"
t 2 "--show of a malformed profile" "$bin" probe --show "$dir/bad.json"
grep -q "n_cores" "$dir/err" || { echo "FAIL: malformed profile message does not name the field"; fail=1; }
echo '{"schema_version": 999}' >"$dir/new.json"
t 2 "--show of a newer schema" "$bin" probe --show "$dir/new.json"
grep -q "newer" "$dir/err" || { echo "FAIL: newer schema message: $(cat "$dir/err")"; fail=1; }

# A real quick probe, saved where -o says, shown again in both forms.
t 0 "quick probe to -o" "$bin" probe --quick --no-gpu -o "$dir/m.json"
grep -q '"schema_version": 1' "$dir/m.json" || { echo "FAIL: -o file lacks schema_version"; fail=1; }
grep -q "read" "$dir/out" || { echo "FAIL: no summary on stdout"; fail=1; }
t 0 "--show FILE --json" "$bin" probe --show "$dir/m.json" --json
python3 -c 'import json,sys; p=json.load(open(sys.argv[1])); assert p["read_gbs"] > 0' "$dir/out" ||
    { echo "FAIL: --show --json is not the profile"; fail=1; }
t 0 "--show=FILE" "$bin" probe --show="$dir/m.json"
grep -q "cores" "$dir/out" || { echo "FAIL: --show prints no summary"; fail=1; }

# The default location is $XDG_CACHE_HOME/fitcheck/machine.json.
t 0 "quick probe to the cache" "$bin" probe --quick --no-gpu --json
[ -f "$XDG_CACHE_HOME/fitcheck/machine.json" ] || { echo "FAIL: no profile in the cache dir"; fail=1; }
t 0 "--show of the cached profile" "$bin" probe --show

# A lying hwloc (a synthetic 16-thread topology on this machine) is noticed and
# ignored with a note, never trusted for pinning and never a crash.
online=$(getconf _NPROCESSORS_ONLN)
if [ "$online" -lt 16 ]; then
    HWLOC_SYNTHETIC="pack:2 core:4 pu:2" t 0 "lying hwloc topology" "$bin" probe --quick --no-gpu --json -o "$dir/l.json"
    grep -q "hwloc topology ignored" "$dir/l.json" || { echo "FAIL: lying hwloc not noted"; fail=1; }
    grep -q "\"n_cores\": 8," "$dir/l.json" && { echo "FAIL: lying hwloc core count kept"; fail=1; }
fi

# An unwritable cache directory is a clear error before anything is measured.
XDG_CACHE_HOME=/dev/null/cache t 1 "unwritable cache dir" "$bin" probe --quick --no-gpu
grep -q "cannot" "$dir/err" || { echo "FAIL: unwritable cache message: $(cat "$dir/err")"; fail=1; }
exit $fail
