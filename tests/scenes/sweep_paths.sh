#!/usr/bin/env bash
# tests/scenes/sweep_paths.sh FLURRY OUTDIR NAME FLURRY-ARGS...: a Gauss-Seidel
# sweep recorded both ways (sim/xpbd/xpbd.c, FLURRY_XPBD_SWEEP: one dispatch per
# colour, or every colour in one workgroup, xpbd/gs_sweep.glsl) moves every
# particle to the same place bit for bit (--dump), with 0 validation errors;
# the workgroup run must say it swept in one workgroup, so the test cannot
# pass by running one path twice.
set -u
flurry=$1 out=$2/sweep_paths name=$3
shift 3
mkdir -p "$out"
for mode in colours workgroup; do
  log="$out/$name-$mode.log"
  FLURRY_XPBD_SWEEP=$mode "$flurry" --headless --validation --dump "$out/$name-$mode.csv" "$@" >"$log" 2>&1 ||
    { echo "$mode: the run failed"; cat "$log"; exit 1; }
  grep -q 'validation: 0 errors' "$log" || { echo "$mode: validation errors"; cat "$log"; exit 1; }
done
grep -q 'one workgroup per Gauss-Seidel sweep' "$out/$name-workgroup.log" ||
  { echo "the workgroup run did not sweep in one workgroup"; cat "$out/$name-workgroup.log"; exit 1; }
if grep -q 'one workgroup per Gauss-Seidel sweep' "$out/$name-colours.log"; then
  echo "the colours run swept in one workgroup"; exit 1
fi
cmp "$out/$name-colours.csv" "$out/$name-workgroup.csv" || { echo "the two sweeps differ"; exit 1; }
echo "ok: $(($(wc -l <"$out/$name-workgroup.csv") - 1)) particles equal bit for bit"
