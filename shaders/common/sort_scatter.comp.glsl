// common/sort_scatter.comp: the last kernel of one radix sort pass
// (src/sim/common/radix_sort.h): moves every (key, value) of a tile to
//   offsets[digit * tiles + tile] + (number of earlier elements of the tile with that digit)
// where offsets is the exclusive scan of common/sort_histogram.comp's counts.
// That rank keeps equal digits in input order, so the pass is stable and the
// output deterministic.
//
// Rank (common/sort_rank.glsl): invocation t owns the FL_SORT_ITEMS
// consecutive elements starting at t x FL_SORT_ITEMS, counts its digits in
// registers, and the workgroup scan of those counts gives, for each digit,
// the count in earlier invocations; within its own run it counts serially.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "sort_rank.glsl"

layout(std430, binding = 0) readonly buffer KeysIn { uint keys_in[]; };
layout(std430, binding = 1) readonly buffer ValuesIn { uint values_in[]; };
layout(std430, binding = 2) readonly buffer Offsets { uint offsets[]; };
layout(std430, binding = 3) writeonly buffer KeysOut { uint keys_out[]; };
layout(std430, binding = 4) writeonly buffer ValuesOut { uint values_out[]; };
layout(push_constant) uniform Push { fl_sort_push pc; };

void main()
{
  uint n = pc.count, tiles = pc.tiles, shift = pc.shift;
  uint wg = gl_WorkGroupSize.x, lid = gl_LocalInvocationID.x;
  uint tile = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  if (tile >= tiles) return;  // a whole workgroup of the folded grid's tail: uniform

  for (uint d = lid; d < FL_SORT_DIGITS; d += wg) s_base[d] = offsets[d * tiles + tile];

  uint first = tile * wg * FL_SORT_ITEMS + lid * FL_SORT_ITEMS;
  uint key[FL_SORT_ITEMS];
  uvec4 lo = uvec4(0u), hi = uvec4(0u);
  for (uint k = 0u; k < FL_SORT_ITEMS; k++) {
    uint i = first + k;
    key[k] = i < n ? keys_in[i] : 0u;
    uint d = fl_sort_digit(key[k], shift, pc.key_bits);
    uvec4 one = i < n ? fl_sort_digit_one(d) : uvec4(0u);
    if (d < 8u) lo += one; else hi += one;
  }
  fl_sort_rank_scan(lo, hi, false);  // the counts of the invocations before this one

  for (uint k = 0u; k < FL_SORT_ITEMS; k++) {
    uint i = first + k;
    if (i >= n) break;
    uint d = fl_sort_digit(key[k], shift, pc.key_bits);
    uint dst = s_base[d] + fl_sort_digit_count(lo, hi, d);
    if (d < 8u) lo += fl_sort_digit_one(d); else hi += fl_sort_digit_one(d);
    keys_out[dst] = key[k];
    values_out[dst] = values_in[i];
  }
}
