// common/hash_cells.comp: the last pass of a spatial hash build
// (src/sim/common/spatial_hash.h): over the sorted keys, the first position of
// each run of equal keys is that entry's cell_start and one past its last its
// cell_end. Entries no particle hashes to keep FL_HASH_EMPTY from the clear
// recorded before this pass. Every entry is written by at most one invocation.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "hash_shared.h"

layout(std430, binding = 0) readonly buffer SortedKeys { uint sorted_keys[]; };
layout(std430, binding = 1) writeonly buffer CellStart { uint cell_start[]; };
layout(std430, binding = 2) writeonly buffer CellEnd { uint cell_end[]; };
layout(push_constant) uniform Push { fl_hash_push pc; };

void main()
{
  uint i = fl_thread_index(), n = pc.count;
  if (i >= n) return;
  uint key = sorted_keys[i];
  if (i == 0u || sorted_keys[i - 1u] != key) cell_start[key] = i;
  if (i == n - 1u || sorted_keys[i + 1u] != key) cell_end[key] = i + 1u;
}
