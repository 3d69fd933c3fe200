#!/usr/bin/env bash
# tests/layers/check_includes.sh SRC_DIR: the layers include only what lies
# below them (docs/ARCHITECTURE.md): core < gpu, scene < sim < render < app,
# gpu and scene independent of each other; and no material folder of sim
# (particles, xpbd, massspring, mpm) includes another's headers: they share
# sim/common and the sim/*.h contracts. Prints each offending line; exits 1.
set -u
src=${1:?usage: check_includes.sh SRC_DIR}
status=0

# allowed project include prefixes per layer
declare -A allowed=(
  [core]="core"
  [gpu]="core gpu"
  [scene]="core scene"
  [sim]="core gpu scene sim"
  [render]="core gpu scene sim render"
  [app]="core gpu scene sim render app"
)
for layer in "${!allowed[@]}"; do
  [ -d "$src/$layer" ] || { echo "missing layer directory $src/$layer"; status=1; continue; }
  while IFS= read -r line; do
    file=${line%%:*}
    inc=$(sed -E 's/.*#include "([a-z_]+)\/.*/\1/' <<<"${line#*:}")
    ok=0
    for a in ${allowed[$layer]}; do [ "$inc" = "$a" ] && ok=1; done
    if [ $ok -eq 0 ]; then
      echo "layer violation: $line ($layer may include ${allowed[$layer]})"
      status=1
    fi
  done < <(grep -rnE '#include "[a-z_]+/' "$src/$layer")
done

materials="particles xpbd massspring mpm"
for m in $materials; do
  for other in $materials; do
    [ "$m" = "$other" ] && continue
    if grep -rn "#include \"sim/$other/" "$src/sim/$m"; then
      echo "material coupling: sim/$m includes sim/$other (share code through sim/common)"
      status=1
    fi
  done
done
[ $status -eq 0 ] && echo "layers: every include points down, no material folder includes another"
exit $status
