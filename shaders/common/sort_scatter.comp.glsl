// common/sort_scatter.comp: the last kernel of one radix sort pass
// (src/sim/common/radix_sort.h): moves every (key, value) of a tile to
//   offsets[digit * tiles + tile] + (number of earlier elements of the tile with that digit)
// where offsets is the exclusive scan of common/sort_histogram.comp's counts.
// That rank keeps equal digits in input order, so the pass is stable and the
// output deterministic.
//
// Rank without subgroup operations: invocation t owns the FL_SORT_ITEMS
// consecutive elements starting at t x FL_SORT_ITEMS, counts its digits in
// registers (packed two 16-bit counters per uint: eight uints in two uvec4s),
// and an exclusive scan of those vectors across the workgroup (raking: three
// barriers) gives, for each digit, the count in earlier invocations; within
// its own run the invocation counts serially.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "sort_shared.h"

layout(std430, binding = 0) readonly buffer KeysIn { uint keys_in[]; };
layout(std430, binding = 1) readonly buffer ValuesIn { uint values_in[]; };
layout(std430, binding = 2) readonly buffer Offsets { uint offsets[]; };
layout(std430, binding = 3) writeonly buffer KeysOut { uint keys_out[]; };
layout(std430, binding = 4) writeonly buffer ValuesOut { uint values_out[]; };
layout(push_constant) uniform Push { fl_sort_push pc; };

shared uvec4 s_lo[FL_SORT_WORKGROUP];  // digits 0..7: digit d in component d / 2, bits 16 (d % 2)
shared uvec4 s_hi[FL_SORT_WORKGROUP];  // digits 8..15 likewise
shared uint s_base[FL_SORT_DIGITS];
#define SEG 16u  // raking segment length of the workgroup scan
shared uvec4 s_seg_lo[(FL_SORT_WORKGROUP + SEG - 1u) / SEG];
shared uvec4 s_seg_hi[(FL_SORT_WORKGROUP + SEG - 1u) / SEG];

// The packed increment of digit d within its uvec4.
uvec4 digit_one(uint d)
{
  return uvec4(equal(uvec4((d >> 1) & 3u), uvec4(0u, 1u, 2u, 3u))) << ((d & 1u) * 16u);
}

uint digit_count(uvec4 lo, uvec4 hi, uint d)
{
  uvec4 v = d < 8u ? lo : hi;
  return (v[(d >> 1) & 3u] >> ((d & 1u) * 16u)) & 0xFFFFu;
}

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
    uint d = (key[k] >> shift) & (FL_SORT_DIGITS - 1u);
    uvec4 one = i < n ? digit_one(d) : uvec4(0u);
    if (d < 8u) lo += one; else hi += one;
  }
  s_lo[lid] = lo;
  s_hi[lid] = hi;
  barrier();

  // Exclusive scan of the packed counts across the workgroup, raking: each of
  // the first ceil(wg / SEG) invocations scans a segment of SEG counts
  // serially, one scans the segment totals, everyone adds its segment's.
  uint segs = (wg + SEG - 1u) / SEG;
  if (lid < segs) {
    uvec4 a = uvec4(0u), b = uvec4(0u);
    for (uint j = lid * SEG; j < min(wg, lid * SEG + SEG); j++) {
      uvec4 ta = s_lo[j], tb = s_hi[j];
      s_lo[j] = a;
      s_hi[j] = b;
      a += ta;
      b += tb;
    }
    s_seg_lo[lid] = a;
    s_seg_hi[lid] = b;
  }
  barrier();
  if (lid == 0u) {
    uvec4 a = uvec4(0u), b = uvec4(0u);
    for (uint j = 0u; j < segs; j++) {
      uvec4 ta = s_seg_lo[j], tb = s_seg_hi[j];
      s_seg_lo[j] = a;
      s_seg_hi[j] = b;
      a += ta;
      b += tb;
    }
  }
  barrier();
  // The counts of the invocations before this one.
  lo = s_lo[lid] + s_seg_lo[lid / SEG];
  hi = s_hi[lid] + s_seg_hi[lid / SEG];

  for (uint k = 0u; k < FL_SORT_ITEMS; k++) {
    uint i = first + k;
    if (i >= n) break;
    uint d = (key[k] >> shift) & (FL_SORT_DIGITS - 1u);
    uint dst = s_base[d] + digit_count(lo, hi, d);
    if (d < 8u) lo += digit_one(d); else hi += digit_one(d);
    keys_out[dst] = key[k];
    values_out[dst] = values_in[i];
  }
}
