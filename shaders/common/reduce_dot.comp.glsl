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
#include "reduce_shared.h"

layout(std430, binding = 0) readonly buffer A { vec4 a[]; };
layout(std430, binding = 1) readonly buffer B { vec4 b[]; };
layout(std430, binding = 2) writeonly buffer Partials { float partials[]; };
layout(std430, binding = 3) writeonly buffer Results { float results[]; };
layout(push_constant) uniform Push { fl_reduce_push pc; }; // in_offset unused

// (x*x' + y*y') + z*z', unfused.
float fl_reduce_load(uint i)
{
  vec3 x = a[i].xyz, y = b[i].xyz;
  precise float r = x.x * y.x + x.y * y.y + x.z * y.z;
  return r;
}

#include "reduce_block.glsl"
