// mpm/implicit_init.comp: one thread per grid node, at the start of the
// semi-implicit solve (src/sim/mpm/snow_implicit.h), after the grid update.
// A node is FREE when it is heavy enough to take internal force
// (m_i >= params.z, snow_spec.h step 2) and the grid update's collision rule
// left its v* unchanged; held nodes (light, empty, collided) keep their
// velocity: their rows of the system are the identity and they enter every
// product as 0 (the projection of the paper's colliding degrees of freedom).
// Collided is re-derived here as the grid update does it: v* from the
// accumulator, then fl_mpm_collide(v*) != v*.
// Writes info[i] = 1 / sqrt(m_i) (free) or 0, x = sqrt(m_i) v*_i (free) or 0
// (the mass-scaled start, b = x0), and zeroes the Hessian accumulator.
#version 450
#extension GL_GOOGLE_include_directive : require
#define FL_COLLIDERS_BINDING 2 // the collider block (common/sdf.glsl)
#define FL_COLLIDER_TAIL_BINDING 8 // the same buffer, for the tail (common/sdf.glsl)
#include "compute.glsl"
#include "flurry_shared.h"
#define FL_MPM_COLLIDERS
layout(std430, binding = 7) readonly buffer Blocks { uint blocks[]; };
#define FL_MPM_BLOCK_LIST
#include "mpm.glsl"

layout(std430, binding = 0) readonly buffer Accumulator { uint acc[]; };
layout(std430, binding = 1) readonly buffer GridVelocity { vec4 gridv[]; };
layout(std140, binding = 3) uniform Materials { fl_snow_material materials[FL_SNOW_MAX_MATERIALS]; };
layout(std430, binding = 4) writeonly buffer NodeInfo { float info[]; };
layout(std430, binding = 5) writeonly buffer X { vec4 xs[]; };
layout(std430, binding = 6) writeonly buffer HessianAcc { uint hacc[]; };
layout(push_constant) uniform Push { fl_mpm_push pc; };

float decode(uint word, float scale)
{
  return (pc.flags & FL_MPM_FIXED_POINT) != 0u ? float(int(word)) / scale : uintBitsToFloat(word);
}

void main()
{
  uint i = fl_thread_index();
  if (i >= pc.node_count) return;
  for (uint k = 0u; k < 4u; k++) hacc[4u * i + k] = 0u;
  float m = gridv[2u * i].w;
  bool free_node = m >= pc.light_node_mass && m > 0.0;
  if (free_node) {  // the grid update's v* before collisions (grid_update.comp)
    float ps = pc.momentum_scale;
    vec3 P = vec3(decode(acc[8u * i], ps), decode(acc[8u * i + 1u], ps), decode(acc[8u * i + 2u], ps));
    vec3 Q = vec3(decode(acc[8u * i + 4u], ps), decode(acc[8u * i + 5u], ps), decode(acc[8u * i + 6u], ps));
    vec3 v = (P + Q) / m + pc.dt * pc.gravity;
    free_node = fl_mpm_collide(fl_mpm_node_world(i, pc), v, materials[0].friction, pc) == v;
  }
  float s = free_node ? sqrt(m) : 0.0;
  info[i] = free_node ? 1.0 / s : 0.0;
  xs[i] = vec4(s * gridv[2u * i].xyz, 0.0);
}
