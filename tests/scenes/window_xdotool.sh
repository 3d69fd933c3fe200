#!/usr/bin/env bash
# tests/scenes/window_xdotool.sh MODE FLURRY CHECK_REPORT OUTDIR: a windowed run
# under validation (inside xvfb-run), driven by another X client (xdotool):
#   storm    200 resizes, 1x1 and huge included, with unmaps and minimize
#            requests between them, then Escape: exit 0, 0 validation errors;
#   destroy  the window is destroyed by another client (XDestroyWindow): the
#            run ends as if closed, exit 0, the report is written.
# The report is checked in both; the exit code must be 0 (3 = validation errors).
set -u
mode=$1 flurry=$2 check=$3 out=$4
mkdir -p "$out"
report=$out/window_$mode.json
rm -f "$report"
"$flurry" --validation --size 320x240 --report "$report" --scene particles & pid=$!
wid=$(timeout 120 xdotool search --sync --onlyvisible --name '^flurry' | head -1)
[ -n "$wid" ] || { echo "no flurry window appeared"; kill "$pid"; exit 1; }
sleep 0.5
if [ "$mode" = storm ]; then
  sizes=(1x1 640x360 2x2 100x37 1280x720 1x480 480x1 333x222 16x16 800x600)
  for i in $(seq 0 199); do
    xdotool windowsize "$wid" ${sizes[$((i % ${#sizes[@]}))]/x/ }
    if [ $((i % 25)) -eq 12 ]; then
      xdotool windowminimize "$wid" 2>/dev/null # needs a window manager: a no-op on bare Xvfb
      xdotool windowunmap "$wid"; sleep 0.05; xdotool windowmap "$wid"
    fi
    sleep 0.01
  done
  sleep 0.3
  xdotool key --window "$wid" Escape 2>/dev/null # its key-up may find the window gone
else
  xdotool windowclose "$wid"
fi
timeout 120 tail --pid="$pid" -f /dev/null
wait "$pid"; code=$?
echo "flurry exited $code"
[ $code -eq 0 ] || exit 1
"$check" "$report"
