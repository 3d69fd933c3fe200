// mpm/implicit_finish.comp: one thread per grid node, the end of the
// semi-implicit solve (src/sim/mpm/snow_implicit.h): on free nodes
// v^{n+1} = x / sqrt(m) = x info, then the collision rule again (Stomakhin 2013
// step 5; fl_mpm_collide at the node, the grid's friction), into gridv[2i].xyz.
// Held nodes keep the grid update's velocity; gridv[2i+1] (v_n) is untouched.
#version 450
#extension GL_GOOGLE_include_directive : require
#define FL_COLLIDERS_BINDING 2 // the collider block (common/sdf.glsl)
#define FL_COLLIDER_TAIL_BINDING 6 // the same buffer, for the tail (common/sdf.glsl)
#include "compute.glsl"
#include "flurry_shared.h"
#define FL_MPM_COLLIDERS
layout(std430, binding = 5) readonly buffer Blocks { uint blocks[]; };
#define FL_MPM_BLOCK_LIST
#include "mpm.glsl"

layout(std430, binding = 0) readonly buffer NodeInfo { float info[]; };
layout(std430, binding = 1) readonly buffer X { vec4 xs[]; };
layout(std140, binding = 3) uniform Materials { fl_snow_material materials[FL_SNOW_MAX_MATERIALS]; };
layout(std430, binding = 4) buffer GridVelocity { vec4 gridv[]; };
layout(push_constant) uniform Push { fl_mpm_push pc; };

void main()
{
  uint i = fl_thread_index();
  if (i >= pc.node_count) return;
  float s = info[i];
  if (s == 0.0) return;
  gridv[2u * i].xyz = fl_mpm_collide(fl_mpm_node_world(i, pc), s * xs[i].xyz, materials[0].friction, pc);
}
