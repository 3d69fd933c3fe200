#!/usr/bin/env bash
# tests/scenes/expect_error.sh REGEX -- COMMAND...: the command must exit
# non-zero, print exactly one line starting "flurry: error:" on stderr, with
# text after it (no error line is empty), and that line must match REGEX. (Bad input gets one clear line, never a crash.)
set -u
regex=$1; shift; [ "$1" = "--" ] && shift
err=$(mktemp); trap 'rm -f "$err"' EXIT
"$@" >/dev/null 2>"$err"; code=$?
lines=$(grep -c '^flurry: error:' "$err")
if [ $code -eq 0 ] || [ $code -ge 128 ]; then echo "expected a clean non-zero exit, got $code"; cat "$err"; exit 1; fi
if [ "$lines" -ne 1 ]; then echo "expected one 'flurry: error:' line, got $lines"; cat "$err"; exit 1; fi
if grep -Eq '^flurry: error: *$' "$err"; then echo "the error line is empty"; cat "$err"; exit 1; fi
if ! grep -Eq -- "$regex" "$err"; then echo "error line does not match /$regex/:"; cat "$err"; exit 1; fi
echo "ok (exit $code): $(grep '^flurry: error:' "$err")"
