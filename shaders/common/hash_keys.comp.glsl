// common/hash_keys.comp: the first pass of a spatial hash build
// (src/sim/common/spatial_hash.h): for particle i, key = the table entry of its
// cell (common/spatial_hash.glsl), value = i. The radix sort then orders the
// pairs by key, keeping ascending i within a key.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "spatial_hash.glsl"

layout(std430, binding = 0) readonly buffer Positions { vec4 pos[]; };
layout(std430, binding = 1) writeonly buffer Keys { uint keys[]; };
layout(std430, binding = 2) writeonly buffer Values { uint values[]; };
layout(push_constant) uniform Push { fl_hash_push pc; };

void main()
{
  uint i = fl_thread_index();
  if (i >= pc.count) return;
  keys[i] = fl_hash_index(fl_hash_cell_inv(pos[i].xyz, pc.inv_cell_size), pc.table_size);
  values[i] = i;
}
