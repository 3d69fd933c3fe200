// coupling/apply.comp: pass 3 of a coupling substep (docs/COUPLING.md): one
// thread per snow grid node adds the impulse the coupling gave it to its
// velocity, v_i += dP_i / m_i, before the snow's G2P reads it.
// CPU reference: src/sim/coupling/coupling_cpu.c.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "coupling_shared.h"
layout(push_constant) uniform Push { fl_coupling_push pc; };
layout(std430, binding = 0) readonly buffer Accum { ivec4 accum[]; };
layout(std430, binding = 1) buffer GridVelocity { vec4 gridv[]; };

void main()
{
  uint i = fl_thread_index();
  if (i >= pc.node_count) return;
  ivec3 q = accum[i].xyz;
  if (q == ivec3(0)) return;
  vec4 g = gridv[2u * i];
  if (g.w > 0.0) gridv[2u * i] = vec4(g.xyz + vec3(q) / pc.momentum_scale / g.w, g.w);
}
