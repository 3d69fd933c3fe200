// common/reduce_dot.comp: level 0 of the deterministic dot product of two
// vec4 arrays over xyz (src/sim/common/reduce.h): each workgroup sums
// a[i].xyz . b[i].xyz over one block of workgroup_size x FL_REDUCE_ITEMS
// elements and writes the block sum to partials[out_offset + block], or, when
// the whole input is one block, to results[out_offset] (the slot). The higher
// levels are common/reduce_sum.comp over the partials. The same fixed,
// pairwise, `precise` order as common/reduce_sum.comp (each product is
// (x*x' + y*y') + z*z', unfused): bitwise deterministic. No subgroup operations.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"

#define FL_REDUCE_WORKGROUP 256u // requested workgroup size: FL_REDUCE_WORKGROUP in src/sim/common/reduce.h
#define FL_REDUCE_ITEMS 64u      // elements per invocation: FL_REDUCE_ITEMS in src/sim/common/reduce.h
#define CHUNK 16u                // elements added pairwise in registers at a time
#define FL_REDUCE_FINAL 1u       // push flag: write results[out_offset]

layout(std430, binding = 0) readonly buffer A { vec4 a[]; };
layout(std430, binding = 1) readonly buffer B { vec4 b[]; };
layout(std430, binding = 2) writeonly buffer Partials { float partials[]; };
layout(std430, binding = 3) writeonly buffer Results { float results[]; };
layout(push_constant) uniform Push { uvec4 pc; }; // x: count, y: unused, z: out_offset, w: flags

#define SEG 16u // raking segment length: <= CHUNK (v holds a segment), >= FL_REDUCE_WORKGROUP / SEG
shared float s_sum[FL_REDUCE_WORKGROUP];
shared float s_seg[FL_REDUCE_WORKGROUP / SEG];

void main()
{
  uint n = pc.x, wg = gl_WorkGroupSize.x, lid = gl_LocalInvocationID.x;
  uint block = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  uint base = block * wg * FL_REDUCE_ITEMS;
  if (base >= n) return; // a whole workgroup of the folded grid's tail: uniform

  // FL_REDUCE_ITEMS / CHUNK chunks of CHUNK elements, each added pairwise in
  // registers, then the chunk sums pairwise: a pairwise tree of all of them.
  precise float v[CHUNK];
  precise float chunk[FL_REDUCE_ITEMS / CHUNK];
  for (uint c = 0u; c < FL_REDUCE_ITEMS / CHUNK; c++) {
    for (uint k = 0u; k < CHUNK; k++) {
      uint i = base + (c * CHUNK + k) * wg + lid;
      if (i < n) {
        vec3 x = a[i].xyz, y = b[i].xyz;
        v[k] = x.x * y.x + x.y * y.y + x.z * y.z;
      } else {
        v[k] = 0.0;
      }
    }
    for (uint s = CHUNK / 2u; s > 0u; s >>= 1u)
      for (uint k = 0u; k < s; k++) v[k] = v[k] + v[k + s];
    chunk[c] = v[0];
  }
  for (uint s = FL_REDUCE_ITEMS / CHUNK / 2u; s > 0u; s >>= 1u)
    for (uint k = 0u; k < s; k++) chunk[k] = chunk[k] + chunk[k + s];
  v[0] = chunk[0];
  s_sum[lid] = v[0];
  barrier();
  // Raking, two barriers: each of the first ceil(wg / SEG) invocations adds a
  // segment of SEG invocation sums pairwise, then one adds the segment sums
  // pairwise (zeros past the end): a pairwise tree over the whole block.
  if (lid < (wg + SEG - 1u) / SEG) {
    for (uint k = 0u; k < SEG; k++) v[k] = lid * SEG + k < wg ? s_sum[lid * SEG + k] : 0.0;
    for (uint s = SEG / 2u; s > 0u; s >>= 1u)
      for (uint k = 0u; k < s; k++) v[k] = v[k] + v[k + s];
    s_seg[lid] = v[0];
  }
  barrier();
  if (lid == 0u) {
    for (uint k = 0u; k < SEG; k++) v[k] = k < (wg + SEG - 1u) / SEG ? s_seg[k] : 0.0;
    for (uint s = SEG / 2u; s > 0u; s >>= 1u)
      for (uint k = 0u; k < s; k++) v[k] = v[k] + v[k + s];
    if ((pc.w & FL_REDUCE_FINAL) != 0u)
      results[pc.z] = v[0];
    else
      partials[pc.z + block] = v[0];
  }
}
