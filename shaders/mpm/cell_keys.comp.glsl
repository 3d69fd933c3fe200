// mpm/cell_keys.comp: the sort keys of the particles: key = the linear index
// of the grid cell floor((x - origin) / h) holding each particle, value = its
// index (snow_spec.h SORT). The radix sort then orders particles by cell so
// P2G's neighbouring threads touch neighbouring nodes.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "mpm_shared.h"

layout(std430, binding = 0) readonly buffer Positions { vec4 pos[]; };
layout(std430, binding = 1) writeonly buffer Keys { uint keys[]; };
layout(std430, binding = 2) writeonly buffer Values { uint values[]; };
layout(push_constant) uniform Push { fl_mpm_push pc; };

void main()
{
  uint p = fl_thread_index();
  if (p >= pc.count) return;
  uvec3 n = pc.grid_dims;
  uvec3 c = uvec3(clamp(ivec3(floor((pos[p].xyz - pc.grid_origin) * pc.inv_h)), ivec3(0), ivec3(n) - 1));
  keys[p] = (c.z * n.y + c.y) * n.x + c.x;
  values[p] = p;
}
