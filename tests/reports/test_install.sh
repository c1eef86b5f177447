#!/usr/bin/env bash
# The man page and bash completion: installed by `meson install`, the page
# renders without warnings, and completion offers verbs, options and values.
set -u
src="${FITCHECK_SRC:?}"
bin="${FITCHECK_BIN:?}"
build="${1:?usage: test_install.sh BUILD_DIR}"
dir=$(mktemp -d /tmp/fc_install.XXXXXX)
trap 'rm -rf "$dir"' EXIT
fail=0

meson install -C "$build" --destdir "$dir" --no-rebuild >"$dir/log" 2>&1 || { echo "FAIL: meson install"; tail "$dir/log"; exit 1; }
for f in bin/fitcheck share/man/man1/fitcheck.1 share/bash-completion/completions/fitcheck; do
    [ -n "$(find "$dir" -path "*/$f" -print -quit)" ] || { echo "FAIL: $f not installed"; fail=1; }
done

if command -v groff >/dev/null; then
    warnings=$(groff -man -Tutf8 -ww -z "$src/fitcheck.1" 2>&1)
    [ -z "$warnings" ] || { echo "FAIL: man page warnings: $warnings"; fail=1; }
    groff -man -Tutf8 -P-cbou "$src/fitcheck.1" 2>/dev/null | grep -q "NO_COLOR" || { echo "FAIL: man page lacks NO_COLOR"; fail=1; }
fi

# Every verb the command knows is in the page and in the completion.
verbs=$("$bin" --help | awk '/^verbs:/ { on = 1; next } on && NF { print $1 } on && !NF { exit }')
[ -n "$verbs" ] || { echo "FAIL: no verbs in --help"; fail=1; }
for v in $verbs; do
    grep -q "^\.B $v\$" "$src/fitcheck.1" || { echo "FAIL: verb $v not in the man page"; fail=1; }
done

PATH="$(dirname "$bin"):$PATH"
# shellcheck disable=SC1091
source "$src/completion/fitcheck.bash"
complete_words() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=(); _fitcheck; echo "${COMPREPLY[*]}"; }
got=$(complete_words fitcheck re)
[ "$got" = "report" ] || { echo "FAIL: 'fitcheck re<TAB>' gave '$got'"; fail=1; }
for v in $verbs; do
    complete_words fitcheck "" | grep -qw "$v" || { echo "FAIL: verb $v not completed"; fail=1; }
done
got=$(complete_words fitcheck plan qwen3-8b -o "")
[ "$got" = "md csv json jsonl" ] || { echo "FAIL: plan -o gave '$got'"; fail=1; }
got=$(complete_words fitcheck report --ru)
[ "$got" = "--runs" ] || { echo "FAIL: report --ru gave '$got'"; fail=1; }
complete_words fitcheck plan qwen3- | grep -qw "qwen3-8b" || { echo "FAIL: catalog models not completed"; fail=1; }
exit $fail
