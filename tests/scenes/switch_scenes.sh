#!/usr/bin/env bash
# tests/scenes/switch_scenes.sh FLURRY OUTDIR SWITCHES: a window under Xvfb,
# validation on, where a key script (FLURRY_KEYS) presses N every 3 frames,
# SWITCHES times. Then the overlay of the last frame (FLURRY_OVERLAY_DUMP) must
# list only passes of the scene it ended on, as many as a fresh run of that
# scene times (its report's timings_ms), name that scene, and fit in the window,
# and the panel (the lines it appends) must name that scene and show its passes;
# the report of the switched run must time exactly the fresh run's passes.
set -eu
flurry=$1 out=$2 switches=$3
mkdir -p "$out"
keys=""
for i in $(seq 1 "$switches"); do keys="$keys${keys:+,}$((3 * i)):n"; done
frames=$((3 * switches + 6))
FLURRY_KEYS=$keys FLURRY_OVERLAY_DUMP=$out/switched.txt xvfb-run -a -s '-screen 0 1280x720x24' \
  "$flurry" --frames $frames --size 640x360 --validation --report "$out/switched.json" 2>"$out/switched.err"
loaded=$(grep -c '^flurry: \[info\] scene [^ ]* (' "$out/switched.err")
if [ "$loaded" -ne $((switches + 1)) ]; then
  echo "expected $((switches + 1)) scenes loaded, saw $loaded"; cat "$out/switched.err"; exit 1
fi
last=$(grep '^flurry: \[info\] scene [^ ]* (' "$out/switched.err" | tail -1 | sed -E "s/^flurry: \[info\] scene ([^ ]*) .*/\1/")
"$flurry" --headless --scene "$last" --frames 6 --size 640x360 --report "$out/fresh.json" 2>/dev/null
# The keys of timings_ms: a key line followed by its "mean" line (cJSON's formatted output).
timed() { awk '/"mean":/ { print key } { if (match($0, /"[^"]+":[ \t]*\{/)) key = substr($0, RSTART + 1, index(substr($0, RSTART + 1), "\"") - 1) }' "$1" | sort; }
if ! diff <(timed "$out/switched.json") <(timed "$out/fresh.json"); then
  echo "after $switches switches the report times other passes than a fresh run of $last (< switched, > fresh)"; exit 1
fi
shown=$(grep -E '^ *[0-9.]+ ms  [^(]' "$out/switched.txt" | sed -E 's/^ *[0-9.]+ ms  +//' | sort)
[ -n "$shown" ] || { echo "the overlay lists no passes"; cat "$out/switched.txt"; exit 1; }
stray=$(comm -23 <(echo "$shown") <(timed "$out/fresh.json"))
[ -z "$stray" ] || { echo "the overlay lists passes $last does not run: $stray"; exit 1; }
more=$(sed -nE 's/^ *[0-9.]+ ms  \(([0-9]+) more passes\)$/\1/p' "$out/switched.txt")
total=$(( $(echo "$shown" | wc -l) + ${more:-0} ))
fresh=$(timed "$out/fresh.json" | wc -l)
[ "$total" -eq "$fresh" ] || { echo "the overlay counts $total passes, a fresh run of $last times $fresh"; exit 1; }
lines=$(sed '/^$/,$d' "$out/switched.txt" | wc -l)
if [ "$lines" -gt 28 ]; then echo "the overlay has $lines lines of 12 pixels: it runs off a 360-pixel window"; exit 1; fi
title=$(grep '^flurry: \[info\] scene [^ ]* (' "$out/switched.err" | tail -1 | sed -E 's/^flurry: \[info\] scene [^ ]* \((.*)\): [0-9]+ particles.*/\1/')
grep -qF "scene $title" "$out/switched.txt" || { echo "the overlay does not name \"$title\""; cat "$out/switched.txt"; exit 1; }
# The panel drew the same: that scene's name, and its passes (at most 10 rows, the rest summed).
grep -qxF "panel scene: $title" "$out/switched.txt" || { echo "the panel does not name \"$title\""; cat "$out/switched.txt"; exit 1; }
rows=$(sed -nE 's/^panel pass rows: ([0-9]+)$/\1/p' "$out/switched.txt")
[ "$rows" = "$(( fresh < 10 ? fresh : 10 ))" ] || { echo "the panel shows ${rows:-no} pass rows, $last times $fresh passes"; exit 1; }
echo "ok: $switches switches, ended on $last, $total passes as in a fresh run, overlay of $lines lines"
