// mpm/volumes.comp: the first step's particle volumes (snow_spec.h, Stomakhin
// 2013 step 2): V0_p = m_p / rho_p with rho_p the grid density at the particle,
// after a P2G and a grid update at load. CPU reference: fl_snow_cpu_volumes.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "mpm_shared.h"
layout(std430, binding = 5) readonly buffer BlockHash { uint block_hash[]; };
#define FL_MPM_BLOCK_HASH

layout(std430, binding = 0) readonly buffer Positions { vec4 pos[]; };
layout(std430, binding = 1) buffer Velocities { vec4 vel[]; };
layout(std430, binding = 2) readonly buffer Stress { vec4 stress[]; };
layout(std430, binding = 3) readonly buffer GridVelocity { vec4 gridv[]; };
layout(std140, binding = 4) uniform Materials { fl_snow_material materials[FL_SNOW_MAX_MATERIALS]; };
layout(push_constant) uniform Push { fl_mpm_push pc; };
#include "density.glsl"

void main()
{
  uint p = pc.arg + fl_thread_index();  // arg: the first particle of this submission
  if (p >= pc.count) return;
  vec4 xm = pos[p];
  bool apic = materials[uint(stress[2u * p + 1u].w)].transfer == FL_SNOW_TRANSFER_APIC;
  float rho = fl_mpm_density(xm.xyz, apic, pc);
  vel[p].w = rho > 0.0 ? xm.w / rho : 0.0;
}
