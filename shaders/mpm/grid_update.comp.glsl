// mpm/grid_update.comp: one thread per grid node (snow_spec.h step 2):
// v_n = P / m, v* = (P + Q) / m + dt g (Stomakhin 2013 steps 1 and 4), then
// (a node lighter than params.z gets no internal force, snow_spec.h), then
// the collision rule at the node against every collider and domain wall
// (step 5), with the grid's friction (the first snow material's).
// Writes gridv[2i] = (v_{n+1}, m), gridv[2i+1] = (v_n, 0); empty nodes zero.
// The accumulator is read as raw words: float bits, or int32 fixed point
// (FL_MPM_FIXED_POINT) divided by the push's scales.
// Node i is node i % 64 of the sparse grid's block slot i / 64 (snow_spec.h
// GRID); every allocated node is updated, those of unused slots are empty.
// CPU reference: src/sim/mpm/snow_cpu.c (fl_snow_cpu_grid_update).
#version 450
#extension GL_GOOGLE_include_directive : require
#define FL_COLLIDERS_BINDING 2 // the collider block (common/sdf.glsl)
#define FL_COLLIDER_TAIL_BINDING 5 // the same buffer, for the tail (common/sdf.glsl)
#include "compute.glsl"
#include "flurry_shared.h"
#define FL_MPM_COLLIDERS
layout(std430, binding = 4) readonly buffer Blocks { uint blocks[]; };
#define FL_MPM_BLOCK_LIST
#include "mpm.glsl"

layout(std430, binding = 0) readonly buffer Accumulator { uint acc[]; };
layout(std430, binding = 1) writeonly buffer GridVelocity { vec4 gridv[]; };
layout(std140, binding = 3) uniform Materials { fl_snow_material materials[FL_SNOW_MAX_MATERIALS]; };
layout(push_constant) uniform Push { fl_mpm_push pc; };

float decode(uint word, float scale)
{
  return (pc.flags & FL_MPM_FIXED_POINT) != 0u ? float(int(word)) / scale : uintBitsToFloat(word);
}

void main()
{
  uint i = fl_thread_index();
  if (i >= pc.node_count) return;
  float ms = pc.mass_scale, ps = pc.momentum_scale;
  float m = decode(acc[8u * i + 3u], ms);
  if (!(m > 0.0)) {
    gridv[2u * i] = vec4(0.0);
    gridv[2u * i + 1u] = vec4(0.0);
    return;
  }
  vec3 P = vec3(decode(acc[8u * i], ps), decode(acc[8u * i + 1u], ps), decode(acc[8u * i + 2u], ps));
  vec3 Q = vec3(decode(acc[8u * i + 4u], ps), decode(acc[8u * i + 5u], ps), decode(acc[8u * i + 6u], ps));
  vec3 v_n = P / m;
  vec3 v = (m < pc.light_node_mass ? P : P + Q) / m + pc.dt * pc.gravity;  // light nodes: no internal force
  v = fl_mpm_collide(fl_mpm_node_world(i, pc), v, materials[0].friction, pc);
  gridv[2u * i] = vec4(v, m);
  gridv[2u * i + 1u] = vec4(v_n, 0.0);
}
