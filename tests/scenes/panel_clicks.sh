#!/usr/bin/env bash
# tests/scenes/panel_clicks.sh FLURRY OUTDIR: the UI panel's code paths headless,
# validation on, driven by scripted clicks on its widgets (FLURRY_PANEL_CLICKS:
# a press over the widget as last drawn, the release a frame later, so the
# action is applied before the frame after that).
#  1. Pause, then Step twice: `particles` simulates the 4 frames before the
#     pause took effect and one frame per step, so its report counts exactly
#     6 frames of substeps.
#  2. The substeps slider of `cloth`, Reset, then a scene from the list: the
#     slider's value reloads the scene with it (and Reset keeps it); the scene
#     clicked is the one the run ends on. It is cloth-fold, the row under cloth:
#     the list shows 7 rows around the current scene, so a scene further down
#     the alphabet (drape was) leaves it when scenes are added.
set -eu
flurry=$1 out=$2
mkdir -p "$out"
substeps() { sed -nE "s/^flurry: \[info\] scene $1 \(.*\): [0-9]+ particles, ([0-9]+) substeps.*/\1/p" "$2"; }

FLURRY_PANEL_CLICKS=2:pause,6:step,8:step "$flurry" --headless --scene particles --frames 12 --size 640x360 \
  --validation --report "$out/pause.json" 2>"$out/pause.err" || { cat "$out/pause.err"; exit 1; }
per_frame=$(substeps particles "$out/pause.err")
steps=$(sed -nE 's/^[[:space:]]*"sim_steps":[[:space:]]*([0-9]+).*/\1/p' "$out/pause.json")
[ "$steps" -eq $((6 * per_frame)) ] ||
  { echo "pause and two steps: expected $((6 * per_frame)) substeps (6 frames of $per_frame), the report has $steps"; exit 1; }
echo "ok: paused at frame 4, two steps: $steps substeps"

FLURRY_PANEL_CLICKS=2:knob:sim.substeps@0.15,5:reset,8:header:Scenes,11:scene:cloth-fold "$flurry" --headless \
  --scene cloth --frames 15 --size 640x360 --validation --report "$out/knob.json" 2>"$out/knob.err" ||
  { cat "$out/knob.err"; exit 1; }
set_to=$(sed -nE 's/^flurry: \[info\] panel: sim\.substeps=([0-9]+)$/\1/p' "$out/knob.err")
loads=$(substeps cloth "$out/knob.err" | tr '\n' ' ')
[ -n "$set_to" ] || { echo "the substeps slider wrote no override"; cat "$out/knob.err"; exit 1; }
[ "$loads" = "12 $set_to $set_to " ] && [ "$set_to" -ne 12 ] ||
  { echo "cloth should load with 12 substeps, then the slider's $set_to (and keep it on reset): loaded with $loads"; exit 1; }
grep -Eq '"scene":[[:space:]]*"A hanging sheet dropped on its edge' "$out/knob.json" ||
  { echo "the run should end on the scene clicked in the list (cloth-fold)"; grep '"scene"' "$out/knob.json"; exit 1; }
echo "ok: substeps slider 12 -> $set_to, kept on reset; switched to cloth-fold from the list"
