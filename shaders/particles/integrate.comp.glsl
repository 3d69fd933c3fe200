// particles/integrate.comp: symplectic Euler for free particles, one substep:
//   v += g h ;  x += v h
// CPU reference: src/sim/particles/particles_cpu.c (fl_particles_cpu_integrate).
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "flurry_shared.h"

layout(std430, binding = 0) buffer Positions { vec4 pos[]; };  // xyz, w: inverse mass
layout(std430, binding = 1) buffer Velocities { vec4 vel[]; };
layout(push_constant) uniform Push { fl_particles_push pc; };

void main()
{
  uint i = fl_thread_index();
  if (i >= pc.count) return;
  float h = pc.h;
  vec4 p = pos[i];
  vec3 v = vel[i].xyz;
  if (p.w > 0.0) v += pc.gravity * h;
  p.xyz += v * h;
  pos[i] = p;
  vel[i] = vec4(v, 0.0);
}
