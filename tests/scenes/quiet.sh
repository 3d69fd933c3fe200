#!/usr/bin/env bash
# tests/scenes/quiet.sh ERRFILE MAX REGEX COMMAND...: the command must succeed,
# print at most MAX warning lines on stderr, and one of them must match REGEX
# (repeated warnings are counted and summarized at exit, core/log.h).
set -u
err=$1 max=$2 regex=$3; shift 3
mkdir -p "$(dirname "$err")"
"$@" >/dev/null 2>"$err" || { echo "the command failed"; cat "$err"; exit 1; }
warnings=$(grep -c '^flurry: \[warn\]' "$err")
cat "$err"
[ "$warnings" -le "$max" ] || { echo "expected at most $max warning lines, got $warnings"; exit 1; }
grep -Eq -- "$regex" "$err" || { echo "no warning matches /$regex/"; exit 1; }
echo "ok: $warnings warning lines"
