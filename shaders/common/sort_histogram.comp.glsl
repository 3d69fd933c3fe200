// common/sort_histogram.comp: the first kernel of one radix sort pass
// (src/sim/common/radix_sort.h). Each workgroup counts the FL_SORT_DIGITS
// digits fl_sort_digit(key, shift, key_bits) (common/sort_rank.glsl) of its tile of
// workgroup_size x FL_SORT_ITEMS keys and writes the counts digit-major:
// hist[digit * tiles + tile], so that the exclusive scan of hist gives every
// (digit, tile) its first output position. Each invocation counts its
// FL_SORT_ITEMS consecutive keys in registers and adds its nonzero counts to
// shared counters with integer atomics (half the time of one atomic per key
// on lavapipe); sums do not depend on their order, so the result is
// deterministic.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "sort_rank.glsl"

layout(std430, binding = 0) readonly buffer Keys { uint keys[]; };
layout(std430, binding = 1) writeonly buffer Histogram { uint hist[]; };
layout(push_constant) uniform Push { fl_sort_push pc; };

shared uint s_count[FL_SORT_DIGITS];

void main()
{
  uint n = pc.count, tiles = pc.tiles, shift = pc.shift;
  uint wg = gl_WorkGroupSize.x, lid = gl_LocalInvocationID.x;
  uint tile = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  if (tile >= tiles) return;  // a whole workgroup of the folded grid's tail: uniform
  for (uint d = lid; d < FL_SORT_DIGITS; d += wg) s_count[d] = 0u;
  barrier();
  // Count this invocation's FL_SORT_ITEMS consecutive keys in registers (two
  // 16-bit counters per uint), then one shared atomic per digit it has.
  uint first = tile * wg * FL_SORT_ITEMS + lid * FL_SORT_ITEMS;
  uvec4 lo = uvec4(0u), hi = uvec4(0u);
  for (uint k = 0u; k < FL_SORT_ITEMS; k++) {
    uint i = first + k;
    if (i >= n) break;
    uint d = fl_sort_digit(keys[i], shift, pc.key_bits);
    uvec4 one = fl_sort_digit_one(d);
    if (d < 8u) lo += one; else hi += one;
  }
  for (uint c = 0u; c < 4u; c++) {
    if (lo[c] != 0u) {
      if ((lo[c] & 0xFFFFu) != 0u) atomicAdd(s_count[2u * c], lo[c] & 0xFFFFu);
      if ((lo[c] >> 16) != 0u) atomicAdd(s_count[2u * c + 1u], lo[c] >> 16);
    }
    if (hi[c] != 0u) {
      if ((hi[c] & 0xFFFFu) != 0u) atomicAdd(s_count[8u + 2u * c], hi[c] & 0xFFFFu);
      if ((hi[c] >> 16) != 0u) atomicAdd(s_count[8u + 2u * c + 1u], hi[c] >> 16);
    }
  }
  barrier();
  for (uint d = lid; d < FL_SORT_DIGITS; d += wg) hist[d * tiles + tile] = s_count[d];
}
