#!/usr/bin/env bash
# The report in a real browser: headless Chromium loads it with no console
# errors, lays out every chart with a size and shapes, and can screenshot it.
# Skips (77) where Chromium is not installed (Debian package `chromium`).
set -u
make_report="${1:?usage: test_browser.sh TEST_REPORT_BINARY}"
chromium=$(command -v chromium || command -v chromium-browser || true)
[ -n "$chromium" ] || { echo "chromium not installed: skipping"; exit 77; }
dir=$(mktemp -d /tmp/fc_browser.XXXXXX)
trap 'rm -rf "$dir"' EXIT
"$make_report" "$dir/report.html" >/dev/null || { echo "FAIL: could not write the report"; exit 1; }
python3 "${FITCHECK_SRC:?}/tests/reports/check_html.py" "$dir/report.html" || exit 1
cp "${FITCHECK_SRC:?}/tests/reports/browser_probe.html" "$dir/probe.html"
flags=(--headless --disable-gpu --no-sandbox --no-first-run --user-data-dir="$dir/profile"
       --enable-logging=stderr --v=0 --virtual-time-budget=5000)
fail=0

# 1. The report alone: console messages (script errors, blocked requests,
#    CSP violations) are logged as CONSOLE lines.
timeout 60 "$chromium" "${flags[@]}" --dump-dom "file://$dir/report.html" >"$dir/dom.html" 2>"$dir/log.txt"
grep -q "</svg>" "$dir/dom.html" || { echo "FAIL: no DOM dumped"; tail -5 "$dir/log.txt"; fail=1; }
if grep -E "CONSOLE|Uncaught|Refused to" "$dir/log.txt"; then echo "FAIL: console messages above"; fail=1; fi

# 2. Layout: every chart has a size and its shapes were drawn.
timeout 60 "$chromium" "${flags[@]}" --allow-file-access-from-files --dump-dom "file://$dir/probe.html" \
    >"$dir/probe_dom.html" 2>/dev/null
python3 - "$dir/probe_dom.html" <<'PY' || fail=1
import re, sys
text = open(sys.argv[1]).read()
charts = re.findall(r"CHART (\S+) (\d+)x(\d+) shapes=(\d+) drawn=(\d+)", text)
want = {"chart-bw-sweep", "chart-bw-threads", "chart-fit", "chart-depth-tg", "chart-depth-pp", "chart-accuracy"}
got = {c[0] for c in charts}
assert got == want, f"charts laid out: {sorted(got)}, expected {sorted(want)}\n{text[-2000:]}"
for cid, w, h, shapes, drawn in charts:
    w, h, shapes, drawn = map(int, (w, h, shapes, drawn))
    assert w >= 600 and h >= 150, f"{cid} rendered {w}x{h}"
    assert shapes > 0 and drawn == shapes, f"{cid}: {drawn} of {shapes} shapes drawn"
assert re.search(r"TABLES ([1-9]\d*)", text), "no tables"
assert "SCRIPTS 0" in text, "the report contains script"
print(f"{len(charts)} charts rendered")
PY

# 3. A screenshot (look at it by hand: the test only checks it was drawn).
timeout 60 "$chromium" "${flags[@]}" --hide-scrollbars --window-size=1000,3000 \
    --screenshot="$dir/report.png" "file://$dir/report.html" >/dev/null 2>&1
size=$(stat -c %s "$dir/report.png" 2>/dev/null || echo 0)
[ "$size" -gt 50000 ] || { echo "FAIL: screenshot is $size bytes"; fail=1; }
[ -n "${FITCHECK_SCREENSHOT:-}" ] && cp "$dir/report.png" "$FITCHECK_SCREENSHOT"
exit $fail
