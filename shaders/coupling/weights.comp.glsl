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
#include "coupling.glsl"

void main()
{
  uint p = fl_thread_index();
  if (p >= pc.particle_count || coupled[p] == 0u) return;
  vec3 x = fl_coupling_point(pos[p], vel[p].xyz);
  if (!fl_coupling_inside(x)) return;
  fl_mpm_push m = fl_coupling_mpm_push();
  fl_mpm_stencil s = fl_mpm_stencil_of(x, m, true);
  FL_MPM_FOR_STENCIL(3, {
    uint i = fl_mpm_node(s, a, b, c, m);
    if (i != FL_SNOW_NO_NODE)
      atomicAdd(accum[FL_COUPLING_NODE_WORDS * i + 3u], fl_mpm_fixed(fl_mpm_weight(s, a, b, c), pc.weight_scale));
  })
}
