#!/usr/bin/env bash
# tests/scenes/run_scene.sh FLURRY CHECK_REPORT OUTDIR SCENE [flurry args...]:
# runs a scene headless for 60 frames with validation (synchronization
# validation on), a report and a dump, then checks both.
set -eu
flurry=$1 check=$2 out=$3 scene=$4; shift 4
mkdir -p "$out"
"$flurry" --headless --scene "$scene" --frames 60 --size 320x240 --validation \
  --report "$out/$scene.json" --dump "$out/$scene.csv" "$@"
"$check" "$out/$scene.json" "$out/$scene.csv"
