// coupling/weights.comp: pass 1 of a coupling substep (docs/COUPLING.md):
// one thread per coupled XPBD particle p adds its quadratic B-spline weights
// w_ip to W_i of the snow grid nodes it reaches (int32 fixed point, integer
// atomics), so that contact.comp can share each node's mass among the
// particles as s_ip = w_ip / W_i. Nodes whose block is not allocated hold no
// snow and are skipped. CPU reference: src/sim/coupling/coupling_cpu.c.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "coupling_shared.h"
layout(push_constant) uniform Push { fl_coupling_push pc; };
layout(std430, binding = 0) readonly buffer Pos { vec4 pos[]; };
layout(std430, binding = 1) readonly buffer Vel { vec4 vel[]; };
layout(std430, binding = 2) readonly buffer Coupled { uint coupled[]; };
layout(std430, binding = 3) readonly buffer BlockHash { uint block_hash[]; };
layout(std430, binding = 4) buffer Accum { int accum[]; };
#define FL_COUPLING_WEIGHTS
#include "coupling.glsl"

void main()
{
  uint p = fl_thread_index();
  if (p >= pc.particle_count || coupled[p] == 0u) return;
  fl_coupling_add_weights(fl_coupling_point(pos[p], vel[p].xyz), 1.0);
}
