#!/usr/bin/env bash
# tests/scenes/bdf2_plot_test.sh BDF2_PLOT OUTDIR: tools/bdf2_plot on hand-made dumps whose plotted values are
# known: energy lost (M g Y0 - E) / (M g L) and the sag error in mm; both PNGs are written at 720 x 440.
set -eu
tool=$1 out=$2
mkdir -p "$out"
h='object,index,x,y,z,vx,vy,vz'
printf '%s\nsheet,0,0,2,0,0,0,0\nsheet,1,1,2,0,0,0,0\n' "$h" >"$out/rest.csv"
printf '%s\nsheet,0,0,1.5,0,1,0,0\nsheet,1,1,1.5,0,0,-1,0\n' "$h" >"$out/moved.csv"
printf 'title test\nmass 1\ngravity 9.81\nlength 1\nheight 2\npoint A 0.5 %s\npoint A 1 %s\n' \
  "$out/rest.csv" "$out/moved.csv" >"$out/energy.manifest"
values=$("$tool" energy "$out/energy.png" "$out/energy.manifest")
echo "$values"
# lost at 1 s: (19.62 - (0.5 + 9.81 * 1.5)) / 9.81 = 0.449032
echo "$values" | awk '$1 == "A" && $3 == 0.5 { ok0 = ($4 == 0) } $1 == "A" && $3 == 1 { ok1 = ($4 > 0.44903 && $4 < 0.44904) }
  END { exit !(ok0 && ok1) }'
printf '%s\nsheet,0,0,2.5,0,0,0,0\nsheet,1,0,1.5,0,0,0,0\n' "$h" >"$out/ref.csv"
printf '%s\nsheet,0,0,2.5,0,0,0,0\nsheet,1,0,1.498,0,0,0,0\n' "$h" >"$out/bar.csv"
printf 'title test\nreference %s\nbar 4x2 A %s\nbar 4x2 B %s\n' "$out/ref.csv" "$out/bar.csv" "$out/ref.csv" \
  >"$out/sag.manifest"
values=$("$tool" sag "$out/sag.png" "$out/sag.manifest")
echo "$values"
echo "$values" | awk '$1 == "A" { a = ($4 > 1.999 && $4 < 2.001) } $1 == "B" { b = ($4 == 0) } END { exit !(a && b) }'
for png in energy sag; do # the PNG signature, then IHDR's width and height (big-endian) at bytes 16..23
  [ "$(od -An -tx1 -N8 "$out/$png.png" | tr -d ' \n')" = 89504e470d0a1a0a ]
  [ "$(od -An -tu1 -j16 -N8 "$out/$png.png" | tr -s ' ' | sed 's/^ //')" = "0 0 2 208 0 0 1 184" ]
done
echo ok
